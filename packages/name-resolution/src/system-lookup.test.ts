import { describe, expect, it } from 'vitest';
import { listSearchNames } from './system-lookup.js';

describe('listSearchNames', () => {
  const pod = { search: ['ingress.svc.cluster.local', 'svc.cluster.local', 'cluster.local'], ndots: 5 };

  it('appends the search domains first to a name with fewer than ndots dots (a pod: ndots 5)', () => {
    expect(listSearchNames('db.example.com', pod)).toEqual([
      'db.example.com.ingress.svc.cluster.local',
      'db.example.com.svc.cluster.local',
      'db.example.com.cluster.local',
      'db.example.com',
    ]);
  });

  it('tries a name with ndots dots or more as it is first', () => {
    expect(listSearchNames('a.b.c.d.e.f', pod)[0]).toBe('a.b.c.d.e.f');
    expect(listSearchNames('db.example.com', { search: ['corp.example'], ndots: 1 })).toEqual([
      'db.example.com',
      'db.example.com.corp.example',
    ]);
  });

  it('asks a name ending in a dot only as it is', () => {
    expect(listSearchNames('db.example.com.', pod)).toEqual(['db.example.com']);
  });
});

import { describe, expect, it } from 'vitest';
import { problemOfNote } from './source-problems.js';

describe('problemOfNote', () => {
  it('names the namespace and oldest source that own a host when it is owned elsewhere', () => {
    const object = { kind: 'Ingress', namespace: 'team-b', name: 'web' };
    const owner = { tenant: 'team-a', source: { kind: 'Ingress', namespace: 'team-a', name: 'first' } };
    expect(
      problemOfNote(object, { type: 'host-owned-elsewhere', source: object, hostname: 'a.example', owner }),
    ).toEqual({
      object,
      field: 'spec',
      message:
        'host a.example belongs to namespace team-a, whose Ingress team-a/first is the oldest to name it; other namespaces cannot add paths or TLS to it (--allow-cross-namespace-hosts)',
      severity: 'error',
      value: 'a.example',
      code: 'host-owned-elsewhere',
    });
  });
});

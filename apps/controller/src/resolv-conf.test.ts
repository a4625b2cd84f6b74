import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNameservers, readSystemNameservers } from './resolv-conf.js';

describe('parseNameservers', () => {
  it('reads IPv4 and bracketed IPv6 nameservers, once each, skipping comments and scoped addresses', () => {
    const text = [
      '# generated',
      'search default.svc.cluster.local svc.cluster.local',
      'nameserver 10.96.0.10',
      '  nameserver 2001:db8::53',
      'nameserver fe80::1%eth0',
      'nameserver 10.96.0.10',
      ';nameserver 10.0.0.1',
      'options ndots:5',
    ].join('\n');
    expect(parseNameservers(text)).toEqual(['10.96.0.10', '[2001:db8::53]']);
  });
});

describe('readSystemNameservers', () => {
  it('reads a file, and gives none for a file it cannot read', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'resolv-')), 'resolv.conf');
    expect(readSystemNameservers(path)).toEqual([]);
    writeFileSync(path, 'nameserver 192.0.2.53\n');
    expect(readSystemNameservers(path)).toEqual(['192.0.2.53']);
  });
});

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNameservers, parseResolvConf, readResolvConf, readSystemNameservers } from './resolv-conf.js';

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

describe('parseResolvConf', () => {
  it("reads a pod's resolv.conf: nameservers, search list, ndots, timeout and attempts", () => {
    const text = [
      'search mallory.svc.cluster.local svc.cluster.local cluster.local.',
      'nameserver 10.96.0.10',
      'nameserver 2001:db8::53',
      'options ndots:5 timeout:2',
      'options attempts:3',
    ].join('\n');
    expect(parseResolvConf(text)).toEqual({
      nameservers: ['10.96.0.10', '2001:db8::53'],
      search: ['mallory.svc.cluster.local', 'svc.cluster.local', 'cluster.local'],
      ndots: 5,
      timeoutMs: 2_000,
      attempts: 3,
    });
  });

  it("uses the C library's defaults and limits, and the last of search and domain", () => {
    expect(parseResolvConf('')).toEqual({
      nameservers: [],
      search: [],
      ndots: 1,
      timeoutMs: 5_000,
      attempts: 2,
    });
    const text =
      'search a.example b.example\ndomain c.example\noptions ndots:40 timeout:99 attempts:0 ndots:x';
    expect(parseResolvConf(text)).toMatchObject({
      search: ['c.example'],
      ndots: 15,
      timeoutMs: 30_000,
      attempts: 1,
    });
  });

  it('gives the defaults for a file it cannot read', () => {
    expect(readResolvConf('/nonexistent/resolv.conf').ndots).toBe(1);
  });
});

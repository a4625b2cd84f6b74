import { describe, expect, it } from 'vitest';
import { parseHostsFile, readHostsFile } from './hosts-file.js';

describe('parseHostsFile', () => {
  it('reads each name and alias, lower case, its addresses in file order, once each', () => {
    const hosts = parseHostsFile(
      [
        '# Kubernetes-managed hosts file.',
        '127.0.0.1\tlocalhost',
        '::1\tlocalhost ip6-localhost',
        '10.244.1.7\tingresskit-abc  # the pod',
        '',
        '# Entries added by HostAliases.',
        '192.0.2.5\tDB.Example.com. db',
        '192.0.2.6\tdb.example.com',
        'not-an-address\tbad.example.com',
      ].join('\n'),
    );
    expect(hosts.get('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(hosts.get('ingresskit-abc')).toEqual(['10.244.1.7']);
    expect(hosts.get('db.example.com')).toEqual(['192.0.2.5', '192.0.2.6']);
    expect(hosts.get('db')).toEqual(['192.0.2.5']);
    expect(hosts.has('bad.example.com')).toBe(false);
  });

  it('gives no names for a file it cannot read', () => {
    expect(readHostsFile('/nonexistent/hosts').size).toBe(0);
  });
});

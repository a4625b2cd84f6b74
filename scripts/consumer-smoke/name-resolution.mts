// The README's example: a name from /etc/hosts text resolved through ExternalNames, without DNS.
import assert from 'node:assert/strict';
import {
  createSystemLookup,
  ExternalNames,
  parseHostsFile,
  parseResolvConf,
  type NameResolution,
} from '@ingresskit/name-resolution';

const lookup = createSystemLookup({
  resolvConf: parseResolvConf(
    'nameserver 10.96.0.10\nsearch shop.svc.cluster.local svc.cluster.local\noptions ndots:5',
  ),
  hosts: parseHostsFile('192.0.2.50 db.internal\n'),
});
assert.deepEqual(await lookup('0x7f.1', { signal: new AbortController().signal }), ['127.0.0.1']);
let resolved: (resolution: NameResolution | undefined) => void = () => undefined;
const changed = new Promise<NameResolution | undefined>((resolve) => (resolved = resolve));
const names = new ExternalNames({
  lookup,
  timeoutMs: 2_000,
  inUse: () => true,
  onChange: () => resolved(names.resolution('shop', 'db.internal')),
});
assert.equal(names.resolution('shop', 'db.internal'), undefined);
assert.deepEqual(await changed, { addresses: ['192.0.2.50'] });
names.stop();

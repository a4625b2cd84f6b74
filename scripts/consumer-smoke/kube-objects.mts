// The README's example, verbatim apart from the assertions.
import assert from 'node:assert/strict';
import { checkDnsLabel, type ServiceLike } from '@ingresskit/kube-objects';

const service: ServiceLike = {
  metadata: { namespace: 'shop', name: 'cart' },
  spec: { ports: [{ name: 'http', port: 80 }] },
};
assert.equal(checkDnsLabel(service.metadata?.name), undefined);
assert.match(checkDnsLabel('Cart') ?? '', /RFC 1123 label/);

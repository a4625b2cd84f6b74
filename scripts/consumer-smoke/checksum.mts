// The README's example with real objects: ids, a published checksum, and its verification.
import assert from 'node:assert/strict';
import {
  buildIngressCheckSum,
  ingressCheckSumCrd,
  ingressConfigId,
  verifyChecksum,
} from '@ingresskit/checksum';

const ingresses = [
  { metadata: { name: 'shop-27555', annotations: { 'nginx.ingress.kubernetes.io/version': '1' } } },
  { metadata: { name: 'blog-9', annotations: { 'nginx.ingress.kubernetes.io/version': '3' } } },
];
const ids = ingresses.flatMap((ingress) => ingressConfigId(ingress).id ?? []);
assert.deepEqual(ids, ['27555-1', '9-3']);

const body = buildIngressCheckSum(ids, { namespace: 'ingress', now: new Date() });
const published = { ...body, metadata: { ...body.metadata, name: 'sum-1', creationTimestamp: new Date() } };
const result = verifyChecksum(ids, [published]);
assert.equal(result.ok, true, result.message);
assert.equal(ingressCheckSumCrd.spec.names.kind, 'IngressCheckSum');

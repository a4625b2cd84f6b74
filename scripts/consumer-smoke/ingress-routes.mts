// The README's example with one Ingress, its Service and EndpointSlice, and no TLS.
import assert from 'node:assert/strict';
import * as routes from '@ingresskit/ingress-routes';
import { createRouteTableBuilder, selectRoute } from '@ingresskit/route-model';

const ingress = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { namespace: 'shop', name: 'web', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    ingressClassName: 'nginx',
    rules: [
      {
        host: 'shop.example.com',
        http: {
          paths: [
            { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
          ],
        },
      },
    ],
  },
};
const services = new Map([
  [
    'shop/web',
    {
      metadata: { namespace: 'shop', name: 'web' },
      spec: { type: 'ClusterIP', ports: [{ name: 'http', port: 80, targetPort: 8080 }] },
    },
  ],
]);
const slices = [
  {
    metadata: { namespace: 'shop', name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [{ addresses: ['10.0.0.7'], conditions: { ready: true } }],
  },
];

const builder = createRouteTableBuilder({ defaultFallback: routes.createDefaultBackendRoute(undefined) });
builder.setContribution(routes.createDefaultBackendContribution());
const { contribution, problems } = routes.translateIngress(ingress, { secret: () => undefined });
assert.deepEqual(problems, []);
if (contribution !== undefined) builder.setContribution(contribution);
for (const id of builder.backendReferences().keys()) {
  const ref = routes.parseBackendId(id)!;
  builder.setBackend(
    routes.resolveServiceBackend(ref, services.get(`${ref.namespace}/${ref.name}`), slices).backend,
  );
}
builder.commit();
const answer = selectRoute(builder.table(), {
  listener: 'http',
  host: 'shop.example.com',
  path: '/cart',
  method: 'GET',
});
assert.equal(answer.found, true);

// The README's example, verbatim apart from the assertions.
import assert from 'node:assert/strict';
import { serviceBackendIdOf, type RouteContribution } from '@ingresskit/route-model';
import { RoutingTable, type BackendView } from '@ingresskit/route-table';

const view: BackendView = { service: () => undefined, endpointSlicesForService: () => [] };
const table = new RoutingTable({
  listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }],
  hostOwnership: 'oldest-tenant',
  resolveBackend: (ref) => ({
    backend: { id: serviceBackendIdOf(ref), endpoints: [{ address: '10.0.0.7', port: 8080 }] },
  }),
});
const source = { kind: 'Demo', namespace: 'shop', name: 'api' };
const backend = serviceBackendIdOf({ namespace: 'shop', name: 'cart', port: 80 });
const contribution: RouteContribution = {
  source,
  tenant: 'shop',
  hosts: [
    {
      hostname: 'shop.example.com',
      routes: [
        {
          id: 'Demo/shop/api/cart',
          origin: { ...source, createdAt: 0, index: [0] },
          match: { path: { type: 'PathPrefix', value: '/cart' } },
          action: { type: 'forward', backends: [{ backend, weight: 1 }] },
          policy: {},
        },
      ],
    },
  ],
  tls: [],
};
table.update(view, [{ source, contribution, isNewVersion: true, createdAt: 0 }]);
const delta = table.commit();
assert.equal(delta.virtualHosts.upsert.length, 1);
assert.equal(table.table().backends.length, 1);
assert.deepEqual(table.table().backends[0]?.endpoints, [{ address: '10.0.0.7', port: 8080 }]);

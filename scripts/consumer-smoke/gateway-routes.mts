// The README's example, verbatim apart from the assertions.
import assert from 'node:assert/strict';
import { createGatewayApiTranslator, markGatewayProgrammed } from '@ingresskit/gateway-routes';
import { createRouteTableBuilder, selectRoute } from '@ingresskit/route-model';

const gateways = [
  {
    metadata: { namespace: 'infra', name: 'gw', generation: 1 },
    spec: {
      gatewayClassName: 'ingresskit',
      listeners: [
        { name: 'web', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } },
      ],
    },
  },
];
const httpRoutes = [
  {
    metadata: { namespace: 'shop', name: 'cart', generation: 3, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: {
      parentRefs: [{ namespace: 'infra', name: 'gw' }],
      hostnames: ['shop.example.com'],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/cart' } }],
          backendRefs: [{ name: 'cart', port: 80 }],
        },
      ],
    },
  },
];
const services = [{ metadata: { namespace: 'shop', name: 'cart' }, spec: { ports: [{ port: 80 }] } }];

const translator = createGatewayApiTranslator({
  controllerName: 'ingresskit.dev/gateway-controller',
  gatewayClassNames: ['ingresskit'],
  ports: [{ port: 80, protocol: 'HTTP', listener: 'http' }],
});
const builder = createRouteTableBuilder({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
const result = translator.translate({ gateways, httpRoutes, services });
for (const contribution of result.routes) builder.setContribution(contribution);
const delta = builder.commit();
const gatewayStatuses = result.statuses.gateways.map((entry) => ({
  ...entry,
  status: markGatewayProgrammed(entry.status, { programmed: true }),
}));

assert.deepEqual(
  delta.virtualHosts.upsert.map((host) => host.hostname),
  ['shop.example.com'],
);
const selection = selectRoute(builder.table(), {
  listener: 'http',
  host: 'shop.example.com',
  path: '/cart/1',
  method: 'GET',
});
assert.equal(selection.found && selection.route.id, 'HTTPRoute/shop/cart/r0/m0@shop.example.com');
assert.equal(gatewayStatuses[0]!.status.listeners[0]!.attachedRoutes, 1);

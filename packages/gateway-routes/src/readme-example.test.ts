// The example of README.md, kept compiling and true.
import { createRouteTableBuilder, selectRoute } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { createGatewayApiTranslator, markGatewayProgrammed } from './index.js';

describe('README example', () => {
  it('translates a Gateway and an HTTPRoute into a table and statuses', () => {
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
        metadata: {
          namespace: 'shop',
          name: 'cart',
          generation: 3,
          creationTimestamp: '2026-01-01T00:00:00Z',
        },
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
    const delta = builder.commit(); // per-host changes for the data plane
    // Once the data plane serves the delta, the Gateway statuses say so:
    const gatewayStatuses = result.statuses.gateways.map((entry) => ({
      ...entry,
      status: markGatewayProgrammed(entry.status, { programmed: true }),
    }));

    expect(delta.virtualHosts.upsert.map((host) => host.hostname)).toEqual(['shop.example.com']);
    const selection = selectRoute(builder.table(), {
      listener: 'http',
      host: 'shop.example.com',
      path: '/cart/1',
      method: 'GET',
    });
    expect(selection.found && selection.route.id).toBe('HTTPRoute/shop/cart/r0/m0@shop.example.com');
    expect(gatewayStatuses[0]!.status.listeners[0]!.attachedRoutes).toBe(1);
    expect(
      result.statuses.httpRoutes[0]!.parents[0]!.conditions.map((condition) => condition.reason),
    ).toEqual(['Accepted', 'ResolvedRefs']);
  });
});

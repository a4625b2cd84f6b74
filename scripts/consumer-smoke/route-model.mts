// The README's example, verbatim apart from the assertions.
import assert from 'node:assert/strict';
import { createRouteTableBuilder, selectRoute } from '@ingresskit/route-model';

const origin = { kind: 'Demo', namespace: 'shop', name: 'api', createdAt: 0, index: [0] };
const builder = createRouteTableBuilder({ listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] });
builder.setContribution({
  source: { kind: 'Demo', namespace: 'shop', name: 'api' },
  hosts: [
    {
      hostname: 'shop.example.com',
      routes: [
        {
          id: 'api/cart',
          origin,
          match: { path: { type: 'PathPrefix', value: '/cart' } },
          action: { type: 'forward', backends: [{ backend: 'shop/cart:80', weight: 1 }] },
          policy: { timeouts: { readMs: 5000 } },
        },
      ],
    },
  ],
  tls: [],
});
builder.setBackend({ id: 'shop/cart:80', endpoints: [{ address: '10.0.0.7', port: 8080 }] });
const delta = builder.commit();
const answer = selectRoute(builder.table(), {
  listener: 'http',
  host: 'shop.example.com',
  path: '/cart/42',
  method: 'GET',
});
assert.ok(delta);
assert.equal(answer.found, true);
assert.equal(answer.found && answer.route.id, 'api/cart');

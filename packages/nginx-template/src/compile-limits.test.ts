import { describe, expect, it } from 'vitest';
import type { ClientLimits } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

const forward = forwardAction;

function compileLimits(clientLimits: ClientLimits) {
  return compileRoute(createTestRoute('r', { action: forward, policy: { clientLimits } }));
}

describe('compileRoute: clientLimits', () => {
  it('compiles rates to requests per second with their burst, connections and exempt networks', () => {
    const { entry, issues } = compileLimits({
      scope: 'Ingress/shop/cart',
      statusCode: 503,
      connections: 2,
      rates: [
        { rate: 120, per: 'minute', burst: 600 },
        { rate: 5, per: 'second', burst: 25 },
      ],
      exemptSources: ['10.0.0.0/8'],
    });
    expect(issues).toEqual([]);
    expect(entry.policy?.limits).toEqual({
      scope: 'Ingress/shop/cart',
      status: 503,
      conn: 2,
      rates: [
        [2, 600],
        [5, 25],
      ],
      exempt: [['0a000000', 8]],
    });
  });

  it('keeps the status of connection refusals only when it differs', () => {
    const limits = { scope: 's', statusCode: 429, connections: 1 };
    expect(compileLimits({ ...limits, connectionsStatusCode: 503 }).entry.policy?.limits).toEqual({
      scope: 's',
      status: 429,
      cstatus: 503,
      conn: 1,
    });
    expect(compileLimits({ ...limits, connectionsStatusCode: 429 }).entry.policy?.limits).toEqual({
      scope: 's',
      status: 429,
      conn: 1,
    });
  });

  it.each([
    [{ scope: 'a\nb', statusCode: 503, connections: 1 }, 'policy.clientLimits.scope'],
    [{ scope: 's', statusCode: 200, connections: 1 }, 'policy.clientLimits.statusCode'],
    [{ scope: 's', statusCode: 503, connections: 0 }, 'policy.clientLimits.connections'],
    [
      { scope: 's', statusCode: 429, connectionsStatusCode: 302, connections: 1 },
      'policy.clientLimits.connectionsStatusCode',
    ],
    [
      { scope: 's', statusCode: 503, rates: [{ rate: 1, per: 'hour', burst: 0 }] },
      'policy.clientLimits.rates[0].per',
    ],
    [
      { scope: 's', statusCode: 503, rates: [{ rate: 0.5, per: 'second', burst: 0 }] },
      'policy.clientLimits.rates[0].rate',
    ],
    [{ scope: 's', statusCode: 503 }, 'policy.clientLimits'],
  ])('answers 500 rather than serve unlimited when a limit cannot be read: %j', (limits, field) => {
    const { entry, issues } = compileLimits(limits as ClientLimits);
    expect(entry.action).toEqual({ type: 'respond', status: 500 });
    expect(issues).toEqual([expect.objectContaining({ severity: 'error', field })]);
  });

  it('exempts no one for an exempt network it cannot read', () => {
    const { entry, issues } = compileLimits({
      scope: 's',
      statusCode: 503,
      connections: 1,
      exemptSources: ['nope'],
    });
    expect(entry.policy?.limits?.exempt).toEqual([]);
    expect(issues).toEqual([expect.objectContaining({ field: 'policy.clientLimits.exemptSources[0]' })]);
  });
});

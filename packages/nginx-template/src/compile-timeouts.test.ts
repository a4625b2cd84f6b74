import { describe, expect, it } from 'vitest';
import type { RouteTimeouts } from '@ingresskit/route-model';
import { compileRoute } from './index.js';
import { createTestRoute, forwardAction } from './testing/routes.js';

describe('compileRoute: timeouts', () => {
  it("bounds every wait of nginx by the smaller of a route's request and backend request timeouts", () => {
    const timeoutsOf = (timeouts: RouteTimeouts) =>
      compileRoute(createTestRoute('r', { action: forwardAction, policy: { timeouts } })).entry.policy
        ?.timeouts;
    expect(timeoutsOf({ requestMs: 2_000, backendRequestMs: 500 })).toEqual([0.5, 0.5, 0.5]);
    expect(timeoutsOf({ connectMs: 100, readMs: 60_000, requestMs: 1_500 })).toEqual([0.1, 1.5, 1.5]);
    expect(timeoutsOf({ requestMs: 0, backendRequestMs: 0 })).toBeUndefined();
    expect(timeoutsOf({ readMs: 3_000, backendRequestMs: 0 })).toEqual([0, 0, 3]);
  });
});

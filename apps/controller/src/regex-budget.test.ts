import type { Route, VirtualHost } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { createRegexBudget } from './regex-budget.js';

function regexRoute(id: string, value: string, headers: Route['match']['headers'] = undefined): Route {
  return {
    id,
    match: { path: { type: 'RegularExpression', value }, ...(headers === undefined ? {} : { headers }) },
    action: { type: 'respond', statusCode: 200 },
    policy: {},
    origin: { kind: 'Ingress', namespace: 'mallory', name: id, createdAt: 0, index: [0] },
  };
}

function host(routes: Route[]): VirtualHost {
  return { hostname: 'evil.test', hostnameMatch: 'exact', routes };
}

describe('createRegexBudget', () => {
  it('lets a thousand regex paths without other conditions through: they share one match', () => {
    const routes = Array.from({ length: 1_000 }, (_, index) => regexRoute(`r${index}`, `^/(a+)+${index}`));
    expect(createRegexBudget(3)(host(routes))).toBeUndefined();
  });

  it('says how many matches a host over the budget would need, and how many it may', () => {
    const header = [{ name: 'x', type: 'RegularExpression' as const, value: '^(a+)+$' }];
    const routes = Array.from({ length: 4 }, (_, index) => regexRoute(`r${index}`, `^/${index}`, header));
    // Four groups (each ends at a route with a header condition) and four header regexes.
    expect(createRegexBudget(7)(host(routes))).toMatch(
      /^its regex paths and conditions would need up to 8 regex matches per request \(8 to choose a route, 0 for the chosen one\), more than the 7 /,
    );
    expect(createRegexBudget(8)(host(routes))).toBeUndefined();
  });
});

import type { Route, VirtualHost } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import { measureRegexWork } from './regex-work.js';
import { createTestRoute } from './testing/routes.js';

function host(routes: Route[]): VirtualHost {
  return { hostname: 'a.test', hostnameMatch: 'exact', routes };
}

function regexRoute(id: string, value: string, extra: Partial<Route> = {}): Route {
  return createTestRoute(id, { match: { path: { type: 'RegularExpression', value } }, ...extra });
}

describe('measureRegexWork', () => {
  it('counts one match for a thousand unconditioned regex paths that fit one group', () => {
    const routes = Array.from({ length: 1_000 }, (_, index) => regexRoute(`r${index}`, `^/${index}`));
    expect(measureRegexWork(host(routes))).toEqual({ routing: 1, chosen: 0 });
  });

  it('counts a group per regex path with conditions, and one per regex condition of any route', () => {
    const routes = [
      regexRoute('r1', '^/a', {
        match: {
          path: { type: 'RegularExpression', value: '^/a' },
          headers: [{ name: 'x', type: 'RegularExpression', value: '^1' }],
        },
      }),
      regexRoute('r2', '^/b'),
      createTestRoute('p1', {
        match: {
          path: { type: 'PathPrefix', value: '/' },
          headers: [
            { name: 'x', type: 'RegularExpression', value: '^2' },
            { name: 'y', type: 'Exact', value: '2' },
          ],
          queryParams: [{ name: 'q', type: 'RegularExpression', value: '^3' }],
        },
      }),
    ];
    // Groups [r1] and [r2]; three regex conditions.
    expect(measureRegexWork(host(routes)).routing).toBe(5);
  });

  it('ends a group after a route on some listeners or with a method', () => {
    const routes = [
      regexRoute('r1', '^/a', { listeners: ['http'] }),
      regexRoute('r2', '^/b', {
        match: { path: { type: 'RegularExpression', value: '^/b' }, method: 'GET' },
      }),
      regexRoute('r3', '^/c'),
    ];
    expect(measureRegexWork(host(routes)).routing).toBe(3);
  });

  it("counts the chosen route's rewrite, CORS origin, canary pattern and subject, the most of any route", () => {
    const base = createTestRoute('p1');
    const chosen: Route = {
      ...base,
      policy: {
        rewrite: { type: 'RegexReplace', pattern: '^/a', replacement: '/b' },
        cors: {
          allowOrigins: ['https://a.test'],
          allowMethods: 'GET',
          allowHeaders: '',
          exposeHeaders: '',
        },
      } as Route['policy'],
    };
    const wildcard: Route = {
      ...createTestRoute('p2'),
      policy: {
        cors: { allowOrigins: ['*'], allowMethods: 'GET', allowHeaders: '', exposeHeaders: '' },
      } as Route['policy'],
    };
    expect(measureRegexWork(host([chosen, wildcard]))).toEqual({ routing: 0, chosen: 2 });
  });
});

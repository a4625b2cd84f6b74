import { describe, expect, it } from 'vitest';
import { compareOrigins, compareRoutes, matchKey, normalizePrefix } from './precedence.js';
import { createForwardRoute, createOrigin } from './testing.js';
import type { Route } from './types.js';

function order(routes: Route[]): string[] {
  return [...routes].sort(compareRoutes).map((route) => route.id);
}

describe('normalizePrefix', () => {
  it('drops trailing slashes except for the root', () => {
    expect(normalizePrefix('/foo/')).toBe('/foo');
    expect(normalizePrefix('/foo//')).toBe('/foo');
    expect(normalizePrefix('/')).toBe('/');
    expect(normalizePrefix('//')).toBe('/');
  });
});

describe('compareRoutes', () => {
  it('puts Exact first, then regular expressions (longest first), then prefixes (longest first)', () => {
    const routes = [
      createForwardRoute('prefix-short', '/a', 'b'),
      createForwardRoute('regex-short', { type: 'RegularExpression', value: '^/a' }, 'b'),
      createForwardRoute('prefix-long', '/a/b/', 'b'),
      createForwardRoute('exact', { type: 'Exact', value: '/a' }, 'b'),
      createForwardRoute('regex-long', { type: 'RegularExpression', value: '^/a/b.*' }, 'b'),
    ];
    expect(order(routes)).toEqual(['exact', 'regex-long', 'regex-short', 'prefix-long', 'prefix-short']);
  });

  it('follows Gateway API for equal paths: a method, then more headers, then more query params', () => {
    const header = { name: 'x', type: 'Exact' as const, value: '1' };
    const query = { name: 'q', type: 'Exact' as const, value: '1' };
    const routes = [
      createForwardRoute('plain', '/a', 'b'),
      createForwardRoute('query', '/a', 'b', { match: { queryParams: [query, { ...query, name: 'r' }] } }),
      createForwardRoute('headers', '/a', 'b', { match: { headers: [header] } }),
      createForwardRoute('method', '/a', 'b', { match: { method: 'GET' } }),
    ];
    expect(order(routes)).toEqual(['method', 'headers', 'query', 'plain']);
  });

  it('ranks the longer prefix above a method condition, as Gateway API does', () => {
    const routes = [
      createForwardRoute('method', '/a', 'b', { match: { method: 'GET' } }),
      createForwardRoute('longer', '/a/b', 'b'),
    ];
    expect(order(routes)).toEqual(['longer', 'method']);
  });

  it('breaks ties by age, then namespace and name, then position, with unknown times last', () => {
    const at = (name: string, createdAt: number, index = [0], namespace = 'default') =>
      createForwardRoute(name, '/a', 'b', { origin: createOrigin(name, createdAt, index, { namespace }) });
    const routes = [
      at('unknown', Number.NaN),
      at('young', 2000),
      at('old-b', 1000),
      at('old-a', 1000, [1]),
      at('old-a-first', 1000, [0], 'aaa'),
    ];
    expect(order(routes)).toEqual(['old-a-first', 'old-a', 'old-b', 'young', 'unknown']);
  });
});

describe('compareOrigins', () => {
  it('orders positions inside one object element by element', () => {
    expect(compareOrigins(createOrigin('x', 0, [0, 2]), createOrigin('x', 0, [1, 0]))).toBeLessThan(0);
    expect(compareOrigins(createOrigin('x', 0, [1]), createOrigin('x', 0, [1, 0]))).toBeLessThan(0);
  });
});

describe('matchKey', () => {
  it('is equal for conditions that match the same requests', () => {
    const a = createForwardRoute('a', '/x/', 'b', {
      match: {
        headers: [
          { name: 'X-A', type: 'Exact', value: '1' },
          { name: 'x-b', type: 'Exact', value: '2' },
        ],
      },
    });
    const b = createForwardRoute('b', '/x', 'c', {
      match: {
        headers: [
          { name: 'x-b', type: 'Exact', value: '2' },
          { name: 'x-a', type: 'Exact', value: '1' },
        ],
      },
    });
    expect(matchKey(a)).toBe(matchKey(b));
  });

  it('differs between path kinds, case handling, methods and listeners', () => {
    const base = createForwardRoute('a', '/x', 'b');
    const variants: Route[] = [
      createForwardRoute('b', { type: 'Exact', value: '/x' }, 'b'),
      createForwardRoute('c', { type: 'RegularExpression', value: '/x' }, 'b'),
      createForwardRoute('d', '/x', 'b', { match: { method: 'GET' } }),
      { ...base, listeners: ['http'] },
      createForwardRoute('e', '/x', 'b', {
        match: { queryParams: [{ name: 'Q', type: 'Exact', value: '1' }] },
      }),
    ];
    const regex = createForwardRoute('f', { type: 'RegularExpression', value: '/x', ignoreCase: true }, 'b');
    const keys = new Set([base, ...variants, regex].map(matchKey));
    expect(keys.size).toBe(7);
  });
});

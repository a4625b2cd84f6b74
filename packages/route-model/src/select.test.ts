import { describe, expect, it } from 'vitest';
import {
  matchesPath,
  matchesRequest,
  modifyPath,
  rewritePath,
  selectRoute,
  type RouteRequest,
} from './select.js';
import { createForwardRoute } from './testing.js';
import type { Route, VirtualHost } from './types.js';

function request(overrides: Partial<RouteRequest> = {}): RouteRequest {
  return { listener: 'http', host: 'a.example.com', path: '/', method: 'GET', ...overrides };
}

function host(
  hostname: string,
  routes: Route[],
  fallbackRoute?: Route,
  hostnameMatch?: VirtualHost['hostnameMatch'],
): VirtualHost {
  const virtualHost: VirtualHost = {
    hostname,
    hostnameMatch:
      hostnameMatch ?? (hostname === '*' ? 'any' : hostname.startsWith('*.') ? 'one-label' : 'exact'),
    routes,
  };
  if (fallbackRoute !== undefined) virtualHost.fallbackRoute = fallbackRoute;
  return virtualHost;
}

function chosen(virtualHosts: VirtualHost[], overrides: Partial<RouteRequest>): string | undefined {
  const selection = selectRoute({ virtualHosts }, request(overrides));
  return selection.found ? selection.route.id : undefined;
}

describe('matchesPath', () => {
  it('matches PathPrefix element by element, ignoring a trailing slash of the prefix', () => {
    for (const prefix of ['/foo', '/foo/']) {
      const condition = { type: 'PathPrefix' as const, value: prefix };
      expect(['/foo', '/foo/', '/foo/bar'].map((path) => matchesPath(condition, path))).toEqual([
        true,
        true,
        true,
      ]);
      expect(['/foobar', '/fo', '/'].map((path) => matchesPath(condition, path))).toEqual([
        false,
        false,
        false,
      ]);
    }
    expect(matchesPath({ type: 'PathPrefix', value: '/' }, '/anything')).toBe(true);
  });

  it('matches Exact character for character', () => {
    expect(matchesPath({ type: 'Exact', value: '/foo' }, '/foo')).toBe(true);
    expect(matchesPath({ type: 'Exact', value: '/foo' }, '/foo/')).toBe(false);
  });

  it('searches a regular expression, case-insensitively on request, and never matches an invalid one', () => {
    expect(matchesPath({ type: 'RegularExpression', value: '^/a[0-9]+$' }, '/a12')).toBe(true);
    expect(matchesPath({ type: 'RegularExpression', value: '^/A' }, '/a')).toBe(false);
    expect(matchesPath({ type: 'RegularExpression', value: '^/A', ignoreCase: true }, '/a')).toBe(true);
    expect(matchesPath({ type: 'RegularExpression', value: '(' }, '/(')).toBe(false);
  });
});

describe('matchesRequest', () => {
  it('checks method, headers (any name case, repeated values folded) and the first query value', () => {
    const match = {
      path: { type: 'PathPrefix' as const, value: '/' },
      method: 'POST',
      headers: [{ name: 'X-Env', type: 'Exact' as const, value: 'a,b' }],
      queryParams: [{ name: 'v', type: 'RegularExpression' as const, value: '^[0-9]+$' }],
    };
    const ok = request({ method: 'POST', headers: { 'x-env': ['a', 'b'] }, query: { v: ['12', 'x'] } });
    expect(matchesRequest(match, ok)).toBe(true);
    expect(matchesRequest(match, { ...ok, method: 'GET' })).toBe(false);
    expect(matchesRequest(match, { ...ok, headers: { 'x-env': 'a' } })).toBe(false);
    expect(matchesRequest(match, { ...ok, query: { v: ['x', '12'] } })).toBe(false);
    expect(matchesRequest(match, { ...ok, query: { V: '12' } })).toBe(false);
  });
});

describe('selectRoute', () => {
  const exactHost = host('a.example.com', [createForwardRoute('exact-host', '/api', 'b')]);
  const wildcard = host(
    '*.example.com',
    [createForwardRoute('wildcard', '/', 'b')],
    createForwardRoute('wildcard-fallback', '/', 'b'),
  );
  const catchAll = host('*', [createForwardRoute('catch-all', '/', 'b')]);

  it('takes the first matching route of the most specific host', () => {
    expect(chosen([exactHost, wildcard, catchAll], { path: '/api/x' })).toBe('exact-host');
  });

  it('passes a request on to less specific hosts when a host has no fallback', () => {
    expect(chosen([exactHost, wildcard, catchAll], { path: '/other' })).toBe('wildcard');
    expect(chosen([exactHost, catchAll], { path: '/other' })).toBe('catch-all');
  });

  it('stops at a host with a fallback route', () => {
    const withFallback = { ...exactHost, fallbackRoute: createForwardRoute('host-fallback', '/', 'b') };
    expect(chosen([withFallback, wildcard, catchAll], { path: '/other' })).toBe('host-fallback');
  });

  it('passes hosts several labels deep by a one-label wildcard, while a suffix wildcard covers them', () => {
    expect(chosen([wildcard, catchAll], { host: 'x.y.example.com' })).toBe('catch-all');
    expect(chosen([{ ...wildcard, hostnameMatch: 'suffix' }, catchAll], { host: 'x.y.example.com' })).toBe(
      'wildcard',
    );
    const suffix = host('*.example.com', [createForwardRoute('suffix', '/', 'b')], undefined, 'suffix');
    expect(chosen([suffix], { host: 'example.com' })).toBe(undefined);
  });

  it('skips routes of other listeners and answers nothing (404) when no host covers the request', () => {
    const httpsOnly = host('a.example.com', [
      { ...createForwardRoute('tls-only', '/', 'b'), listeners: ['https'] },
    ]);
    expect(chosen([httpsOnly], { listener: 'http' })).toBe(undefined);
    expect(chosen([httpsOnly], { listener: 'https' })).toBe('tls-only');
    expect(chosen([exactHost], { host: 'unknown.test' })).toBe(undefined);
  });
});

describe('modifyPath', () => {
  it('replaces the matched prefix as the Gateway API conformance cases expect', () => {
    const to = (value: string) => ({ type: 'ReplacePrefixMatch' as const, value });
    expect(modifyPath(to('/one'), '/prefix/one/two', '/prefix/one')).toBe('/one/two');
    expect(modifyPath(to('/'), '/strip-prefix/three', '/strip-prefix')).toBe('/three');
    expect(modifyPath(to('/'), '/strip-prefix', '/strip-prefix')).toBe('/');
    expect(modifyPath(to('/bar/'), '/foo/', '/foo')).toBe('/bar/');
    expect(modifyPath(to('/bar'), '/foo', '/foo/')).toBe('/bar');
    expect(modifyPath(to('/x'), '/anything', '/')).toBe('/x/anything');
  });

  it('replaces the whole path', () => {
    expect(modifyPath({ type: 'ReplaceFullPath', value: '/full' }, '/a/b', '/a')).toBe('/full');
  });
});

describe('rewritePath', () => {
  it('replaces the whole path with the expanded replacement when the pattern matches, as nginx does', () => {
    const rewrite = {
      type: 'RegexReplace' as const,
      pattern: '^/v[0-9]+/(users|teams)/([^/]+)',
      replacement: '/$2',
    };
    expect(rewritePath(rewrite, '/v1/users/bob/x')).toBe('/bob');
    expect(rewritePath({ ...rewrite, replacement: '/$1/$3' }, '/v2/teams/a')).toBe('/teams/');
    expect(rewritePath(rewrite, '/other')).toBe('/other');
  });

  it('honours ignoreCase and applies path modifiers through modifyPath', () => {
    const rewrite = {
      type: 'RegexReplace' as const,
      pattern: '^/api(/|$)(.*)',
      replacement: '/$2',
      ignoreCase: true,
    };
    expect(rewritePath(rewrite, '/API/items')).toBe('/items');
    expect(rewritePath({ type: 'ReplacePrefixMatch', value: '/v2' }, '/api/x', '/api')).toBe('/v2/x');
  });
});

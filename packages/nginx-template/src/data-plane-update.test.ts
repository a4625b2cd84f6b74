import { describe, expect, it } from 'vitest';
import { diffRouteTables, type RouteTable, type RouteAction } from '@ingresskit/route-model';
import {
  compileRoute,
  compileVirtualHost,
  createDataPlaneUpdate,
  sharedPolicyIdsOf,
  type DataPlaneUpdate,
  type HostEntry,
  type PolicyEntry,
} from './index.js';
import { createTestHost, createTestOrigin, createTestRoute, createTestTable } from './testing/routes.js';

function parse(body: string): DataPlaneUpdate {
  return JSON.parse(body) as DataPlaneUpdate;
}

const forward = (backend: string): RouteAction => ({ type: 'forward', backends: [{ backend, weight: 1 }] });

function createTable(): RouteTable {
  return createTestTable({
    virtualHosts: [
      createTestHost('b.example.com', [createTestRoute('b-root', { action: forward('app') })]),
      createTestHost('a.example.com', [createTestRoute('a-root')]),
    ],
    tls: [{ hostname: 'a.example.com', certificate: 'c1', origin: createTestOrigin() }],
    certificates: [{ id: 'c1', certificatePem: 'CERT', privateKeyPem: 'KEY' }],
    backends: [
      {
        id: 'app',
        endpoints: [
          { address: '10.0.0.1', port: 8080 },
          { address: 'fd00::1', port: 80 },
          { address: 'not-an-ip', port: 80 },
        ],
      },
      { id: 'ext', endpoints: [], externalName: { hostname: 'api.example.org', port: 443 } },
    ],
  });
}

describe('createDataPlaneUpdate', () => {
  it('turns a whole table into a full push of every entry, keys sorted', () => {
    const update = parse(createDataPlaneUpdate(createTable()));
    expect(update.full).toBe(true);
    expect(update.delete).toEqual([]);
    expect(Object.keys(update.set)).toEqual([
      'backend:app',
      'backend:ext',
      'cert:c1',
      'host:a.example.com',
      'host:b.example.com',
      'listeners',
      'tls:a.example.com',
    ]);
    expect(update.set.listeners).toEqual({
      listeners: [
        { name: 'http', port: 80, protocol: 'HTTP' },
        { name: 'https', port: 443, protocol: 'HTTPS' },
      ],
    });
    expect(update.set['backend:app']).toEqual({
      endpoints: [
        ['10.0.0.1', 8080],
        ['fd00::1', 80],
      ],
    });
    expect(update.set['backend:ext']).toEqual({ endpoints: [], external: 'api.example.org:443' });
    expect(update.set['cert:c1']).toEqual({ cert: 'CERT', key: 'KEY' });
    expect(update.set['tls:a.example.com']).toEqual({ cert: 'c1' });
  });

  it('pins an ExternalName to the addresses its name resolved to, when the backend has them', () => {
    const table = createTable();
    const pinned = {
      id: 'ext',
      endpoints: [{ address: '203.0.113.9', port: 443 }],
      externalName: { hostname: 'api.example.org', port: 443 },
    };
    const update = parse(createDataPlaneUpdate({ ...table, backends: [pinned] }));
    expect(update.set['backend:ext']).toEqual({
      endpoints: [],
      external: 'api.example.org:443',
      pinned: [['203.0.113.9', 443]],
    });
  });

  it('gives an ExternalName named unix no target, which nginx would read as a unix socket', () => {
    const table = createTable();
    const unix = { id: 'ext', endpoints: [], externalName: { hostname: 'UNIX', port: 443 } };
    expect(parse(createDataPlaneUpdate({ ...table, backends: [unix] })).set['backend:ext']).toEqual({
      endpoints: [],
    });
  });

  it('upserts without deleting when full is false', () => {
    expect(parse(createDataPlaneUpdate(createTable(), { full: false })).full).toBeUndefined();
  });

  it('turns a delta into upserts and namespaced deletes, listeners only when they changed', () => {
    const before = createTable();
    const after: RouteTable = {
      ...before,
      virtualHosts: [before.virtualHosts[0]!, createTestHost('c.example.com', [createTestRoute('c-root')])],
      tls: [],
      certificates: [],
      backends: before.backends.slice(0, 1),
    };
    const update = parse(createDataPlaneUpdate(diffRouteTables(before, after)));
    expect(update.full).toBeUndefined();
    expect(Object.keys(update.set)).toEqual(['host:c.example.com']);
    expect(update.delete).toEqual(['backend:ext', 'cert:c1', 'host:a.example.com', 'tls:a.example.com']);
    const listenersChanged = parse(
      createDataPlaneUpdate(diffRouteTables(before, { ...before, listeners: [] })),
    );
    expect(listenersChanged.set).toEqual({ listeners: { listeners: [] } });
  });

  it('gives byte-identical bodies for equal tables', () => {
    expect(createDataPlaneUpdate(createTable())).toBe(createDataPlaneUpdate(createTable()));
  });

  it('leaves out excluded routes and keys', () => {
    const update = parse(
      createDataPlaneUpdate(createTable(), { excludeRoutes: ['b-root'], excludeKeys: ['cert:c1'] }),
    );
    expect((update.set['host:b.example.com'] as HostEntry).routes).toEqual([]);
    expect(update.set['cert:c1']).toBeUndefined();
  });

  it('replaces lone surrogates, which cjson cannot decode, and keeps escaped backslashes', () => {
    const table = createTestTable({
      virtualHosts: [
        createTestHost('a.example.com', [
          createTestRoute('bad\ud800id', {
            action: { type: 'respond', statusCode: 200, body: '\\ud800 😀' },
          }),
        ]),
      ],
    });
    const body = createDataPlaneUpdate(table);
    expect(body).not.toMatch(/(?<!\\)\\ud8/);
    const host = parse(body).set['host:a.example.com'] as HostEntry;
    expect(host.routes[0]!.id).toBe('bad\ufffdid');
    expect(host.routes[0]!.action).toEqual({ type: 'respond', status: 200, body: '\\ud800 😀' });
  });
});

describe('compileVirtualHost', () => {
  it('indexes routes by exact path, by normalised prefix and in regex order, 1-based', () => {
    const host = compileVirtualHost(
      createTestHost(
        'a.example.com',
        [
          createTestRoute('e1', { match: { path: { type: 'Exact', value: '/x' }, method: 'GET' } }),
          createTestRoute('e2', { match: { path: { type: 'Exact', value: '/x' } } }),
          createTestRoute('r1', {
            match: { path: { type: 'RegularExpression', value: '^/y', ignoreCase: true } },
          }),
          createTestRoute('p1', { match: { path: { type: 'PathPrefix', value: '/a/' } } }),
          createTestRoute('p2', { match: { path: { type: 'PathPrefix', value: '/a' } } }),
          createTestRoute('p3', { match: { path: { type: 'PathPrefix', value: '/' } } }),
          createTestRoute('p4', { match: { path: { type: 'PathPrefix', value: '__proto__' } } }),
        ],
        createTestRoute('fallback'),
      ),
    );
    expect(host.exact).toEqual({ '/x': [1, 2] });
    expect(Object.entries(host.prefix)).toEqual([
      ['/a', [4, 5]],
      ['/', [6]],
      ['__proto__', [7]],
    ]);
    expect(Object.getPrototypeOf(host.prefix)).toBe(Object.prototype);
    expect(host.regex).toEqual([{ pattern: '^(?:(?i:^/y)())', routes: [3], markers: [1] }]);
    expect(host.routes[2]).toMatchObject({ kind: 'regex', path: '^/y', ignoreCase: true });
    expect(host.fallback?.id).toBe('fallback');
    expect(host.match).toBe('exact');
  });
});

describe('sharing route policies', () => {
  const allowSources = Array.from({ length: 256 }, (_, index) => `10.${index}.0.0/16`);
  const cors = {
    allowOrigins: ['https://a.example.com'],
    allowMethods: 'GET',
    allowHeaders: 'X-A',
    exposeHeaders: '',
    allowCredentials: false,
    maxAgeSeconds: 5,
  };
  const policy = { allowSources, cors };

  it('pushes a policy once for every route and host that has it, each route naming it', () => {
    const routes = (host: string) =>
      Array.from({ length: 100 }, (_, index) =>
        createTestRoute(`${host}-${index}`, {
          match: { path: { type: 'PathPrefix', value: `/p${index}` } },
          policy,
        }),
      );
    const update = parse(
      createDataPlaneUpdate(
        createTestTable({
          virtualHosts: [
            createTestHost('a.example.com', routes('a')),
            createTestHost('b.example.com', routes('b')),
          ],
        }),
      ),
    );
    const policyKeys = Object.keys(update.set).filter((key) => key.startsWith('policy:'));
    expect(policyKeys).toHaveLength(1);
    const id = policyKeys[0]!.slice('policy:'.length);
    const shared = update.set[policyKeys[0]!] as PolicyEntry;
    expect(shared.allow).toHaveLength(256);
    for (const key of ['host:a.example.com', 'host:b.example.com']) {
      const host = update.set[key] as HostEntry;
      expect(host.routes.every((route) => route.sharedPolicy === id && route.policy === undefined)).toBe(
        true,
      );
      expect(sharedPolicyIdsOf(host)).toEqual(new Set([id]));
    }
    // One copy of the list, not two hundred.
    expect(JSON.stringify(update).split('"0a000000"').length - 1).toBeLessThan(2);
  });

  it('keeps on each route what depends on its path, and gives equal policies the same id', () => {
    const rewritten = (index: number) =>
      createTestRoute(`rw-${index}`, {
        match: { path: { type: 'PathPrefix', value: `/p${index}` } },
        policy: { ...policy, rewrite: { type: 'ReplacePrefixMatch', value: '/' } },
      });
    const host = compileVirtualHost(createTestHost('a.example.com', [rewritten(1), rewritten(22)]));
    expect(host.routes.map((route) => route.policy?.rewrite)).toEqual([
      { type: 'prefix', strip: 3, value: '' },
      { type: 'prefix', strip: 4, value: '' },
    ]);
    expect(host.routes[0]!.sharedPolicy).toBeDefined();
    expect(host.routes[1]!.sharedPolicy).toBe(host.routes[0]!.sharedPolicy);
    const again = compileVirtualHost(
      createTestHost('b.example.com', [
        createTestRoute('x', { policy: { ...policy, allowSources: [...allowSources] } }),
      ]),
    );
    expect(again.routes[0]!.sharedPolicy).toBe(host.routes[0]!.sharedPolicy);
  });

  it('still reports what compiling a shared value found, for every route that has it', () => {
    const shared = { allowSources: ['10.0.0.0/8', 'not a network'] };
    const issues = [1, 2].map(
      (index) => compileRoute(createTestRoute(`r${index}`, { policy: shared })).issues,
    );
    expect(issues[0]).toEqual(issues[1]);
    expect(issues[0]).toEqual([expect.objectContaining({ field: 'policy.allowSources[1]' })]);
  });
});

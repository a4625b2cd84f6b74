/**
 * Differential test: random route tables and random requests. Every route answers with its own
 * id, so the body names the route the Lua router chose; it must be the one route-model's
 * reference router, selectRoute, chooses for the same request (or 404 for none). Tables go in
 * as full pushes and as deltas between tables, so both ways workers apply data are covered.
 * Deterministic: seeded generators.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareRoutes,
  diffRouteTables,
  selectRoute,
  type HostnameMatch,
  type PathMatch,
  type Route,
  type RouteMatch,
  type RouteTable,
  type VirtualHost,
} from '@ingresskit/route-model';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import { createRandom } from './testing/random.js';

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)]!;
}

const HOSTNAMES = [
  'a.example.com',
  'b.example.com',
  'x.a.example.com',
  '*.example.com',
  '*.a.example.com',
  '*',
];
const REQUEST_HOSTS = [
  ...HOSTNAMES.filter((name) => !name.includes('*')),
  'c.example.com',
  'y.x.a.example.com',
  'example.com',
  'q.b.example.com',
  'other.org',
];
const EXACT_PATHS = ['/', '/a', '/a/', '/a/b', '/ab', '/b'];
const PREFIXES = ['/', '/a', '/a/', '/a/b', '/ab', '/b', '/a/b/c'];
const REGEXES = ['^/a', '/b$', '^/a/[0-9]+', 'b', '^/$', '^/A/', '[0-9]{2}'];
const REQUEST_PATHS = [
  '/',
  '/a',
  '/a/',
  '/a/b',
  '/a/b/c',
  '/a/bc',
  '/ab',
  '/A/b',
  '/b',
  '/x/1',
  '/a/12',
  '/a/b/c/d',
];
const HEADER_VALUES = ['one', 'two', 'one,two', 'ONE'];
const QUERY_VALUES = ['1', '2', '12', ''];

function createMatch(random: () => number): RouteMatch {
  const kind = random();
  let path: PathMatch;
  if (kind < 0.25) path = { type: 'Exact', value: pick(random, EXACT_PATHS) };
  else if (kind < 0.45) {
    path = { type: 'RegularExpression', value: pick(random, REGEXES) };
    if (random() < 0.3) path.ignoreCase = true;
  } else path = { type: 'PathPrefix', value: pick(random, PREFIXES) };
  const match: RouteMatch = { path };
  if (random() < 0.2) match.method = pick(random, ['GET', 'POST']);
  if (random() < 0.25) {
    match.headers = [
      {
        name: pick(random, ['X-Tier', 'x-tier']),
        type: random() < 0.5 ? 'Exact' : 'RegularExpression',
        value: pick(random, ['one', '^one', 'two$', 'one,two']),
      },
    ];
  }
  if (random() < 0.25) {
    match.queryParams = [
      {
        name: 'q',
        type: random() < 0.5 ? 'Exact' : 'RegularExpression',
        value: pick(random, ['1', '^1', '2$', '']),
      },
    ];
  }
  return match;
}

function createTable(seed: number, ports: { http: number; https: number }): RouteTable {
  const random = createRandom(seed);
  const virtualHosts: VirtualHost[] = [];
  for (const hostname of HOSTNAMES) {
    if (random() < 0.2) continue;
    const routes: Route[] = [];
    const count = Math.floor(random() * 7);
    for (let index = 0; index < count; index++) {
      const id = `s${seed}-${hostname}-${index}`;
      const route = createTestRoute(id, {
        match: createMatch(random),
        action: { type: 'respond', statusCode: 200, body: id },
      });
      if (random() < 0.15) route.listeners = pick(random, [['http'], ['https'], ['http', 'https'], ['nope']]);
      routes.push(route);
    }
    // Tables arrive in precedence order; some hosts keep a random order, which must still agree.
    if (random() < 0.8) routes.sort(compareRoutes);
    const hostnameMatch: HostnameMatch =
      hostname === '*'
        ? 'any'
        : hostname.startsWith('*.')
          ? random() < 0.5
            ? 'one-label'
            : 'suffix'
          : 'exact';
    const virtualHost: VirtualHost = { hostname, hostnameMatch, routes };
    if (random() < 0.4) {
      const id = `s${seed}-${hostname}-fallback`;
      virtualHost.fallbackRoute = createTestRoute(id, {
        action: { type: 'respond', statusCode: 200, body: id },
      });
      if (random() < 0.2) virtualHost.fallbackRoute.listeners = ['https'];
    }
    virtualHosts.push(virtualHost);
  }
  return { listeners: createListeners(ports), virtualHosts, tls: [], certificates: [], backends: [] };
}

interface RandomRequest {
  listener: 'http' | 'https';
  host: string;
  path: string;
  method: string;
  headers: Record<string, string | string[]>;
  query: Record<string, string | string[]>;
}

function createRequest(random: () => number): RandomRequest {
  const headers: Record<string, string | string[]> = {};
  if (random() < 0.5)
    headers['x-tier'] =
      random() < 0.3
        ? [pick(random, HEADER_VALUES), pick(random, HEADER_VALUES)]
        : pick(random, HEADER_VALUES);
  const query: Record<string, string | string[]> = {};
  if (random() < 0.5)
    query.q =
      random() < 0.3 ? [pick(random, QUERY_VALUES), pick(random, QUERY_VALUES)] : pick(random, QUERY_VALUES);
  return {
    listener: random() < 0.7 ? 'http' : 'https',
    host: pick(random, REQUEST_HOSTS),
    path: pick(random, REQUEST_PATHS),
    method: random() < 0.7 ? 'GET' : 'POST',
    headers,
    query,
  };
}

function queryString(query: Record<string, string | string[]>): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value])
      parts.push(`${name}=${encodeURIComponent(item)}`);
  }
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

let plane: DataPlane;
let ports: { http: number; https: number };
const agents = {
  http: new HttpAgent({ keepAlive: true, maxSockets: 8 }),
  https: new HttpsAgent({ keepAlive: true, maxSockets: 8 }),
};

beforeAll(async () => {
  ports = await allocateListenerPorts();
  plane = await startDataPlane({ table: createTable(1, ports), ports });
});

afterAll(async () => {
  agents.http.destroy();
  agents.https.destroy();
  await plane?.stop();
});

describe('the Lua router against selectRoute', () => {
  let previous: RouteTable | undefined;

  it.each([1, 2, 3, 4, 5, 6])(
    'chooses the route selectRoute chooses for 250 random requests (seed %i)',
    async (seed) => {
      const table = createTable(seed, ports);
      // Odd seeds push the whole table, even ones the delta from the previous table.
      const pushed =
        seed % 2 === 1 || previous === undefined
          ? await plane.push(table)
          : await plane.push(diffRouteTables(previous, table));
      expect(pushed.status, JSON.stringify(pushed.json)).toBe(201);
      previous = table;
      const random = createRandom(seed * 7919);
      const mismatches: string[] = [];
      const outcomes = new Set<string>();
      const requests = Array.from({ length: 250 }, () => createRequest(random));
      const answers = await Promise.all(
        requests.map((request) =>
          plane.request({
            host: request.host,
            path: `${request.path}${queryString(request.query)}`,
            method: request.method,
            headers: request.headers,
            tls: request.listener === 'https',
            agent: request.listener === 'https' ? agents.https : agents.http,
          }),
        ),
      );
      requests.forEach((request, index) => {
        const selection = selectRoute(table, request);
        const expected = selection.found ? `200 ${selection.route.id}` : '404';
        const response = answers[index]!;
        const actual = response.status === 200 ? `200 ${response.body}` : String(response.status);
        outcomes.add(actual);
        if (actual !== expected)
          mismatches.push(`${JSON.stringify(request)}: nginx ${actual}, selectRoute ${expected}`);
        if (response.status === 200) expect(response.headers['x-ingresskit-route']).toBe(response.body);
      });
      expect(mismatches).toEqual([]);
      // The random requests must exercise the router: many routes, fallbacks and misses.
      expect(outcomes.size).toBeGreaterThan(4);
    },
  );
});

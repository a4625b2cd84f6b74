/**
 * The regex paths of a host matched together (regex-groups.ts) in nginx's own PCRE: every group
 * compiles, the route found is the reference router's, a whole group shares one match limit,
 * and a request runs at most regexMatchesPerRequest regex matches.
 */
import { selectRoute, type Route, type RouteTable } from '@ingresskit/route-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateRegexBytes, groupRegexPaths } from './regex-groups.js';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
  type DataPlane,
} from './testing/data-plane.js';
import { createRandom } from './testing/random.js';

function tableOf(ports: { http: number; https: number }, routes: Route[]): RouteTable {
  return {
    listeners: createListeners(ports),
    virtualHosts: [{ hostname: 'tenant.test', hostnameMatch: 'exact', routes }],
    tls: [],
    certificates: [],
    backends: [],
  };
}

function regexRoute(id: string, value: string, extra: Partial<Route> = {}): Route {
  return createTestRoute(id, {
    match: { path: { type: 'RegularExpression', value } },
    action: { type: 'respond', statusCode: 200, body: id },
    ...extra,
  });
}

/** A random pattern of route-model's portable subset: classes, escapes, groups, alternations, repeats. */
function createPattern(random: () => number, depth = 0): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const parts: string[] = [];
  const length = 1 + Math.floor(random() * 5);
  for (let index = 0; index < length; index++) {
    const kind = random();
    let atom: string;
    if (kind < 0.3) atom = pick(['a', 'b', '/', '-', 'x', '\\.', '\\/']);
    else if (kind < 0.5) atom = pick(['[a-z]', '[^/]', '[0-9A-F]', '[\\d.]', '\\d', '\\w', '\\S', '.']);
    else if (kind < 0.75 && depth < 3) {
      const inner = [createPattern(random, depth + 1)];
      if (random() < 0.4) inner.push(createPattern(random, depth + 1));
      atom = `(${random() < 0.5 ? '?:' : ''}${inner.join('|')})`;
    } else atom = pick(['b', 'c', '[xyz]']);
    if (random() < 0.4) atom += pick(['*', '+', '?', '{3}', '{2,7}', '{4,}', '{1,40}', '*?']);
    parts.push(atom);
  }
  return `${random() < 0.7 ? '^/' : ''}${parts.join('')}`;
}

let plane: DataPlane;
let ports: { http: number; https: number };

beforeAll(async () => {
  ports = await allocateListenerPorts();
  plane = await startDataPlane({ table: tableOf(ports, []), ports, workers: 1 });
});

afterAll(async () => {
  await plane?.stop();
});

async function bodyOf(path: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await plane.request({ host: 'tenant.test', path, headers });
  return response.status === 200 ? response.body : String(response.status);
}

describe('regex groups in nginx', () => {
  it("compile in nginx's PCRE even when the estimate fills them to PCRE's own limit", async () => {
    const random = createRandom(7);
    const patterns: string[] = [];
    while (patterns.length < 4_000) {
      const pattern = createPattern(random);
      if (estimateRegexBytes(pattern) <= 4_000) patterns.push(pattern);
    }
    const paths = patterns.map((pattern, index) => ({
      index: index + 1,
      pattern,
      ignoreCase: index % 3 === 0,
      conditioned: false,
    }));
    // PCRE 8 refuses a pattern that compiles to more than 64 KiB: an estimate below the real size
    // would make one of these fail.
    const groups = groupRegexPaths(paths, 65_000);
    expect(groups.length).toBeGreaterThan(10);
    const table = tableOf(
      ports,
      patterns.map((pattern, index) => regexRoute(`r${index}`, pattern)),
    );
    // The push compiles every route's own pattern; compile each group the same way through a
    // host of one route per group's pattern, which must be refused by nothing.
    expect((await plane.push(table)).status).toBe(201);
    const groupTable = tableOf(
      ports,
      groups.map((group, index) => regexRoute(`g${index}`, group.pattern)),
    );
    expect((await plane.push(groupTable)).status).toBe(201);
  });

  it('route as the reference router does on a host with thousands of regex routes', async () => {
    const routes: Route[] = [];
    for (let index = 0; index < 3_000; index++) {
      const kind = index % 3;
      const pattern = kind === 0 ? `^/r${index}(/|$)` : kind === 1 ? `x${index}$` : `^/[a-z]+/${index}`;
      routes.push(
        regexRoute(`r${index}`, pattern, {
          match: { path: { type: 'RegularExpression', value: pattern, ignoreCase: index % 2 === 0 } },
        }),
      );
    }
    const table = tableOf(ports, routes);
    expect((await plane.push(table)).status).toBe(201);
    const random = createRandom(11);
    for (let sample = 0; sample < 150; sample++) {
      const index = Math.floor(random() * 3_300);
      const path = pickRequestPath(random, index);
      const expected = selectRoute(table, { listener: 'http', host: 'tenant.test', path, method: 'GET' });
      expect(await bodyOf(path), path).toBe(expected.found ? expected.route.id : '404');
    }
  });

  it('share one match limit per group: a route that backtracks without end stops the rest of its group', async () => {
    // Alone, `^/a+c$` matches `/aaa…ac` at once; joined after a pattern that backtracks
    // exponentially on it, the group's one limit is spent before its alternative is tried.
    const hostile = regexRoute('hostile', '^/(a+)+b');
    const innocent = regexRoute('innocent', '^/a+c$');
    const path = `/${'a'.repeat(24)}c`;
    expect((await plane.push(tableOf(ports, [innocent]))).status).toBe(201);
    expect(await bodyOf(path)).toBe('innocent');
    expect((await plane.push(tableOf(ports, [hostile, innocent]))).status).toBe(201);
    expect(await bodyOf(path)).toBe('404');
    expect(await bodyOf('/aac')).toBe('innocent');
  });
});

function pickRequestPath(random: () => number, index: number): string {
  switch (Math.floor(random() * 5)) {
    case 0:
      return `/r${index}`;
    case 1:
      return `/R${index}/more`;
    case 2:
      return `/some/path/x${index}`;
    case 3:
      return `/Abc/${index}`;
    default:
      return `/nothing/${index}y`;
  }
}

describe('regexMatchesPerRequest', () => {
  async function answer(limit: number): Promise<string> {
    const conditioned = Array.from({ length: 20 }, (_, index) =>
      createTestRoute(`h${index}`, {
        match: {
          path: { type: 'PathPrefix', value: '/' },
          headers: [{ name: 'X-Tier', type: 'RegularExpression', value: `^t${index}$` }],
        },
        action: { type: 'respond', statusCode: 200, body: `h${index}` },
      }),
    );
    const local = await allocateListenerPorts();
    const table = tableOf(local, conditioned);
    const bounded = await startDataPlane({
      table,
      ports: local,
      workers: 1,
      render: { regexMatchesPerRequest: limit },
    });
    try {
      expect((await bounded.push(table)).status).toBe(201);
      const response = await bounded.request({
        host: 'tenant.test',
        path: '/',
        headers: { 'X-Tier': 't19' },
      });
      return response.status === 200 ? response.body : String(response.status);
    } finally {
      await bounded.stop();
    }
  }

  it('stops regex conditions once a request has run that many', async () => {
    expect(await answer(19)).toBe('404');
    expect(await answer(20)).toBe('h19');
  });
});

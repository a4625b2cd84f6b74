/**
 * A tenant who owns a regex route can also send the request paths it is matched against: with
 * `^/(a+)+c` and `/aaaa…` PCRE backtracks exponentially, and under PCRE's own limit (ten million
 * steps) each such request holds the worker, and every other tenant it serves, for tens of
 * milliseconds. The rendered `lua_regex_match_limit` (regexMatchLimit, 100,000 steps by default)
 * bounds every match; one that needs more does not match. Shown here without timing anything: a
 * request whose match needs about a million steps matches under PCRE's limit and not under ours.
 */
import type { RouteTable } from '@ingresskit/route-model';
import { describe, expect, it } from 'vitest';
import {
  allocateListenerPorts,
  createListeners,
  createTestRoute,
  startDataPlane,
} from './testing/data-plane.js';

async function answers(regexMatchLimit: number | undefined, paths: string[]): Promise<number[]> {
  const ports = await allocateListenerPorts();
  const table: RouteTable = {
    listeners: createListeners(ports),
    virtualHosts: [
      {
        hostname: 'tenant.test',
        hostnameMatch: 'exact',
        // The first alternative backtracks exponentially before the second one matches.
        routes: [
          createTestRoute('r', { match: { path: { type: 'RegularExpression', value: '^/(a+)+c|^/.*b$' } } }),
        ],
      },
    ],
    tls: [],
    certificates: [],
    backends: [],
  };
  const plane = await startDataPlane({
    table,
    ports,
    workers: 1,
    ...(regexMatchLimit === undefined ? {} : { render: { regexMatchLimit } }),
  });
  try {
    expect((await plane.push(table)).status).toBe(201);
    const statuses: number[] = [];
    for (const path of paths) statuses.push((await plane.request({ host: 'tenant.test', path })).status);
    return statuses;
  } finally {
    await plane.stop();
  }
}

describe('lua_regex_match_limit', () => {
  const cheap = `/${'a'.repeat(8)}b`;
  const costly = `/${'a'.repeat(20)}b`;

  it('bounds every regex match: one that needs about a million steps does not match by default', async () => {
    expect(await answers(undefined, [cheap, costly])).toEqual([200, 404]);
  });

  it("matches the same request under PCRE's own limit", async () => {
    expect(await answers(10_000_000, [cheap, costly])).toEqual([200, 200]);
  });
});

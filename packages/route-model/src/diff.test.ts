import { describe, expect, it } from 'vitest';
import { applyRouteTableDelta, diffRouteTables, isEmptyDelta } from './diff.js';
import { createForwardRoute } from './testing.js';
import type { RouteTable } from './types.js';

const table: RouteTable = {
  listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }],
  virtualHosts: [
    { hostname: 'a.test', hostnameMatch: 'exact', routes: [createForwardRoute('a', '/', 'ns/a:80')] },
    { hostname: 'b.test', hostnameMatch: 'exact', routes: [createForwardRoute('b', '/', 'ns/b:80')] },
  ],
  tls: [],
  certificates: [],
  backends: [{ id: 'ns/a:80', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
};

describe('diffRouteTables', () => {
  it('upserts what is new or different and removes what is gone, per key', () => {
    const next: RouteTable = {
      ...table,
      virtualHosts: [
        { ...table.virtualHosts[0]!, routes: [createForwardRoute('a', '/v2', 'ns/a:80')] },
        { hostname: 'c.test', hostnameMatch: 'exact', routes: [] },
      ],
    };
    const delta = diffRouteTables(table, next);
    expect(delta.virtualHosts.upsert.map((host) => host.hostname)).toEqual(['a.test', 'c.test']);
    expect(delta.virtualHosts.remove).toEqual(['b.test']);
    expect(delta.backends).toEqual({ upsert: [], remove: [] });
    expect(delta.listeners).toBeUndefined();
    expect(applyRouteTableDelta(table, delta)).toEqual(next);
  });

  it('is empty between equal tables, however their objects were built', () => {
    const copy = JSON.parse(JSON.stringify(table)) as RouteTable;
    expect(isEmptyDelta(diffRouteTables(table, copy))).toBe(true);
  });

  it('carries the listeners only when they change, and everything from an empty table', () => {
    const moved = { ...table, listeners: [{ name: 'http', port: 8080, protocol: 'HTTP' as const }] };
    expect(diffRouteTables(table, moved).listeners).toEqual(moved.listeners);
    const fromScratch = diffRouteTables(undefined, table);
    expect(fromScratch.virtualHosts.upsert).toHaveLength(2);
    expect(fromScratch.listeners).toEqual(table.listeners);
  });
});

/**
 * ingress-nginx's load-balance and upstream-hash-by-subset end to end (local API server, the
 * controller, nginx, real HTTP): ewma prefers the endpoint that answers faster, round_robin takes
 * turns; a hash key with subsets stays within its subset of endpoints and spreads over it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe } from '../src/http-probe.js';
import {
  endpointSliceManifest,
  eventually,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

const A = 'nginx.ingress.kubernetes.io/';

let server: LocalApiServer;
let controller: Controller;
let backends: Map<string, DemoBackend>;
const timed: Server[] = [];

/** A backend answering its name after `delayMs`. */
async function startTimedBackend(name: string, delayMs: number): Promise<number> {
  const backend = createServer((_request, response) => {
    setTimeout(() => response.end(name), delayMs);
  });
  timed.push(backend);
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  return (backend.address() as AddressInfo).port;
}

async function answer(host: string, path = '/'): Promise<string> {
  const response = await probe({ port: controller.config.httpPort, host, path });
  return response.status === 200 ? (response.body.split(':')[0] ?? '') : String(response.status);
}

async function shareOf(host: string, name: string, count: number): Promise<number> {
  let hits = 0;
  for (let index = 0; index < count; index += 1) if ((await answer(host)) === name) hits += 1;
  return hits / count;
}

beforeAll(async () => {
  const names = ['e1', 'e2', 'e3', 'e4', 'e5', 'e6'];
  backends = await startBackends(...names);
  const fast = await startTimedBackend('fast', 0);
  const slow = await startTimedBackend('slow', 150);
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests(
      'six',
      names.map((name) => backends.get(name)!),
    ),
    ...serviceManifests('mixed', []),
    endpointSliceManifest('mixed-fast', 'mixed', fast),
    endpointSliceManifest('mixed-slow', 'mixed', slow),
    ingressManifest('ewma', {
      host: 'ewma.test',
      service: 'mixed',
      className: 'nginx',
      annotations: { [`${A}load-balance`]: 'ewma' },
    }),
    ingressManifest('rr', {
      host: 'rr.test',
      service: 'mixed',
      className: 'nginx',
      annotations: { [`${A}load-balance`]: 'round_robin' },
    }),
    ingressManifest('subset', {
      host: 'subset.test',
      service: 'six',
      className: 'nginx',
      annotations: {
        [`${A}upstream-hash-by`]: '$arg_u',
        [`${A}upstream-hash-by-subset`]: 'true',
        [`${A}upstream-hash-by-subset-size`]: '2',
      },
    }),
  ]);
  controller = await startController(server, { podName: 'balancing' });
  await eventually(async () => expect(await answer('rr.test')).toMatch(/fast|slow/));
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const backend of timed) await new Promise((resolve) => backend.close(resolve));
  for (const running of backends?.values() ?? []) await running.stop();
});

describe('load-balance', () => {
  it('ewma sends most requests to the endpoint that answers faster', async () => {
    expect(await shareOf('ewma.test', 'fast', 30)).toBeGreaterThanOrEqual(0.8);
  });

  it('round_robin takes turns whatever the response times', async () => {
    const share = await shareOf('rr.test', 'fast', 20);
    expect(share).toBeGreaterThanOrEqual(0.4);
    expect(share).toBeLessThanOrEqual(0.6);
  });
});

describe('upstream-hash-by-subset', () => {
  it('keeps each key within a subset of upstream-hash-by-subset-size endpoints, spread over it', async () => {
    const sizes: number[] = [];
    for (const key of ['a', 'b', 'c', 'd']) {
      const seen = new Set<string>();
      for (let index = 0; index < 24; index += 1) seen.add(await answer('subset.test', `/?u=${key}`));
      sizes.push(seen.size);
    }
    expect(sizes).toEqual([2, 2, 2, 2]);
  });
});

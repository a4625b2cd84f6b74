/**
 * ingress-nginx's global rate limit end to end (local API server, the controller, nginx with two
 * workers, a memcached of the test's own, real HTTP from 127.0.0.1): global-rate-limit requests
 * per window pass and the next gets 429, whichever worker or nginx takes them, as a second
 * controller with its own nginx counts in the same memcached; ignored CIDRs pass; the key counts
 * clients apart; memcached down means 503 until it is back; a new memcached port in the ConfigMap
 * and a changed limit are served without a reload; without a memcached host the Ingress gets 503.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import {
  endpointSliceManifest,
  eventually,
  listEvents,
  request,
  serviceManifests,
  startController,
} from './harness.js';
import { startMemcached, type TestMemcached } from './memcached.js';

const CONFIGMAP = { namespace: 'ingresskit', name: 'ingresskit-controller' };
const CONFIGMAP_KEY = `${CONFIGMAP.namespace}/${CONFIGMAP.name}`;

function configMap(data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: CONFIGMAP, data };
}

function storeKeys(port: number): Record<string, string> {
  return {
    'global-rate-limit-memcached-host': '127.0.0.1',
    'global-rate-limit-memcached-port': String(port),
    'global-rate-limit-memcached-pool-size': '4',
    // ingress-nginx's 50 ms is tight on a loaded test machine: a timeout fails closed with 503.
    'global-rate-limit-memcached-connect-timeout': '2000',
  };
}

/** An Ingress limited to `limit` requests an hour (a window that long never slides within a test). */
function limited(host: string, limit: number, more: Record<string, string> = {}) {
  return annotatedIngress(host, 'app', {
    [`${A}global-rate-limit`]: String(limit),
    [`${A}global-rate-limit-window`]: '1h',
    ...more,
  });
}

let memcached: TestMemcached;
let other: TestMemcached | undefined;
beforeAll(async () => {
  memcached = await startMemcached();
});
// Registered before the case, so run after it stops.
afterAll(async () => {
  await memcached.stop();
  await other?.stop();
});

const testCase = useAnnotationsCase({
  // Two workers: every worker asks the same memcached.
  config: { podName: 'global-limits', workerProcesses: 2, configMap: CONFIGMAP_KEY },
  readyHost: 'open.test',
  objects: async ({ listen }) => [
    configMap(storeKeys(memcached.port)),
    ...serviceManifests('app', []),
    endpointSliceManifest('app-1', 'app', await listen((_, response) => response.end('ok'))),
    limited('three.test', 3),
    limited('shared.test', 4),
    limited('ignored.test', 1, { [`${A}global-rate-limit-ignored-cidrs`]: '10.0.0.0/8, 127.0.0.1' }),
    limited('keyed.test', 1, { [`${A}global-rate-limit-key`]: '${http_x_api_client}' }),
    limited('outage.test', 1000),
    limited('moved.test', 2),
    limited('changing.test', 1),
    annotatedIngress('open.test', 'app', {}),
  ],
});

async function statuses(host: string, count: number, headers?: Record<string, string>): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index += 1)
    result.push((await testCase().send(host, headers === undefined ? {} : { headers })).status);
  return result;
}

describe('global-rate-limit', () => {
  it('admits the limit within a window across workers, then answers 429', async () => {
    expect(await statuses('three.test', 6)).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it('shares the count with another controller and nginx counting in the same memcached', async () => {
    let second: Controller | undefined;
    try {
      second = await startController(testCase().server, {
        podName: 'global-limits-2',
        configMap: CONFIGMAP_KEY,
      });
      const controller = second;
      await eventually(async () => expect((await request(controller, 'open.test')).status).toBe(200));
      expect(await statuses('shared.test', 2)).toEqual([200, 200]);
      const throughSecond: number[] = [];
      for (let index = 0; index < 3; index += 1)
        throughSecond.push((await request(controller, 'shared.test')).status);
      expect(throughSecond).toEqual([200, 200, 429]);
      expect(await statuses('shared.test', 1)).toEqual([429]);
    } finally {
      await second?.stop();
    }
  });

  it('leaves clients in global-rate-limit-ignored-cidrs alone', async () => {
    expect(await statuses('ignored.test', 5)).toEqual(Array(5).fill(200));
  });

  it('counts each value of global-rate-limit-key apart', async () => {
    expect(await statuses('keyed.test', 2, { 'x-api-client': 'a' })).toEqual([200, 429]);
    expect(await statuses('keyed.test', 2, { 'x-api-client': 'b' })).toEqual([200, 429]);
  });

  it('fails closed with 503 while memcached is down, and limits again once it is back', async () => {
    expect(await statuses('outage.test', 2)).toEqual([200, 200]);
    await memcached.stop();
    expect(await statuses('outage.test', 3)).toEqual([503, 503, 503]);
    expect(await statuses('open.test', 1)).toEqual([200]);
    await memcached.start();
    await eventually(async () => expect(await statuses('outage.test', 1)).toEqual([200]));
    expect(await statuses('three.test', 4)).toEqual([200, 200, 200, 429]);
  });
});

describe('a change', () => {
  it('of the memcached in the ConfigMap is served without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    expect(await statuses('moved.test', 3)).toEqual([200, 200, 429]);
    other = await startMemcached();
    await server.apply([configMap(storeKeys(other.port))]);
    // The new memcached holds no count yet.
    await eventually(async () => expect(await statuses('moved.test', 1)).toEqual([200]));
    expect(await statuses('moved.test', 2)).toEqual([200, 429]);
    // The old one is no longer asked: its outage changes nothing.
    await memcached.stop();
    expect(await statuses('moved.test', 1)).toEqual([429]);
    await memcached.start();
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });

  it('of the limit is served without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    expect(await statuses('changing.test', 2)).toEqual([200, 429]);
    await server.apply(limited('changing.test', 3));
    // Two more fit under the new limit of 3 in the same window.
    await eventually(async () => expect(await statuses('changing.test', 1)).toEqual([200]));
    expect(await statuses('changing.test', 2)).toEqual([200, 429]);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });

  it('removing the memcached host closes the Ingress with 503 and an error', async () => {
    const { controller, server } = testCase();
    await server.apply([configMap({})]);
    await eventually(async () => expect(await statuses('changing.test', 1)).toEqual([503]));
    expect(await statuses('open.test', 1)).toEqual([200]);
    await controller.events.flush();
    const notes = (await listEvents(server.kubeConfig(), 'default'))
      .filter((event) => event.regarding?.kind === 'Ingress' && event.regarding.name === 'changing.test')
      .map((event) => event.note ?? '');
    expect(notes.some((note) => note.includes('global-rate-limit-memcached-host'))).toBe(true);
  });
});

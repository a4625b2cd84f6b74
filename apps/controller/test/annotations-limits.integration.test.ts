/**
 * ingress-nginx's per-client limits end to end (local API server, the controller, nginx with two
 * workers, real HTTP from 127.0.0.1): limit-rpm / limit-rps with limit-burst-multiplier admit
 * exactly `burst + 1` requests at once whichever worker takes them, then 503; limit-allowlist
 * exempts a client; limit-connections counts requests in flight; every Ingress counts on its own;
 * a changed limit is served without a reload.
 */
import type { RequestListener } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { A, annotatedIngress, useAnnotationsCase } from './annotations.js';
import { endpointSliceManifest, eventually, serviceManifests } from './harness.js';

/** Answers of /hold requests wait until this is called. */
let releaseHeld: () => void = () => {};
let held: Promise<void> = Promise.resolve();

/** A backend answering 200 at once, or for `/hold` once the test lets go. */
const holding: RequestListener = (request, response) => {
  const answer = () => response.end('ok');
  if (request.url === '/hold') void held.then(answer);
  else answer();
};

function limited(name: string, host: string, annotations: Record<string, string>) {
  return annotatedIngress(host, 'app', annotations, { name });
}

const testCase = useAnnotationsCase({
  // Two workers: counts must be shared, or each worker would admit its own burst.
  config: { podName: 'limits', workerProcesses: 2 },
  readyHost: 'open.test',
  objects: async ({ listen }) => [
    ...serviceManifests('app', []),
    endpointSliceManifest('app-1', 'app', await listen(holding)),
    // limit-rpm 1 drains one request a minute: within a test, only the burst counts.
    limited('rpm', 'rpm.test', { [`${A}limit-rpm`]: '1', [`${A}limit-burst-multiplier`]: '3' }),
    limited('rpm-default-burst', 'rpm-default.test', { [`${A}limit-rpm`]: '1' }),
    limited('exempt', 'exempt.test', {
      [`${A}limit-rpm`]: '1',
      [`${A}limit-burst-multiplier`]: '1',
      [`${A}limit-allowlist`]: '10.0.0.0/8, 127.0.0.1',
    }),
    limited('rps', 'rps.test', { [`${A}limit-rps`]: '2', [`${A}limit-burst-multiplier`]: '1' }),
    limited('conn', 'conn.test', { [`${A}limit-connections`]: '1' }),
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'staff', namespace: 'default' },
      data: { auth: Buffer.from('alice:{PLAIN}secret\n').toString('base64') },
    },
    limited('conn-auth', 'conn-auth.test', {
      [`${A}limit-connections`]: '1',
      [`${A}auth-type`]: 'basic',
      [`${A}auth-secret`]: 'staff',
    }),
    limited('changing', 'changing.test', { [`${A}limit-rpm`]: '1', [`${A}limit-burst-multiplier`]: '1' }),
    limited('open', 'open.test', {}),
  ],
});

// Registered after the case, so run before it stops: a held answer must not keep the backend open.
afterAll(() => releaseHeld());

async function statusOf(host: string, path = '/'): Promise<number> {
  return (await testCase().send(host, { path })).status;
}

/** The statuses of `count` requests sent one after the other. */
async function statuses(host: string, count: number): Promise<number[]> {
  const result: number[] = [];
  for (let index = 0; index < count; index += 1) result.push(await statusOf(host));
  return result;
}

describe('limit-rpm, limit-rps, limit-burst-multiplier', () => {
  it('admits rate × multiplier + 1 requests at once across workers, then answers 503', async () => {
    // burst 1 × 3: a fresh client gets 4 requests, wherever they land.
    expect(await statuses('rpm.test', 8)).toEqual([200, 200, 200, 200, 503, 503, 503, 503]);
  });

  it('uses ingress-nginx default multiplier 5 when none is set', async () => {
    expect(await statuses('rpm-default.test', 8)).toEqual([200, 200, 200, 200, 200, 200, 503, 503]);
  });

  it('lets a rate per second drain and admit again', async () => {
    // 2 r/s, burst 2: 3 at once, and after a second at least 2 more.
    const first = await statuses('rps.test', 6);
    expect(first.slice(0, 3)).toEqual([200, 200, 200]);
    expect(first.filter((status) => status === 503).length).toBeGreaterThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await statusOf('rps.test')).toBe(200);
  });

  it('counts every Ingress on its own', async () => {
    expect(await statuses('open.test', 10)).toEqual(Array(10).fill(200));
  });
});

describe('limit-allowlist', () => {
  it('exempts clients in the listed networks', async () => {
    expect(await statuses('exempt.test', 10)).toEqual(Array(10).fill(200));
  });
});

describe('limit-connections', () => {
  it('answers 503 to a second request in flight and admits again once the first is done', async () => {
    held = new Promise((resolve) => (releaseHeld = resolve));
    const first = statusOf('conn.test', '/hold');
    // The first request is in flight once the backend holds it; until then nginx may still admit.
    await eventually(async () => expect(await statusOf('conn.test')).toBe(503));
    releaseHeld();
    expect(await first).toBe(200);
    await eventually(async () => expect(await statusOf('conn.test')).toBe(200));
    expect(await statusOf('conn.test')).toBe(200);
  });
});

describe('limit-connections with a request the router ends itself', () => {
  it('gives the connection back: refused credentials never use up the limit', async () => {
    // Each 401 is answered in location /, after the request was counted; were the count not given
    // back there, the second request would get 503.
    expect(await statuses('conn-auth.test', 4)).toEqual([401, 401, 401, 401]);
    const authorized = await testCase().send('conn-auth.test', {
      headers: { authorization: `Basic ${Buffer.from('alice:secret').toString('base64')}` },
    });
    expect(authorized.status).toBe(200);
  });
});

describe('a changed limit', () => {
  it('is served without a reload', async () => {
    const { controller, server } = testCase();
    const reloads = controller.dataPlane.reloadCount;
    expect(await statuses('changing.test', 3)).toEqual([200, 200, 503]);
    await server.apply(limited('changing', 'changing.test', {}));
    await eventually(async () => expect(await statusOf('changing.test')).toBe(200));
    expect(await statuses('changing.test', 5)).toEqual(Array(5).fill(200));
    await server.apply(
      limited('changing', 'changing.test', { [`${A}limit-rpm`]: '1', [`${A}limit-burst-multiplier`]: '1' }),
    );
    // The count of this scope and client is still there: the limit refuses at once.
    await eventually(async () => expect(await statusOf('changing.test')).toBe(503));
    expect(controller.dataPlane.reloadCount).toBe(reloads);
  });
});

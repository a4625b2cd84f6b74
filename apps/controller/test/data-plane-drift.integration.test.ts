/**
 * nginx's data changed behind the controller: someone with access to the control socket (not a
 * tenant: the socket is a file in the controller's pod) deletes a host. The controller finds the
 * drift, from its periodic content check or from its next push, reports it and pushes everything
 * again, which serves the host again.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  answerOf,
  eventually,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let backends: Map<string, DemoBackend>;
let controller: Controller;

beforeAll(async () => {
  backends = await startBackends('alpha');
  server = await startLocalApiServer();
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ingressManifest('shop', { host: 'shop.test', service: 'alpha', className: 'nginx' }),
  ]);
  controller = await startController(server);
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
});

/** A push on nginx's control socket that the controller did not make: it deletes shop.test. */
function foreignPush(): Promise<number> {
  const body = JSON.stringify({ delete: ['host:shop.test'] });
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        socketPath: join(controller.dataPlane.prefix, 'control', 'ingresskit.sock'),
        method: 'POST',
        path: '/configuration/data',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

async function drifts(): Promise<number> {
  const metric = await controller.metrics.dataPlaneDrifts.get();
  return metric.values[0]?.value ?? 0;
}

describe('data changed behind the controller', () => {
  it('is found by the content check, reported and repaired', async () => {
    expect(await answerOf(controller, 'shop.test')).toBe('alpha');
    const before = await drifts();
    expect(await foreignPush()).toBe(201);
    expect(await answerOf(controller, 'shop.test')).toBe('404');
    expect(await controller.dataPlane.checkContent()).toMatch(/a push this controller did not make/);
    expect(await drifts()).toBe(before + 1);
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('alpha'));
    // Repaired: the next check finds the data as pushed.
    await eventually(async () => expect(await controller.dataPlane.isInSync()).toBe(true));
    expect(await controller.dataPlane.checkContent()).toBeUndefined();
  });

  it("is found by the controller's next push, which does not count on what it found", async () => {
    const before = await drifts();
    expect(await foreignPush()).toBe(201);
    await server.apply(ingressManifest('more', { host: 'more.test', service: 'alpha', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'more.test')).toBe('alpha'));
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('alpha'));
    expect(await drifts()).toBe(before + 1);
  });
});

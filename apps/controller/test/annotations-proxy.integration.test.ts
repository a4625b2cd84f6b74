/**
 * ingress-nginx proxy annotations served in Lua, end to end (local API server, the controller,
 * nginx, real HTTP): upstream-hash-by keeps a key on one endpoint, proxy-next-upstream-tries
 * bounds the endpoints one request tries, proxy-redirect-from/-to, proxy-cookie-domain and
 * proxy-cookie-path rewrite the backend's Location and Set-Cookie headers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe, type ProbeResponse } from '../src/http-probe.js';
import { findFreePort } from '../src/ports.js';
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
let redirecting: Server;

/** A backend answering 302 to its own name, with two cookies. */
async function startRedirectingBackend(): Promise<number> {
  redirecting = createServer((_request, response) => {
    response.setHeader('location', 'http://internal.local/app/next?x=1');
    response.setHeader('set-cookie', ['a=1; Domain=.Internal.local; Path=/app/sub', 'b=2; path=/other']);
    response.statusCode = 302;
    response.end();
  });
  await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
  return (redirecting.address() as AddressInfo).port;
}

function annotated(host: string, service: string, annotations: Record<string, string>) {
  return ingressManifest(host, { host, service, className: 'nginx', annotations });
}

function send(host: string, path = '/'): Promise<ProbeResponse> {
  return probe({ port: controller.config.httpPort, host, path });
}

function backendOf(response: ProbeResponse): string {
  return response.status === 200 ? (response.body.split(':')[0] ?? '') : String(response.status);
}

beforeAll(async () => {
  backends = await startBackends('one', 'two');
  const redirectingPort = await startRedirectingBackend();
  const deadPort = await findFreePort();
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('pair', [backends.get('one')!, backends.get('two')!]),
    ...serviceManifests('flaky', [backends.get('one')!]),
    endpointSliceManifest('flaky-dead', 'flaky', deadPort),
    ...serviceManifests('redirecting', []),
    endpointSliceManifest('redirecting-1', 'redirecting', redirectingPort),
    annotated('hash.test', 'pair', { [`${A}upstream-hash-by`]: '$arg_user' }),
    annotated('one-try.test', 'flaky', { [`${A}proxy-next-upstream-tries`]: '1' }),
    annotated('tries.test', 'flaky', {}),
    annotated('rewrite.test', 'redirecting', {
      [`${A}proxy-redirect-from`]: 'http://internal.local/app/',
      [`${A}proxy-redirect-to`]: 'https://public.test/',
      [`${A}proxy-cookie-domain`]: 'internal.local public.test',
      [`${A}proxy-cookie-path`]: '/app/ /',
    }),
    annotated('plain-redirect.test', 'redirecting', {}),
  ]);
  controller = await startController(server, { podName: 'proxy' });
  await eventually(async () => expect((await send('hash.test', '/?user=a')).status).toBe(200));
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  await new Promise((resolve) => redirecting?.close(resolve));
  for (const running of backends?.values() ?? []) await running.stop();
});

describe('upstream-hash-by', () => {
  it('sends every request with the same key to the same endpoint, and spreads the keys', async () => {
    const chosen = new Set<string>();
    for (let user = 0; user < 16; user += 1) {
      const answers = new Set<string>();
      for (let request = 0; request < 4; request += 1)
        answers.add(backendOf(await send('hash.test', `/?user=u${user}`)));
      expect(answers.size).toBe(1);
      chosen.add([...answers][0]!);
    }
    expect([...chosen].sort()).toEqual(['one', 'two']);
  });
});

describe('proxy-next-upstream-tries', () => {
  it('tries a second endpoint by default, and only one with "1"', async () => {
    const tried: string[] = [];
    for (let request = 0; request < 4; request += 1) tried.push(backendOf(await send('tries.test')));
    expect(tried).toEqual(['one', 'one', 'one', 'one']);
    const once: string[] = [];
    for (let request = 0; request < 4; request += 1) once.push(backendOf(await send('one-try.test')));
    expect(once).toContain('502');
    expect(once).toContain('one');
  });
});

describe('proxy-redirect-from/-to, proxy-cookie-domain, proxy-cookie-path', () => {
  it("rewrites the backend's Location and cookies", async () => {
    const response = await send('rewrite.test');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('https://public.test/next?x=1');
    expect(response.headers['set-cookie']).toEqual([
      'a=1; Domain=public.test; Path=/sub',
      'b=2; path=/other',
    ]);
  });

  it('leaves them alone without the annotations', async () => {
    const response = await send('plain-redirect.test');
    expect(response.headers.location).toBe('http://internal.local/app/next?x=1');
    expect(response.headers['set-cookie']).toEqual([
      'a=1; Domain=.Internal.local; Path=/app/sub',
      'b=2; path=/other',
    ]);
  });
});

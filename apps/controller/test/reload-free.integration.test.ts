/**
 * The reload-free data plane, end to end (local API server, real nginx, real HTTP): Ingress
 * create, edit and delete, a new and a renewed certificate, and policy changes are served with the
 * same nginx processes and no reload; a keep-alive connection, an open WebSocket and a streaming
 * response live through 100 route changes; after `kill -9` the controller starts nginx again and
 * pushes every route before it reports ready, and nothing answers with a wrong route meanwhile.
 */
import { NetworkingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { probe } from '../src/http-probe.js';
import {
  answerOf,
  endpointSliceManifest,
  eventually,
  ingressClassManifest,
  ingressManifest,
  presentedCertificate,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  tlsSecretManifest,
  type LocalApiServer,
} from './harness.js';
import {
  createKeepAliveClient,
  openWebSocket,
  startLongLivedBackend,
  type LongLivedBackend,
} from './long-lived.js';

let server: LocalApiServer;
let controller: Controller;
let backends: Map<string, DemoBackend>;
let longLived: LongLivedBackend;

/** What a reload or restart would change. */
async function processState(): Promise<{
  master: number | undefined;
  workers: number[];
  reloads: number;
  loads: number | undefined;
}> {
  return {
    master: controller.dataPlane.masterPid,
    workers: await controller.dataPlane.workerPids(),
    reloads: controller.dataPlane.reloadCount,
    loads: (await controller.dataPlane.readStatus())?.configurationLoads,
  };
}

/** The SHA-256 fingerprint of the certificate nginx presents for `serverName`. */
async function servedFingerprint(serverName: string): Promise<string> {
  return (await presentedCertificate(controller, serverName)).fingerprint256;
}

beforeAll(async () => {
  backends = await startBackends('alpha', 'beta');
  longLived = await startLongLivedBackend();
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backends.get('alpha')!]),
    ...serviceManifests('beta', [backends.get('beta')!]),
    ...serviceManifests('long', []),
    endpointSliceManifest('long-1', 'long', longLived.port),
    ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx' }),
    ingressManifest('long', { host: 'long.test', service: 'long', className: 'nginx' }),
  ]);
  controller = await startController(server, { podName: 'reload-free' });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  await longLived?.stop();
  for (const running of backends?.values() ?? []) await running.stop();
});

describe('the reload-free data plane', () => {
  it('serves Ingress create, edit and delete, new and renewed certificates and policy changes without a reload', async () => {
    const before = await processState();
    expect(before.workers.length).toBeGreaterThan(0);

    await server.apply(ingressManifest('shop', { host: 'shop.test', service: 'alpha', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('alpha'));
    await server.apply(ingressManifest('shop', { host: 'shop.test', service: 'beta', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('beta'));

    // A new certificate, then a renewed one, served by SNI with plain HTTP redirected to HTTPS.
    const withTls = {
      ...ingressManifest('shop', { host: 'shop.test', service: 'beta', className: 'nginx' }),
    } as { spec: Record<string, unknown> };
    withTls.spec.tls = [{ hosts: ['shop.test'], secretName: 'shop-tls' }];
    await server.apply([tlsSecretManifest('shop-tls', 'shop.test'), withTls]);
    const first = await eventually(async () => {
      expect(await answerOf(controller, 'shop.test', '/', true)).toBe('beta');
      const fingerprint = await servedFingerprint('shop.test');
      expect(fingerprint).not.toBe(await servedFingerprint('unknown.test'));
      return fingerprint;
    });
    expect((await probe({ port: controller.config.httpPort, host: 'shop.test' })).status).toBe(308);
    await server.apply(tlsSecretManifest('shop-tls', 'shop.test'));
    await eventually(async () => expect(await servedFingerprint('shop.test')).not.toBe(first));

    // Policies: an allow-list that excludes the client closes the route (403), removing it opens it.
    const allowOthers = { 'nginx.ingress.kubernetes.io/allowlist-source-range': '10.0.0.0/8' };
    await server.apply(
      ingressManifest('home', {
        host: 'home.test',
        service: 'alpha',
        className: 'nginx',
        annotations: allowOthers,
      }),
    );
    await eventually(async () => expect(await answerOf(controller, 'home.test')).toBe('403'));
    await server.apply(ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'home.test')).toBe('alpha'));

    // ingress-nginx annotations that became route policy: a deny list, CORS, a redirect.
    const home = (annotations: Record<string, string>) =>
      ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx', annotations });
    const homeProbe = () => probe({ port: controller.config.httpPort, host: 'home.test' });
    await server.apply(home({ 'nginx.ingress.kubernetes.io/denylist-source-range': '127.0.0.1' }));
    await eventually(async () => expect(await answerOf(controller, 'home.test')).toBe('403'));
    await server.apply(home({ 'nginx.ingress.kubernetes.io/enable-cors': 'true' }));
    await eventually(async () =>
      expect((await homeProbe()).headers['access-control-allow-origin']).toBe('*'),
    );
    await server.apply(
      home({ 'nginx.ingress.kubernetes.io/permanent-redirect': 'https://elsewhere.test$request_uri' }),
    );
    await eventually(async () =>
      expect(await homeProbe()).toMatchObject({
        status: 301,
        headers: { location: 'https://elsewhere.test/' },
      }),
    );
    await server.apply(ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'home.test')).toBe('alpha'));

    const networking = server.kubeConfig().makeApiClient(NetworkingV1Api);
    await networking.deleteNamespacedIngress({ name: 'shop', namespace: 'default' });
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('404'));

    expect(await processState()).toEqual(before);
  });

  it('keeps a keep-alive connection, an open WebSocket and a streaming response through 100 route changes', async () => {
    const before = await processState();
    const port = controller.config.httpPort;
    const keepAlive = createKeepAliveClient();
    const socket = await openWebSocket(port, 'long.test', '/chat');
    expect(await socket.exchange('hello')).toBe('echo: hello');
    const first = await keepAlive.get(port, 'home.test');
    expect(first.body).toMatch(/^alpha:/);
    // 100 route changes at about 20 ms each: a stream of 300 lines, one every 20 ms, outlives them.
    const streamed = probe({
      port,
      host: 'long.test',
      path: '/stream?lines=300&everyMs=20',
      timeoutMs: 30_000,
    });

    for (let change = 0; change < 100; change++) {
      const service = change % 2 === 0 ? 'alpha' : 'beta';
      await server.apply(
        ingressManifest('churn', { host: 'churn.test', service, className: 'nginx', path: `/v${change}` }),
      );
      await eventually(
        async () => expect(await answerOf(controller, 'churn.test', `/v${change}`)).toBe(service),
        5_000,
        5,
      );
    }

    const again = await keepAlive.get(port, 'home.test');
    expect(again.localPort).toBe(first.localPort);
    expect(socket.isOpen()).toBe(true);
    expect(await socket.exchange('still there?')).toBe('echo: still there?');
    const stream = await streamed;
    expect(stream.status).toBe(200);
    expect(stream.body.trim().split('\n')).toHaveLength(300);
    socket.close();
    keepAlive.close();
    expect(await processState()).toEqual(before);
  });

  it('proxies a WebSocket upgrade to the backend and echoes messages both ways', async () => {
    const socket = await openWebSocket(controller.config.httpPort, 'long.test');
    expect(await socket.exchange('ping')).toBe('echo: ping');
    expect(await socket.exchange('x'.repeat(1000))).toBe(`echo: ${'x'.repeat(1000)}`);
    socket.close();
  });

  it('starts nginx again after kill -9, pushes every route before it is ready, and never serves a wrong route', async () => {
    const master = controller.dataPlane.masterPid!;
    const answers = new Set<string>();
    let probing = true;
    const prober = (async () => {
      while (probing) {
        answers.add(await answerOf(controller, 'home.test'));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // The master and its workers, as the OOM killer or a node reboot would leave it.
    process.kill(-master, 'SIGKILL');
    await eventually(
      async () => {
        const healthz = await fetch(`http://127.0.0.1:${controller.healthzPort}/healthz`);
        expect(healthz.status).toBe(503);
      },
      5_000,
      5,
    );
    await eventually(async () => {
      expect(controller.dataPlane.masterPid).toBeDefined();
      expect(controller.dataPlane.masterPid).not.toBe(master);
      const healthz = await fetch(`http://127.0.0.1:${controller.healthzPort}/healthz`);
      expect(healthz.status).toBe(200);
    });
    // Ready means served: the first request after /healthz turned 200 reaches the right backend.
    expect(await answerOf(controller, 'home.test')).toBe('alpha');
    const stream = await probe({
      port: controller.config.httpPort,
      host: 'long.test',
      path: '/stream?lines=1&everyMs=1',
    });
    expect(stream.body).toBe('line 0\n');
    probing = false;
    await prober;
    // While nginx was down: refused connections or 503, never another backend or a 404.
    for (const answer of answers)
      expect(answer === 'alpha' || answer === '503' || answer.startsWith('error:')).toBe(true);
  });
});

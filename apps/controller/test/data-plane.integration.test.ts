/**
 * NginxDataPlane with real nginx: route changes, whatever directives they ask for, are pushed
 * without a reload; a change of the operator's settings needs a new nginx.conf and reloads, and
 * when `nginx -t` refuses it the running nginx keeps serving, every route is pushed anyway, and a
 * later good attempt applies it. `nginx -t` is made to fail through a wrapper script
 * (nginx-template never renders a configuration nginx refuses, so a real refusal needs help).
 */
import { rm, writeFile } from 'node:fs/promises';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import {
  createRouteTableBuilder,
  type Certificate,
  type Route,
  type RouteTableBuilder,
} from '@ingresskit/route-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NginxDataPlane } from '../src/data-plane.js';
import { listenersOf } from '../src/data-plane-render-options.js';
import type { DemoBackend } from '../src/demo-backends.js';
import { NginxConfigTestError } from '../src/errors.js';
import { probe } from '../src/http-probe.js';
import { createLogger } from '../src/logger.js';
import { resolveNginxBinary } from '../src/nginx-process.js';
import {
  answerOf,
  CONTROLLER_CONFIGMAP,
  controllerConfigMapManifest,
  createTempDir,
  eventually,
  ingressClassManifest,
  ingressManifest,
  listEvents,
  pickControllerPorts,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  writeRefusingNginx,
} from './harness.js';

let temp: { dir: string; remove: () => Promise<void> };
let backends: Map<string, DemoBackend>;
let dataPlane: NginxDataPlane;
let builder: RouteTableBuilder;
let ports: Awaited<ReturnType<typeof pickControllerPorts>>;
let failMarker: string;
let wrapper: string;

function routeTo(hostname: string, maxBodyBytes?: number): Route {
  return {
    id: `Test/default/${hostname}`,
    origin: { kind: 'Test', namespace: 'default', name: hostname, createdAt: 0, index: [] },
    match: { path: { type: 'PathPrefix', value: '/' } },
    action: { type: 'forward', backends: [{ backend: 'default/alpha:80', weight: 1 }] },
    policy: maxBodyBytes === undefined ? {} : { maxBodyBytes },
  };
}

function setHost(hostname: string, maxBodyBytes?: number): void {
  builder.setContribution({
    source: { kind: 'Test', namespace: 'default', name: hostname },
    hosts: [{ hostname, routes: [routeTo(hostname, maxBodyBytes)] }],
    tls: [],
  });
}

async function status(host: string): Promise<number> {
  return (await probe({ port: ports.httpPort, host })).status;
}

beforeAll(async () => {
  temp = await createTempDir();
  backends = await startBackends('alpha');
  ports = await pickControllerPorts();
  ({ wrapper, failMarker } = await writeRefusingNginx(temp.dir));
  dataPlane = new NginxDataPlane({
    binary: wrapper,
    ...ports,
    listenAddresses: ['127.0.0.1'],
    workerProcesses: 1,
    logger: createLogger({ level: 'silent' }),
    readTable: () => builder.table(),
  });
  await dataPlane.prepare();
  builder = createRouteTableBuilder({ listeners: listenersOf(ports) });
  builder.setBackend({
    id: 'default/alpha:80',
    endpoints: [{ address: '127.0.0.1', port: backends.get('alpha')!.port }],
  });
});

afterAll(async () => {
  await dataPlane?.stop();
  for (const backend of backends?.values() ?? []) await backend.stop();
  await temp?.remove();
});

describe('NginxDataPlane', () => {
  it('answers 503 until the first push, then serves, and pushes new hosts without a reload', async () => {
    setHost('one.test');
    dataPlane.stage(builder.commit());
    const first = await dataPlane.flush();
    expect(first).toMatchObject({ started: true, pushed: true, reloaded: false });
    expect(await status('one.test')).toBe(200);
    const workers = await dataPlane.workerPids();

    setHost('two.test');
    dataPlane.stage(builder.commit());
    expect(await dataPlane.flush()).toMatchObject({ started: false, reloaded: false, pushed: true });
    expect(await status('two.test')).toBe(200);
    expect(await dataPlane.workerPids()).toEqual(workers);
    expect(dataPlane.reloadCount).toBe(0);
  });

  it('pushes a route with directives of its own without a reload, even while nginx -t would refuse', async () => {
    await writeFile(failMarker, '');
    setHost('big.test', 8 * 1024 * 1024);
    setHost('three.test');
    dataPlane.stage(builder.commit());
    expect(await dataPlane.flush()).toMatchObject({ reloaded: false, pushed: true });
    expect(await status('three.test')).toBe(200);
    expect(await status('big.test')).toBe(200);
    expect(await dataPlane.isInSync()).toBe(true);
    expect(dataPlane.reloadCount).toBe(0);
    await rm(failMarker);
  });

  it("keeps serving and pushing when nginx -t refuses an operator's setting, then applies it", async () => {
    await writeFile(failMarker, '');
    dataPlane.setConfigMapSettings({ workerConnections: 2048 });
    setHost('four.test');
    dataPlane.stage(builder.commit());
    await expect(dataPlane.flush()).rejects.toBeInstanceOf(NginxConfigTestError);
    expect(await status('four.test')).toBe(200);
    expect(await status('one.test')).toBe(200);
    expect(dataPlane.notServingReason()).toBeUndefined();

    await rm(failMarker);
    expect(await dataPlane.flush()).toMatchObject({ reloaded: true });
    expect(dataPlane.nginxConf).toContain('worker_connections 2048;');
    expect(dataPlane.reloadCount).toBe(1);
    expect(await dataPlane.isInSync()).toBe(true);
  });

  it('leaves out a certificate nginx refuses and pushes everything else, until the certificate changes', async () => {
    const origin = { kind: 'Test', namespace: 'default', name: 'cert.test', createdAt: 0, index: [] };
    const bindCertificate = (certificate: Certificate) => {
      builder.setContribution({
        source: { kind: 'Test', namespace: 'default', name: 'cert.test' },
        hosts: [{ hostname: 'cert.test', routes: [routeTo('cert.test')] }],
        tls: [{ hostname: 'cert.test', certificate, origin }],
      });
      dataPlane.stage(builder.commit());
    };
    const pem = '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n';
    bindCertificate({ id: 'bad', certificatePem: pem, privateKeyPem: 'not a key' });
    expect(await dataPlane.flush()).toMatchObject({ pushed: true, refused: [] });
    expect([...dataPlane.refusedEntries().keys()]).toEqual(['cert:bad']);
    expect(await status('cert.test')).toBe(200);
    expect(await dataPlane.isInSync()).toBe(true);

    bindCertificate({ id: 'good', ...createSelfSignedCertificate({ commonName: 'cert.test' }) });
    expect(await dataPlane.flush()).toMatchObject({ pushed: true });
    expect(dataPlane.refusedEntries().size).toBe(0);
  });

  it('does nothing when nothing changed, and never reloads when routes go', async () => {
    expect(await dataPlane.flush()).toMatchObject({ started: false, reloaded: false, pushed: false });
    builder.deleteContribution('Test/default/big.test');
    dataPlane.stage(builder.commit());
    expect(await dataPlane.flush()).toMatchObject({ reloaded: false, pushed: true });
    expect(await status('big.test')).toBe(404);
    expect(dataPlane.reloadCount).toBe(1);
  });
});

describe('NginxDataPlane with too little shared memory', () => {
  /** A data plane on `ownPorts` with 1m of shared memory, pushing what `table` holds. */
  function createSmallDataPlane(ownPorts: typeof ports, table: RouteTableBuilder): NginxDataPlane {
    return new NginxDataPlane({
      binary: resolveNginxBinary(),
      ...ownPorts,
      listenAddresses: ['127.0.0.1'],
      workerProcesses: 1,
      logger: createLogger({ level: 'silent' }),
      renderOptions: { sharedDictSize: '1m' },
      readTable: () => table.table(),
    });
  }

  /** Adds `hostname` to `table`, its one route to default/alpha:80. */
  function addHost(table: RouteTableBuilder, hostname: string): void {
    table.setContribution({
      source: { kind: 'Test', namespace: 'default', name: hostname },
      hosts: [{ hostname, routes: [routeTo(hostname)] }],
      tls: [],
    });
  }

  it('says the data does not fit and which flag to raise, instead of retrying', async () => {
    const ownPorts = await pickControllerPorts();
    const big = createRouteTableBuilder({ listeners: listenersOf(ownPorts) });
    const small = createSmallDataPlane(ownPorts, big);
    for (let index = 0; index < 5_000; index++) addHost(big, `host-${index}.example.test`);
    try {
      await small.prepare();
      small.stage(big.commit());
      await expect(small.flush()).rejects.toThrow(
        /does not fit nginx's shared memory of 1m; raise --lua-shared-dict-size/,
      );
    } finally {
      await small.stop();
    }
  });

  it("still pushes the backends' new endpoints and the hosts removed, and keeps the rest staged", async () => {
    const ownPorts = await pickControllerPorts();
    const table = createRouteTableBuilder({ listeners: listenersOf(ownPorts) });
    const plane = createSmallDataPlane(ownPorts, table);
    const first = (await startBackends('alpha')).get('alpha')!;
    const moved = (await startBackends('alpha')).get('alpha')!;
    const statusOf = async (host: string) => (await probe({ port: ownPorts.httpPort, host })).status;
    try {
      await plane.prepare();
      addHost(table, 'steady.example.test');
      addHost(table, 'gone.example.test');
      table.setBackend({ id: 'default/alpha:80', endpoints: [{ address: '127.0.0.1', port: first.port }] });
      plane.stage(table.commit());
      await plane.flush();
      expect(await statusOf('gone.example.test')).toBe(200);
      // A flood of hosts that cannot fit, the victim's pods moving, a host going away.
      for (let index = 0; index < 5_000; index++) addHost(table, `flood-${index}.example.test`);
      table.setBackend({ id: 'default/alpha:80', endpoints: [{ address: '127.0.0.1', port: moved.port }] });
      table.deleteContribution('Test/default/gone.example.test');
      plane.stage(table.commit());
      await expect(plane.flush()).rejects.toThrow(/does not fit nginx's shared memory of 1m/);
      await first.stop();
      expect((await probe({ port: ownPorts.httpPort, host: 'steady.example.test' })).body).toMatch(/^alpha:/);
      expect(await statusOf('gone.example.test')).toBe(404);
      expect(await statusOf('flood-0.example.test')).toBe(404);
      expect(await plane.isInSync()).toBe(false);
    } finally {
      await plane.stop();
      await first.stop();
      await moved.stop();
    }
  });
});

describe('Controller', () => {
  it('keeps serving, reports and retries with backoff when nginx -t refuses a change, then applies it', async () => {
    const server = await startLocalApiServer({ port: 0 });
    try {
      await server.apply([
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
        ingressClassManifest('nginx'),
        ...serviceManifests('alpha', [backends.get('alpha')!]),
        ingressManifest('one', { host: 'one.test', service: 'alpha', className: 'nginx' }),
      ]);
      const controller = await startController(server, {
        nginxBinary: wrapper,
        podName: 'refused',
        configMap: `${CONTROLLER_CONFIGMAP.namespace}/${CONTROLLER_CONFIGMAP.name}`,
      });
      try {
        expect(await answerOf(controller, 'one.test')).toBe('alpha');
        await writeFile(failMarker, '');
        // An operator's setting changes nginx.conf: a reload, which nginx -t refuses.
        await server.apply(controllerConfigMapManifest({ 'max-worker-connections': '2048' }));
        // A tenant's Ingress with directives of its own needs none, and is served meanwhile.
        await server.apply(
          ingressManifest('two', {
            host: 'two.test',
            service: 'alpha',
            className: 'nginx',
            annotations: {
              'nginx.ingress.kubernetes.io/proxy-body-size': '8m',
              'nginx.ingress.kubernetes.io/proxy-buffer-size': '64k',
            },
          }),
        );
        await eventually(async () => {
          const text = await (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics`)).text();
          expect(text).toContain('ingresskit_config_last_reload_successful 0');
          expect(text).toMatch(/ingresskit_nginx_reloads_total\{result="failure"\} [2-9]/);
        });
        expect(await answerOf(controller, 'one.test')).toBe('alpha');
        expect(await answerOf(controller, 'two.test')).toBe('alpha');
        // nginx serves everything asked of it with the last good nginx.conf: ready.
        expect(controller.isReady()).toBe(true);
        await eventually(async () => {
          await controller.events.flush();
          const events = await listEvents(server.kubeConfig(), 'ingresskit');
          const event = events.find((candidate) => candidate.reason === 'ConfigTestFailed');
          expect(event?.regarding).toMatchObject({ kind: 'Pod', name: 'refused' });
          expect(event?.note).toContain('refused on purpose');
        });

        // No new event from the cluster: the retry alone applies the change once nginx accepts it.
        await rm(failMarker);
        await eventually(
          () => expect(controller.dataPlane.nginxConf).toContain('worker_connections 2048;'),
          20_000,
        );
        expect(controller.isReady()).toBe(true);
      } finally {
        await controller.stop();
      }
    } finally {
      await server.stop();
    }
  }, 40_000);
});

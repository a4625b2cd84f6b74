/**
 * One controller with real nginx against the local API server: traffic follows Ingress changes,
 * endpoint changes need no reload, a broken Ingress is reported while the rest keeps serving, an
 * Ingress created before its IngressClass is served once the class appears, only ignored Ingresses
 * that may be meant for this controller get an Event, and a killed nginx comes back. One API server and one controller serve every test in this file.
 */
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Controller } from '../src/controller.js';
import type { DemoBackend } from '../src/demo-backends.js';
import {
  answerOf,
  endpointSliceManifest,
  eventually,
  ingressClassManifest,
  ingressManifest,
  isProcessAlive,
  listEvents,
  presentedCertificate,
  request,
  serviceManifests,
  startBackends,
  startController,
  startLocalApiServer,
  tlsSecretManifest,
  type LocalApiServer,
} from './harness.js';

let server: LocalApiServer;
let controller: Controller;
let backends: Map<string, DemoBackend>;
const backend = (name: string) => backends.get(name)!;

beforeAll(async () => {
  backends = await startBackends('alpha', 'beta', 'gamma');
  server = await startLocalApiServer({ port: 0 });
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backend('alpha')]),
    ...serviceManifests('beta', [backend('beta')]),
    ingressManifest('home', { host: 'home.test', service: 'alpha', className: 'nginx' }),
  ]);
  controller = await startController(server, { podName: 'solo' });
});

afterAll(async () => {
  await controller?.stop();
  await server?.stop();
  for (const running of backends?.values() ?? []) await running.stop();
});

describe('Controller', () => {
  it('serves the Ingresses that exist at start and answers 404 for unknown hosts', async () => {
    expect(await answerOf(controller, 'home.test')).toBe('alpha');
    expect(await answerOf(controller, 'nobody.test')).toBe('404');
    const healthz = await fetch(`http://127.0.0.1:${controller.healthzPort}/healthz`);
    expect(healthz.status).toBe(200);
  });

  it('follows create, update and delete of an Ingress with its traffic', async () => {
    await server.apply(ingressManifest('shop', { host: 'shop.test', service: 'alpha', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('alpha'));

    await server.apply(ingressManifest('shop', { host: 'shop.test', service: 'beta', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('beta'));

    const networking = server.kubeConfig().makeApiClient(NetworkingV1Api);
    await networking.deleteNamespacedIngress({ name: 'shop', namespace: 'default' });
    await eventually(async () => expect(await answerOf(controller, 'shop.test')).toBe('404'));
    expect(await answerOf(controller, 'home.test')).toBe('alpha');
  });

  it('moves traffic to new endpoints without reloading nginx when only endpoints change', async () => {
    await server.apply(ingressManifest('churn', { host: 'churn.test', service: 'beta', className: 'nginx' }));
    await eventually(async () => expect(await answerOf(controller, 'churn.test')).toBe('beta'));
    const masterPid = controller.dataPlane.masterPid;
    const workers = await controller.dataPlane.workerPids();
    const reloads = controller.dataPlane.reloadCount;
    const loads = (await controller.dataPlane.readStatus())?.configurationLoads;
    const dynamicBefore =
      (await controller.metrics.dynamicUpdates.get()).values.find(
        (value) => value.labels.result === 'success',
      )?.value ?? 0;

    // The beta Service's only endpoint now points at the gamma backend.
    await server.apply(endpointSliceManifest('beta-beta', 'beta', backend('gamma').port));
    await eventually(async () => expect(await answerOf(controller, 'churn.test')).toBe('gamma'));

    expect(controller.dataPlane.masterPid).toBe(masterPid);
    expect(await controller.dataPlane.workerPids()).toEqual(workers);
    expect(controller.dataPlane.reloadCount).toBe(reloads);
    expect((await controller.dataPlane.readStatus())?.configurationLoads).toBe(loads);
    const dynamicAfter =
      (await controller.metrics.dynamicUpdates.get()).values.find(
        (value) => value.labels.result === 'success',
      )?.value ?? 0;
    expect(dynamicAfter).toBeGreaterThan(dynamicBefore);
  });

  it('reports a broken Ingress as an Event and keeps serving the others', async () => {
    await server.apply(
      ingressManifest('broken', {
        host: 'broken.test',
        service: 'alpha',
        className: 'nginx',
        annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1 terabyte; evil' },
      }),
    );
    const event = await eventually(async () => {
      await controller.events.flush();
      const events = await listEvents(server.kubeConfig(), 'default');
      const found = events.find(
        (candidate) => candidate.regarding?.name === 'broken' && candidate.reason === 'InvalidConfiguration',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(event.type).toBe('Warning');
    expect(event.note).toContain('proxy-body-size');
    expect(event.reportingController).toBe('ingresskit.dev/ingress-controller');
    expect(await answerOf(controller, 'broken.test')).toBe('404');
    expect(await answerOf(controller, 'home.test')).toBe('alpha');

    const explain = await fetch(`http://127.0.0.1:${controller.healthzPort}/explain?ingress=default/broken`);
    const body = (await explain.json()) as {
      owned: boolean;
      routes: unknown[];
      problems: { field: string }[];
    };
    expect(body.owned).toBe(true);
    expect(body.routes).toEqual([]);
    expect(body.problems[0]?.field).toContain('proxy-body-size');

    // Another sync with the problem unchanged writes no second Event.
    await server.apply(
      ingressManifest('nudge', { host: 'nudge.test', service: 'alpha', className: 'nginx' }),
    );
    await eventually(async () => expect(await answerOf(controller, 'nudge.test')).toBe('alpha'));
    await controller.events.flush();
    const events = await listEvents(server.kubeConfig(), 'default');
    expect(
      events.filter(
        (candidate) => candidate.regarding?.name === 'broken' && candidate.reason === 'InvalidConfiguration',
      ),
    ).toHaveLength(1);
  });

  it('serves an Ingress created before its IngressClass once the class appears', async () => {
    await server.apply(ingressManifest('early', { host: 'early.test', service: 'alpha', className: 'late' }));
    const ignored = await eventually(async () => {
      const response = await fetch(
        `http://127.0.0.1:${controller.healthzPort}/explain?ingress=default/early`,
      );
      const body = (await response.json()) as { owned: boolean; decision: { reason?: string } };
      expect(body.decision.reason).toBe('class-not-found');
      return body;
    });
    expect(ignored.owned).toBe(false);
    expect(await answerOf(controller, 'early.test')).toBe('404');
    await eventually(async () => {
      await controller.events.flush();
      const events = await listEvents(server.kubeConfig(), 'default');
      expect(
        events.some((candidate) => candidate.regarding?.name === 'early' && candidate.reason === 'Ignored'),
      ).toBe(true);
    });

    await server.apply(ingressClassManifest('late'));
    await eventually(async () => expect(await answerOf(controller, 'early.test')).toBe('alpha'));
  });

  it("writes an Ignored Event for an Ingress whose class does not exist, and none for another controller's", async () => {
    await server.apply([
      ingressClassManifest('traefik', 'traefik.io/ingress-controller'),
      ingressManifest('theirs', { host: 'theirs.test', service: 'alpha', className: 'traefik' }),
      ingressManifest('typo', { host: 'typo.test', service: 'alpha', className: 'ngnix' }),
    ]);
    const event = await eventually(async () => {
      await controller.events.flush();
      const found = (await listEvents(server.kubeConfig(), 'default')).find(
        (candidate) => candidate.regarding?.name === 'typo' && candidate.reason === 'Ignored',
      );
      expect(found).toBeDefined();
      return found!;
    });
    expect(event.type).toBe('Warning');
    expect(event.note).toContain('"ngnix"');

    // The sync that reported the typo had already seen the other controller's Ingress.
    const theirs = controller.routing.verdict('default/theirs')?.decision;
    expect(theirs).toMatchObject({ owned: false, reason: 'class-other-controller' });
    await controller.events.flush();
    const events = await listEvents(server.kubeConfig(), 'default');
    expect(events.filter((candidate) => candidate.regarding?.name === 'theirs')).toEqual([]);
    expect(await answerOf(controller, 'theirs.test')).toBe('404');

    // The metric and /explain still cover it.
    const metrics = await (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics`)).text();
    expect(metrics).toContain('ingresskit_ignored_ingresses{reason="class-other-controller"} 1');
    expect(metrics).toMatch(/ingresskit_ignored_ingresses\{reason="class-not-found"\} [1-9]/);
    const explain = (await (
      await fetch(`http://127.0.0.1:${controller.healthzPort}/explain?ingress=default/theirs`)
    ).json()) as { owned: boolean; decision: { reason?: string } };
    expect(explain).toMatchObject({ owned: false, decision: { reason: 'class-other-controller' } });
  });

  it('answers only the metrics ?name= names, and nothing for a name it does not know', async () => {
    const url = `http://127.0.0.1:${controller.healthzPort}/metrics?name=ingresskit_syncs_total&name=nope`;
    const text = await (await fetch(url)).text();
    expect(text).toMatch(/^ingresskit_syncs_total\{result="success"\} [1-9]/m);
    expect(text.match(/^# TYPE .*$/gm)).toEqual(['# TYPE ingresskit_syncs_total counter']);
  });

  it('exposes the sync, reload and ignore metrics on /metrics', async () => {
    const text = await (await fetch(`http://127.0.0.1:${controller.healthzPort}/metrics`)).text();
    expect(text).toMatch(/ingresskit_syncs_total\{result="success"\} [1-9]/);
    expect(text).toMatch(/ingresskit_nginx_reloads_total\{result="success"\} [1-9]/);
    expect(text).toContain('ingresskit_config_last_reload_successful 1');
    expect(text).toMatch(
      /^ingresskit_build_info\{version="\d+\.\d+\.\d+[^"]*",node_version="v\d+\.\d+\.\d+"\} 1$/m,
    );
    expect(text).toContain('ingresskit_leader_election_status{name="ingresskit-leader"} 1');
    expect(text).toMatch(/ingresskit_config_hash \d+/);
    expect(text).toContain('ingresskit_sync_duration_seconds_bucket');
  });

  it('publishes the status of a new Ingress only once nginx serves it', async () => {
    const networking = server.kubeConfig().makeApiClient(NetworkingV1Api);
    const addresses = async () => {
      const ingress = await networking.readNamespacedIngress({ name: 'pending', namespace: 'default' });
      return (ingress.status?.loadBalancer?.ingress ?? []).map((entry) => entry.ip);
    };
    await eventually(() => expect(controller.isLeader()).toBe(true));
    // A stopped nginx takes no pushes: the sync waits for it.
    const group = -controller.dataPlane.masterPid!;
    process.kill(group, 'SIGSTOP');
    try {
      await server.apply(
        ingressManifest('pending', { host: 'pending.test', service: 'alpha', className: 'nginx' }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await addresses()).toEqual([]);
    } finally {
      process.kill(group, 'SIGCONT');
    }
    await eventually(async () => expect(await answerOf(controller, 'pending.test')).toBe('alpha'));
    await eventually(async () => expect(await addresses()).toEqual(['10.0.0.1']));
  });

  it('starts nginx again and restores the backends when the nginx master dies', async () => {
    const masterPid = controller.dataPlane.masterPid!;
    const workerPids = await controller.dataPlane.workerPids();
    expect(workerPids.length).toBeGreaterThan(0);
    process.kill(masterPid, 'SIGKILL');
    await eventually(() => expect(isProcessAlive(masterPid)).toBe(false));
    // Orphaned workers would keep the ports and serve the old configuration.
    await eventually(() => expect(workerPids.filter(isProcessAlive)).toEqual([]));
    await eventually(async () => {
      expect(controller.dataPlane.masterPid).toBeDefined();
      expect(controller.dataPlane.masterPid).not.toBe(masterPid);
      expect(await answerOf(controller, 'home.test')).toBe('alpha');
    });
    const restarts = (await controller.metrics.nginxRestarts.get()).values[0]?.value;
    expect(restarts).toBe(1);
  });
});

describe('--shutdown-grace-period', () => {
  it('keeps nginx serving through the period after a stop is asked for, with /healthz failing', async () => {
    const graceful = await startController(server, {
      podName: 'graceful',
      shutdownGracePeriodMs: 1_500,
      updateStatus: false,
    });
    try {
      await eventually(async () => expect(await answerOf(graceful, 'home.test')).toBe('alpha'));
      const stopped = graceful.stop();
      // Long enough for a stop without a grace period to have stopped nginx.
      await new Promise((resolve) => setTimeout(resolve, 700));
      const healthz = await fetch(`http://127.0.0.1:${graceful.healthzPort}/healthz`);
      expect(healthz.status).toBe(503);
      expect(await answerOf(graceful, 'home.test')).toBe('alpha');
      const masterPid = graceful.dataPlane.masterPid!;
      expect(isProcessAlive(masterPid)).toBe(true);
      await stopped;
      expect(isProcessAlive(masterPid)).toBe(false);
    } finally {
      await graceful.stop();
    }
  });
});

describe('--default-ssl-certificate', () => {
  it('serves the Secret to unknown server names without a reload, and the self-signed one without it', async () => {
    await server.apply([tlsSecretManifest('default-cert', 'default.example.test', 'ingresskit')]);
    const withDefault = await startController(server, {
      podName: 'default-certificate',
      defaultSslCertificate: 'ingresskit/default-cert',
      updateStatus: false,
    });
    try {
      const commonName = async (name: string) => (await presentedCertificate(withDefault, name)).subject.CN;
      await eventually(async () => expect(await commonName('unknown.test')).toBe('default.example.test'));
      const reloads = withDefault.dataPlane.reloadCount;
      await server.apply([tlsSecretManifest('default-cert', 'renewed.example.test', 'ingresskit')]);
      await eventually(async () => expect(await commonName('unknown.test')).toBe('renewed.example.test'));
      expect(withDefault.dataPlane.reloadCount).toBe(reloads);
      // Plain HTTP to an unknown host is not sent to HTTPS because of the default certificate.
      expect((await request(withDefault, 'unknown.test')).status).toBe(404);
      await server
        .kubeConfig()
        .makeApiClient(CoreV1Api)
        .deleteNamespacedSecret({ name: 'default-cert', namespace: 'ingresskit' });
      await eventually(async () => expect(await commonName('unknown.test')).not.toBe('renewed.example.test'));
    } finally {
      await withDefault.stop();
    }
  });
});

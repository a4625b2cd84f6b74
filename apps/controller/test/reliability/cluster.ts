/**
 * The set-up every reliability case shares: local-apiserver with three backends on 127.0.0.1, a
 * few steady Ingresses (plain HTTP and HTTPS) whose routes must keep answering whatever happens,
 * and the check that a controller has converged to the server's state: its store holds exactly the
 * server's objects, and nginx runs the configuration those objects make.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, DiscoveryV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { extractIngressReferences, toStoredObject, type Ingress } from '@ingresskit/store';
import type { Controller } from '../../src/controller.js';
import type { DemoBackend } from '../../src/demo-backends.js';
import { viewOfSnapshot } from '../../src/cluster-view.js';
import { listenersOf } from '../../src/data-plane-render-options.js';
import { routeAll } from '../../src/ingress-routing.js';
import { routingOptionsOf } from '../../src/ingress-routing-options.js';
import {
  createTempDir,
  eventually,
  ingressClassManifest,
  ingressManifest,
  serviceManifests,
  startBackends,
  startLocalApiServer,
  type LocalApiServer,
} from '../harness.js';
import { startTraffic, type Route, type Traffic, type TrafficOptions } from './traffic.js';

/** The domain of every host in these cases; the test certificate covers `*.reliability.test`. */
export const DOMAIN = 'reliability.test';

/** A base64 certificate and key pair for a `kubernetes.io/tls` Secret. */
export interface TlsPair {
  crt: string;
  key: string;
}

/** What {@link startCluster} returns. */
export interface ReliabilityCluster {
  server: LocalApiServer;
  backends: Map<string, DemoBackend>;
  tls: TlsPair;
  /** The routes of the steady Ingresses, for the request loop. */
  steadyRoutes: Route[];
  /** A kubeconfig file for this server (for CLI commands and child processes). */
  kubeconfigPath: string;
  /** A directory removed by stop(). */
  dir: string;
  stop(): Promise<void>;
}

/** A self-signed EC certificate for `*.reliability.test`, made with openssl. */
export function createTlsPair(dir: string): TlsPair {
  const key = join(dir, 'tls.key');
  const crt = join(dir, 'tls.crt');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '30',
      '-subj',
      `/CN=*.${DOMAIN}`,
      '-addext',
      `subjectAltName=DNS:*.${DOMAIN}`,
      '-keyout',
      key,
      '-out',
      crt,
    ],
    { stdio: 'ignore' },
  );
  return { crt: readFileSync(crt).toString('base64'), key: readFileSync(key).toString('base64') };
}

/** A `kubernetes.io/tls` Secret. */
export function tlsSecretManifest(
  name: string,
  pair: TlsPair,
  namespace = 'default',
): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': pair.crt, 'tls.key': pair.key },
  };
}

/**
 * The annotation that makes an Ingress take part in the Ingress checksum (Tengine's config id is
 * the name's numeric suffix and this version); the steady Ingresses carry it.
 */
export const VERSION = { 'nginx.ingress.kubernetes.io/version': '1' };

/** An Ingress of class `nginx` for `host` with TLS from `secretName`. */
export function tlsIngressManifest(
  name: string,
  host: string,
  service: string,
  secretName: string,
  annotations?: Record<string, string>,
): Record<string, unknown> {
  const ingress = ingressManifest(name, {
    host,
    service,
    className: 'nginx',
    ...(annotations ? { annotations } : {}),
  });
  (ingress.spec as Record<string, unknown>).tls = [{ hosts: [host], secretName }];
  return ingress;
}

/**
 * Starts local-apiserver with backends alpha, beta, gamma, their Services, the `nginx`
 * IngressClass and the steady Ingresses steady-1..3: a.reliability.test → alpha,
 * b.reliability.test/api → beta, s.reliability.test (HTTPS) → gamma.
 */
export async function startCluster(): Promise<ReliabilityCluster> {
  const temp = await createTempDir();
  const tls = createTlsPair(temp.dir);
  const backends = await startBackends('alpha', 'beta', 'gamma');
  const server = await startLocalApiServer({ port: 0 });
  const backend = (name: string) => backends.get(name)!;
  await server.apply([
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ingresskit' } },
    ingressClassManifest('nginx'),
    ...serviceManifests('alpha', [backend('alpha')]),
    ...serviceManifests('beta', [backend('beta')]),
    ...serviceManifests('gamma', [backend('gamma')]),
    tlsSecretManifest('steady-tls', tls),
    ingressManifest('steady-1', {
      host: `a.${DOMAIN}`,
      service: 'alpha',
      className: 'nginx',
      annotations: VERSION,
    }),
    ingressManifest('steady-2', {
      host: `b.${DOMAIN}`,
      service: 'beta',
      className: 'nginx',
      path: '/api',
      annotations: VERSION,
    }),
    tlsIngressManifest('steady-3', `s.${DOMAIN}`, 'gamma', 'steady-tls', VERSION),
  ]);
  const kubeconfigPath = await server.writeKubeconfig(join(temp.dir, 'kubeconfig'));
  return {
    server,
    backends,
    tls,
    kubeconfigPath,
    dir: temp.dir,
    steadyRoutes: [
      { name: 'steady-1 http', host: `a.${DOMAIN}`, path: '/', tls: false, expect: 'alpha' },
      { name: 'steady-2 http', host: `b.${DOMAIN}`, path: '/api/items', tls: false, expect: 'beta' },
      { name: 'steady-3 https', host: `s.${DOMAIN}`, path: '/', tls: true, expect: 'gamma' },
    ],
    stop: async () => {
      await server.stop();
      for (const running of backends.values()) await running.stop();
      await temp.remove();
    },
  };
}

type Listed = { metadata?: { namespace?: string; name?: string; resourceVersion?: string } };

function versions(items: readonly Listed[]): Record<string, string> {
  return Object.fromEntries(
    items.map((item) => [
      `${item.metadata?.namespace ?? ''}/${item.metadata?.name ?? ''}`.replace(/^\//, ''),
      item.metadata?.resourceVersion ?? '',
    ]),
  );
}

/** Keys and resourceVersions of the objects the controller mirrors, as the server has them. */
export async function readServerState(
  kubeConfig: KubeConfig,
): Promise<Record<string, Record<string, string>>> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const networking = kubeConfig.makeApiClient(NetworkingV1Api);
  const discovery = kubeConfig.makeApiClient(DiscoveryV1Api);
  const ingresses = (await networking.listIngressForAllNamespaces()).items;
  // The store holds the Secrets Ingresses reference, and no other.
  const referenced = new Set(
    ingresses.flatMap(
      (ingress) => extractIngressReferences(toStoredObject(ingress, 'Ingress') as Ingress).secrets,
    ),
  );
  const secrets = (await core.listSecretForAllNamespaces()).items.filter(
    (secret) =>
      secret.type === 'kubernetes.io/tls' &&
      referenced.has(`${secret.metadata?.namespace}/${secret.metadata?.name}`),
  );
  return {
    Ingress: versions(ingresses),
    IngressClass: versions((await networking.listIngressClass()).items),
    Service: versions((await core.listServiceForAllNamespaces()).items),
    EndpointSlice: versions((await discovery.listEndpointSliceForAllNamespaces()).items),
    Secret: versions(secrets),
  };
}

/** The same, from the controller's store (TLS Secrets only, as the server side). */
export function readStoreState(controller: Controller): Record<string, Record<string, string>> {
  const snapshot = controller.store?.snapshot();
  if (snapshot === undefined) throw new Error('the controller has no store');
  return {
    Ingress: versions(snapshot.ingresses.list()),
    IngressClass: versions(snapshot.ingressClasses.list()),
    Service: versions(snapshot.services.list()),
    EndpointSlice: versions(snapshot.endpointSlices.list()),
    Secret: versions(snapshot.secrets.list().filter((secret) => secret.type === 'kubernetes.io/tls')),
  };
}

/**
 * Waits until the controller has converged to `server`: its store holds exactly the server's
 * objects (same keys, same resourceVersions), its route table is what a fresh pass over those
 * objects builds, and nginx holds all of it (nothing left to push, no restart since the push).
 */
export async function expectConverged(
  controller: Controller,
  server: LocalApiServer,
  timeoutMs = 30_000,
): Promise<void> {
  const kubeConfig = server.kubeConfig();
  await eventually(
    async () => expect(readStoreState(controller)).toEqual(await readServerState(kubeConfig)),
    timeoutMs,
    100,
  );
  await eventually(
    async () => {
      const fresh = routeAll(
        viewOfSnapshot(controller.store!.snapshot()),
        routingOptionsOf(controller.config, listenersOf(controller.config), Date.now),
      );
      expect(controller.routeTable()).toEqual(fresh.table());
      expect(await controller.dataPlane.isInSync()).toBe(true);
    },
    timeoutMs,
    100,
  );
}

/** `/explain` of the controller's HTTP server for `namespace/name`. */
export async function explainOverHttp(
  controller: Controller,
  key: string,
): Promise<{ owned: boolean; routes: unknown[]; problems: { field: string; message: string }[] }> {
  const response = await fetch(`http://127.0.0.1:${controller.healthzPort}/explain?ingress=${key}`);
  return (await response.json()) as {
    owned: boolean;
    routes: unknown[];
    problems: { field: string; message: string }[];
  };
}

/**
 * Starts the bounded request loop over the cluster's steady routes through the controller's nginx
 * (3,000 requests or 60 s unless `overrides` say otherwise).
 */
export function startSteadyTraffic(
  cluster: ReliabilityCluster,
  controller: Controller,
  overrides: Partial<Omit<TrafficOptions, 'httpPort' | 'httpsPort' | 'routes'>> = {},
): Traffic {
  return startTraffic({
    httpPort: controller.config.httpPort,
    httpsPort: controller.config.httpsPort,
    routes: cluster.steadyRoutes,
    maxRequests: 3_000,
    maxDurationMs: 60_000,
    ...overrides,
  });
}

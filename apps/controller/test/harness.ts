/**
 * Shared set-up of the integration tests: the local API server, controllers on free ports with
 * real nginx, small backends, requests through nginx, and polling until something holds.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import { createSelfSignedCertificate } from '@ingresskit/nginx-template';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalApiServer, type LocalApiServer } from '@ingresskit/local-apiserver';
import { EventsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { resolveControllerConfig, type ControllerConfig } from '../src/config.js';
import { Controller, type ControllerDependencies } from '../src/controller.js';
import { startDemoBackend, type DemoBackend } from '../src/demo-backends.js';
import { defaultFlags } from '../src/flags.js';
import { probe, type ProbeResponse } from '../src/http-probe.js';
import { createLogger } from '../src/logger.js';
import { resolveNginxBinary } from '../src/nginx-process.js';
import { findFreePort } from '../src/ports.js';

export { startLocalApiServer, type LocalApiServer };

/** A temporary directory removed by the returned function. */
export async function createTempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'ingresskit-test-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * An nginx binary (a wrapper script in `dir`) whose `nginx -t` fails while `failMarker` exists:
 * nginx-template never renders a configuration nginx refuses, so a real refusal needs help.
 */
export async function writeRefusingNginx(dir: string): Promise<{ wrapper: string; failMarker: string }> {
  const failMarker = join(dir, 'fail-next-test');
  const wrapper = join(dir, 'nginx-wrapper.sh');
  await writeFile(
    wrapper,
    `#!/bin/sh\nif [ "$1" = "-t" ] && [ -e '${failMarker}' ]; then echo "nginx: [emerg] refused on purpose by the test" >&2; exit 1; fi\nexec '${resolveNginxBinary()}' "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  return { wrapper, failMarker };
}

/** Free, distinct ports for one controller. */
export async function pickControllerPorts(): Promise<
  Pick<ControllerConfig, 'httpPort' | 'httpsPort' | 'healthzPort'>
> {
  const ports = new Set<number>();
  while (ports.size < 3) ports.add(await findFreePort());
  const [httpPort, httpsPort, healthzPort] = [...ports] as [number, number, number];
  return { httpPort, httpsPort, healthzPort };
}

/**
 * A controller config for tests: free ports, 127.0.0.1 only (backends too), one worker, no sync
 * throttle, a short lease.
 */
export async function createTestConfig(overrides: Partial<ControllerConfig> = {}): Promise<ControllerConfig> {
  const defaults = resolveControllerConfig(defaultFlags(), {});
  return {
    ...defaults,
    backendAddressPolicy: { ...defaults.backendAddressPolicy, allowLocalAddresses: true },
    ...(await pickControllerPorts()),
    healthzHost: '127.0.0.1',
    listenAddresses: ['127.0.0.1'],
    workerProcesses: 1,
    syncRateLimit: 0,
    electionTtlMs: 2_000,
    podName: 'ingresskit-test',
    podNamespace: 'ingresskit',
    publishStatusAddress: '10.0.0.1',
    updateStatusOnShutdown: false,
    ...overrides,
  };
}

/** Starts a controller against `server` and waits for its first configuration. */
export async function startController(
  server: LocalApiServer,
  overrides: Partial<ControllerConfig> = {},
  deps: Pick<ControllerDependencies, 'externalNames'> = {},
): Promise<Controller> {
  const config = await createTestConfig(overrides);
  const logger = createLogger({
    level: process.env.INGRESSKIT_TEST_LOG ?? 'silent',
    bindings: { replica: config.podName },
  });
  const controller = new Controller(config, { kubeConfig: server.kubeConfig(), logger, ...deps });
  await controller.start();
  await controller.whenReady();
  return controller;
}

/** Starts named backends; each answers `<name>: GET host/path`. */
export async function startBackends(...names: string[]): Promise<Map<string, DemoBackend>> {
  const backends = new Map<string, DemoBackend>();
  for (const name of names) backends.set(name, await startDemoBackend(name));
  return backends;
}

/** A GET through the controller's nginx. */
export function request(
  controller: Controller,
  host: string,
  path = '/',
  tls = false,
): Promise<ProbeResponse> {
  return probe({ port: tls ? controller.config.httpsPort : controller.config.httpPort, host, path, tls });
}

/** Retries `check` until it stops throwing (or the time is up, then its last error). */
export async function eventually<T>(
  check: () => Promise<T> | T,
  timeoutMs = 15_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}

/** Which backend answered: the name before the colon of the body, or the status when not 200. */
export async function answerOf(
  controller: Controller,
  host: string,
  path = '/',
  tls = false,
): Promise<string> {
  try {
    const response = await request(controller, host, path, tls);
    return response.status === 200 ? (response.body.split(':')[0] ?? '') : String(response.status);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** networking.k8s.io/v1 objects in YAML-ready shape. */
export function ingressManifest(
  name: string,
  options: {
    host: string;
    service: string;
    port?: number;
    className?: string;
    namespace?: string;
    annotations?: Record<string, string>;
    path?: string;
  },
): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      ...(options.annotations ? { annotations: options.annotations } : {}),
    },
    spec: {
      ...(options.className === undefined ? {} : { ingressClassName: options.className }),
      rules: [
        {
          host: options.host,
          http: {
            paths: [
              {
                path: options.path ?? '/',
                pathType: 'Prefix',
                backend: { service: { name: options.service, port: { number: options.port ?? 80 } } },
              },
            ],
          },
        },
      ],
    },
  };
}

/** An Ingress whose one path is the regular expression `path` (`use-regex`, ImplementationSpecific). */
export function regexIngressManifest(
  name: string,
  options: Omit<Parameters<typeof ingressManifest>[1], 'annotations'>,
): Record<string, unknown> {
  const ingress = ingressManifest(name, {
    ...options,
    annotations: { 'nginx.ingress.kubernetes.io/use-regex': 'true' },
  });
  const rule = (ingress.spec as { rules: { http: { paths: { pathType: string }[] } }[] }).rules[0]!;
  rule.http.paths[0]!.pathType = 'ImplementationSpecific';
  return ingress;
}

/** A Service and its EndpointSlice pointing at `backends` on 127.0.0.1 (one slice per backend). */
export function serviceManifests(
  name: string,
  backends: readonly DemoBackend[],
  namespace = 'default',
): Record<string, unknown>[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
    ...backends.map((backend) =>
      endpointSliceManifest(`${name}-${backend.name}`, name, backend.port, namespace),
    ),
  ];
}

/** One EndpointSlice of `service` with one ready endpoint 127.0.0.1:port. */
export function endpointSliceManifest(
  name: string,
  service: string,
  port: number,
  namespace = 'default',
): Record<string, unknown> {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace, labels: { 'kubernetes.io/service-name': service } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    ports: [{ name: 'http', port }],
  };
}

/** The IngressClass of the test controllers. */
export function ingressClassManifest(
  name: string,
  controller = 'ingresskit.dev/ingress-controller',
  isDefault = false,
): Record<string, unknown> {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: {
      name,
      ...(isDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}),
    },
    spec: { controller },
  };
}

/** events.k8s.io/v1 Events of a namespace. */
export async function listEvents(kubeConfig: KubeConfig, namespace: string) {
  const api = kubeConfig.makeApiClient(EventsV1Api);
  return (await api.listNamespacedEvent({ namespace })).items;
}

/** The controller ConfigMap of the ConfigMap tests (`--configmap ingresskit/ingresskit-controller`). */
export const CONTROLLER_CONFIGMAP = { namespace: 'ingresskit', name: 'ingresskit-controller' };

/** The manifest of CONTROLLER_CONFIGMAP holding `data`. */
export function controllerConfigMapManifest(data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: CONTROLLER_CONFIGMAP, data };
}

/** The `--tcp-services-configmap` of the test controllers that serve TCP services. */
export const TCP_SERVICES_CONFIGMAP = 'default/tcp-services';

/** The manifest of TCP_SERVICES_CONFIGMAP holding `data` (`"<port>": "<namespace>/<service>:<port>"`). */
export function tcpServicesConfigMapManifest(data: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'tcp-services', namespace: 'default' },
    data,
  };
}

/** `reason: note` of the Events regarding the ConfigMap `namespace/name`, once the controller has sent its own. */
export async function listConfigMapEvents(
  started: { controller: Controller; server: LocalApiServer },
  configMap: { namespace: string; name: string },
): Promise<string[]> {
  await started.controller.events.flush();
  return (await listEvents(started.server.kubeConfig(), configMap.namespace))
    .filter((event) => event.regarding?.kind === 'ConfigMap' && event.regarding.name === configMap.name)
    .map((event) => `${event.reason}: ${event.note}`);
}

/** Whether a process exists. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** An Opaque Secret in `default` holding `data` (plain text here, base64 in the manifest). */
export function opaqueSecretManifest(name: string, data: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default' },
    type: 'Opaque',
    data: Object.fromEntries(
      Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
    ),
  };
}

/** A kubernetes.io/tls Secret holding a new self-signed certificate for `host`. */
export function tlsSecretManifest(
  name: string,
  host: string,
  namespace = 'default',
): Record<string, unknown> {
  const { certificatePem, privateKeyPem } = createSelfSignedCertificate({ commonName: host });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace },
    type: 'kubernetes.io/tls',
    data: {
      'tls.crt': Buffer.from(certificatePem).toString('base64'),
      'tls.key': Buffer.from(privateKeyPem).toString('base64'),
    },
  };
}

/** The certificate nginx presents on the controller's HTTPS port to a client naming `serverName`. */
export function presentedCertificate(controller: Controller, serverName: string): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect(
      {
        host: '127.0.0.1',
        port: controller.config.httpsPort,
        servername: serverName,
        rejectUnauthorized: false,
      },
      () => {
        resolve(socket.getPeerCertificate());
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}

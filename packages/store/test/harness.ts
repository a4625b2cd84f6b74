/**
 * Shared pieces of the store's integration tests: a local API server with a store on it, object
 * fixtures, the server's state read through the typed client, and an event recorder that replays
 * change events and flags any duplicate or missing one.
 */
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import * as k8s from '@kubernetes/client-node';
import { type LocalApiServer, startLocalApiServer } from '@ingresskit/local-apiserver';
import {
  type ChangeEvent,
  createApiClient,
  createStore,
  extractGatewaySecrets,
  extractIngressReferences,
  type Gateway,
  type Ingress,
  type KubeObject,
  objectKey,
  optInKinds,
  type ResourceKind,
  resourceTypes,
  type Store,
  type StoreOptions,
  toStoredObject,
} from '../src/index.js';

export const optionalCrdsYaml = readFileSync(
  new URL('../testdata/optional-crds.yaml', import.meta.url),
  'utf8',
);

/** Kinds compared by the convergence check. */
export const comparedKinds: readonly ResourceKind[] = [
  'Ingress',
  'IngressClass',
  'Service',
  'EndpointSlice',
  'Secret',
  'ConfigMap',
  'IngressCheckSum',
  'SecretCheckSum',
  'GatewayClass',
  'Gateway',
  'HTTPRoute',
  'ReferenceGrant',
  'Namespace',
  'CustomResourceDefinition',
];

/** Fast retries so fault tests converge quickly. */
export const fastRetries: StoreOptions = {
  backoff: { initialMs: 20, maxMs: 300, jitter: 0.2 },
  pageSize: 7,
};

export interface Harness {
  readonly server: LocalApiServer;
  readonly kubeConfig: k8s.KubeConfig;
  readonly store: Store;
  readonly recorder: EventRecorder;
  readonly errors: Error[];
  /** Every list and watch the store sent, in order. */
  readonly requests: RecordedRequest[];
  readonly options: StoreOptions;
  /** Creates or replaces objects through the API (in-process apply). */
  apply(objects: object | object[] | string): Promise<void>;
  /** Deletes an object through the real client. */
  remove(kind: ResourceKind, key: string): Promise<void>;
  stop(): Promise<void>;
}

/** Starts a local API server (optionally seeded) and a store on it; the store is not started. */
export async function createHarness(options: StoreOptions = {}, seed?: object[] | string): Promise<Harness> {
  const server = await startLocalApiServer({ port: 0 });
  if (seed !== undefined) await server.apply(seed);
  const kubeConfig = server.kubeConfig();
  const merged = { ...fastRetries, ...options };
  const requests: RecordedRequest[] = [];
  const client = createApiClient(kubeConfig);
  const store = createStore(kubeConfig, {
    ...merged,
    client: {
      list: (request) => {
        requests.push({
          op: 'list',
          path: request.path,
          resourceVersion: request.resourceVersion,
          continueToken: request.continueToken,
          ...(request.fieldSelector === undefined ? {} : { fieldSelector: request.fieldSelector }),
          ...(request.metadataOnly === true ? { metadataOnly: true } : {}),
        });
        return client.list(request);
      },
      watch: (request, onEvent, onDone) => {
        requests.push({ op: 'watch', path: request.path, resourceVersion: request.resourceVersion });
        return client.watch(request, onEvent, onDone);
      },
    },
  });
  const recorder = new EventRecorder();
  const errors: Error[] = [];
  store.on('change', (event) => recorder.record(event));
  store.on('error', (error) => errors.push(error));
  const objects = kubeConfig.makeApiClient(k8s.KubernetesObjectApi);
  return {
    server,
    kubeConfig,
    store,
    recorder,
    errors,
    requests,
    options: merged,
    async apply(input) {
      await server.apply(input);
    },
    async remove(kind, key) {
      const type = resourceTypes[kind];
      const [namespace, name] = key.includes('/') ? key.split('/') : [undefined, key];
      await objects.delete({
        apiVersion: type.group === '' ? type.version : `${type.group}/${type.version}`,
        kind,
        metadata: { name, ...(namespace ? { namespace } : {}) },
      });
    },
    async stop() {
      await store.stop();
      await client.close();
      await server.stop();
    },
  };
}

/** A list or watch request the store made. */
export interface RecordedRequest {
  readonly op: 'list' | 'watch';
  readonly path: string;
  readonly resourceVersion?: string;
  readonly continueToken?: string;
  readonly fieldSelector?: string;
  readonly metadataOnly?: boolean;
}

type StateByKind = Record<string, Record<string, unknown>>;

/**
 * The state the store should hold, read through client-node's typed APIs (model instances with
 * `Date` timestamps) and custom-objects API, then shaped with `toStoredObject`.
 */
export async function readServerState(
  kubeConfig: k8s.KubeConfig,
  options: StoreOptions,
): Promise<StateByKind> {
  const net = kubeConfig.makeApiClient(k8s.NetworkingV1Api);
  const core = kubeConfig.makeApiClient(k8s.CoreV1Api);
  const discovery = kubeConfig.makeApiClient(k8s.DiscoveryV1Api);
  const extensions = kubeConfig.makeApiClient(k8s.ApiextensionsV1Api);
  const custom = kubeConfig.makeApiClient(k8s.CustomObjectsApi);
  const kinds = new Set(options.kinds ?? comparedKinds.filter((kind) => !optInKinds.includes(kind)));
  const selector = (kind: ResourceKind) => ({ labelSelector: options.labelSelectors?.[kind] });
  const crds = (await extensions.listCustomResourceDefinition()).items;
  const served = (kind: ResourceKind) =>
    crds.some((crd) => crd.metadata?.name === resourceTypes[kind].crdName);
  const readCustom = async (kind: ResourceKind): Promise<unknown[]> => {
    if (!served(kind)) return [];
    const type = resourceTypes[kind];
    const list = (await custom.listClusterCustomObject({
      group: type.group,
      version: type.version,
      plural: type.plural,
      ...selector(kind),
    })) as { items: unknown[] };
    return list.items;
  };
  const raw: Record<ResourceKind, () => Promise<unknown[]>> = {
    Ingress: async () => (await net.listIngressForAllNamespaces(selector('Ingress'))).items,
    IngressClass: async () => (await net.listIngressClass(selector('IngressClass'))).items,
    Service: async () => (await core.listServiceForAllNamespaces(selector('Service'))).items,
    EndpointSlice: async () =>
      (await discovery.listEndpointSliceForAllNamespaces(selector('EndpointSlice'))).items,
    Secret: async () => (await core.listSecretForAllNamespaces(selector('Secret'))).items,
    ConfigMap: async () => (await core.listConfigMapForAllNamespaces(selector('ConfigMap'))).items,
    Namespace: async () => (await core.listNamespace(selector('Namespace'))).items,
    IngressCheckSum: () => readCustom('IngressCheckSum'),
    SecretCheckSum: () => readCustom('SecretCheckSum'),
    GatewayClass: () => readCustom('GatewayClass'),
    Gateway: () => readCustom('Gateway'),
    HTTPRoute: () => readCustom('HTTPRoute'),
    ReferenceGrant: () => readCustom('ReferenceGrant'),
    CustomResourceDefinition: () => Promise.resolve(crds),
  };
  const namespaces =
    options.namespaces && options.namespaces.length > 0 ? new Set(options.namespaces) : undefined;
  const state: StateByKind = {};
  const watchesOptional = comparedKinds.some((kind) => resourceTypes[kind].crdName && kinds.has(kind));
  for (const kind of comparedKinds) {
    const watched = kind === 'CustomResourceDefinition' ? watchesOptional : kinds.has(kind);
    if (!watched) continue;
    const entries: Record<string, KubeObject> = {};
    for (const item of await raw[kind]()) {
      const object = toStoredObject(item, kind)!;
      const namespace = object.metadata.namespace;
      if (namespaces && resourceTypes[kind].namespaced && !namespaces.has(namespace ?? '')) continue;
      entries[objectKey(object)] = object;
    }
    state[kind] = entries;
  }
  if (state.Secret !== undefined && options.keepAllSecrets !== true) {
    const referenced = new Set<string>(options.keepSecrets ?? []);
    for (const ingress of Object.values(state.Ingress ?? {})) {
      for (const key of extractIngressReferences(ingress as Ingress, options.secretAnnotations).secrets) {
        referenced.add(key);
      }
    }
    for (const gateway of Object.values(state.Gateway ?? {})) {
      for (const key of extractGatewaySecrets(gateway as Gateway)) referenced.add(key);
    }
    for (const key of Object.keys(state.Secret)) if (!referenced.has(key)) delete state.Secret[key];
  }
  // Optional kinds without a CRD are expected absent (not empty) from the store's view.
  for (const kind of comparedKinds) {
    if (resourceTypes[kind].crdName && state[kind] !== undefined && !served(kind)) delete state[kind];
  }
  return state;
}

/** What the store's snapshot holds, in the same shape as {@link readServerState}. */
export function readStoreState(store: Store): StateByKind {
  const snapshot = store.snapshot();
  const state: StateByKind = {};
  for (const kind of comparedKinds) {
    if (!snapshot.isAvailable(kind)) continue;
    state[kind] = Object.fromEntries(snapshot.objectsOf(kind).entries());
  }
  return state;
}

/** Waits until the store equals the server (and the replayed events equal the store), or fails with a diff. */
export async function expectConverged(harness: Harness, timeoutMs = 15_000): Promise<StateByKind> {
  const deadline = Date.now() + timeoutMs;
  let expected: StateByKind = {};
  let actual: StateByKind = {};
  for (;;) {
    expected = await readServerState(harness.kubeConfig, harness.options);
    actual = readStoreState(harness.store);
    if (isDeepStrictEqual(toPlain(actual), toPlain(expected))) break;
    if (Date.now() > deadline) {
      throw new Error(`store did not converge:\n${describeDifference(expected, actual)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const replay = harness.recorder.replay();
  if (replay.problems.length > 0)
    throw new Error(`event stream is inconsistent:\n${replay.problems.join('\n')}`);
  for (const kind of Object.keys(actual)) {
    const replayed = Object.fromEntries(replay.state.get(kind as ResourceKind) ?? []);
    if (!isDeepStrictEqual(toPlain(replayed), toPlain(actual[kind]))) {
      throw new Error(
        `replayed ${kind} events differ from the snapshot:\n${describeDifference({ [kind]: actual[kind]! }, { [kind]: replayed })}`,
      );
    }
  }
  return expected;
}

function toPlain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function describeDifference(expected: StateByKind, actual: StateByKind): string {
  const lines: string[] = [];
  for (const kind of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    const want = expected[kind];
    const have = actual[kind];
    if (want === undefined || have === undefined) {
      lines.push(`${kind}: ${want === undefined ? 'unexpected in store' : 'missing from store'}`);
      continue;
    }
    for (const key of new Set([...Object.keys(want), ...Object.keys(have)])) {
      if (!(key in have)) lines.push(`${kind} ${key}: missing from store`);
      else if (!(key in want)) lines.push(`${kind} ${key}: not on the server`);
      else if (!isDeepStrictEqual(toPlain(want[key]), toPlain(have[key]))) {
        lines.push(
          `${kind} ${key}: differs\n  server ${JSON.stringify(want[key])}\n  store  ${JSON.stringify(have[key])}`,
        );
      }
    }
  }
  return lines.join('\n');
}

/** Records change events and replays them, flagging duplicates, gaps and broken old/new chains. */
export class EventRecorder {
  readonly events: ChangeEvent[] = [];

  record(event: ChangeEvent): void {
    this.events.push(event);
  }

  count(kind: ResourceKind, type: ChangeEvent['type']): number {
    return this.events.filter((event) => event.kind === kind && event.type === type).length;
  }

  replay(): { state: Map<ResourceKind, Map<string, KubeObject>>; problems: string[] } {
    const state = new Map<ResourceKind, Map<string, KubeObject>>();
    const problems: string[] = [];
    this.events.forEach((event, index) => {
      const objects = state.get(event.kind) ?? new Map<string, KubeObject>();
      state.set(event.kind, objects);
      const current = objects.get(event.key);
      const where = `#${index} ${event.type} ${event.kind} ${event.key}`;
      if (event.type === 'added') {
        if (current !== undefined) problems.push(`${where}: added twice (duplicate)`);
        objects.set(event.key, event.newObject!);
      } else if (event.type === 'updated') {
        if (current === undefined) problems.push(`${where}: update of an object never added (missing add)`);
        else if (current !== event.oldObject)
          problems.push(`${where}: oldObject is not the last state (missed update)`);
        if (event.oldObject?.metadata.resourceVersion === event.newObject?.metadata.resourceVersion) {
          problems.push(`${where}: update without a new resourceVersion (duplicate)`);
        }
        objects.set(event.key, event.newObject!);
      } else {
        if (current === undefined) problems.push(`${where}: delete of an absent object (duplicate)`);
        else if (current !== event.oldObject)
          problems.push(`${where}: oldObject is not the last state (missed update)`);
        objects.delete(event.key);
      }
    });
    return { state, problems };
  }
}

/** Waits for `predicate` to hold, polling; fails after `timeoutMs`. */
export async function waitFor(predicate: () => boolean, message: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// ---------------------------------------------------------------------------------------------
// Fixtures

export function namespace(name: string, labels?: Record<string, string>): object {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } };
}

export function ingress(
  ns: string,
  name: string,
  options: {
    className?: string;
    legacyClass?: string;
    service?: string;
    defaultService?: string;
    tlsSecret?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    host?: string;
  } = {},
): object {
  const annotations = { ...options.annotations };
  if (options.legacyClass) annotations['kubernetes.io/ingress.class'] = options.legacyClass;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: ns, labels: options.labels, annotations },
    spec: {
      ...(options.className ? { ingressClassName: options.className } : {}),
      ...(options.defaultService
        ? { defaultBackend: { service: { name: options.defaultService, port: { number: 80 } } } }
        : {}),
      ...(options.tlsSecret
        ? { tls: [{ hosts: [options.host ?? `${name}.example.com`], secretName: options.tlsSecret }] }
        : {}),
      rules: [
        {
          host: options.host ?? `${name}.example.com`,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: options.service ?? 'web', port: { number: 80 } } },
              },
            ],
          },
        },
      ],
    },
  };
}

export function ingressClass(name: string, controller = 'k8s.io/ingresskit'): object {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: { name },
    spec: { controller },
  };
}

export function service(ns: string, name: string, labels?: Record<string, string>, port = 80): object {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: ns, labels },
    spec: { selector: { app: name }, ports: [{ name: 'http', port, targetPort: 8080, protocol: 'TCP' }] },
  };
}

export function endpointSlice(ns: string, name: string, serviceName: string, addresses: string[]): object {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: ns, labels: { 'kubernetes.io/service-name': serviceName } },
    addressType: 'IPv4',
    endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  };
}

export function secret(ns: string, name: string, type = 'Opaque', value = 'dmFsdWU='): object {
  const data = type === 'kubernetes.io/tls' ? { 'tls.crt': value, 'tls.key': value } : { value };
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: ns }, type, data };
}

export function configMap(
  ns: string,
  name: string,
  data: Record<string, string>,
  labels?: Record<string, string>,
): object {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data };
}

export function gatewayClass(name: string, controllerName = 'ingresskit.dev/gateway'): object {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'GatewayClass',
    metadata: { name },
    spec: { controllerName },
  };
}

export function gateway(ns: string, name: string, className: string): object {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: ns },
    spec: { gatewayClassName: className, listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
  };
}

export function httpRoute(ns: string, name: string, gatewayName: string): object {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name, namespace: ns },
    spec: { parentRefs: [{ name: gatewayName }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
  };
}

/** A v1 ReferenceGrant (the store reads it as v1beta1: both versions share one storage). */
export function referenceGrant(ns: string, name: string, fromNamespace: string): object {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ReferenceGrant',
    metadata: { name, namespace: ns },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: fromNamespace }],
      to: [{ group: '', kind: 'Service' }],
    },
  };
}

export function ingressCheckSum(ns: string, name: string, checksum: string): object {
  return {
    apiVersion: 'tengine.taobao.org/v1',
    kind: 'IngressCheckSum',
    metadata: { name, namespace: ns },
    spec: { checksum, ids: '1-1', timestamp: '2024-01-01T00:00:00Z' },
  };
}

export function secretCheckSum(ns: string, name: string, checksum: string): object {
  return {
    apiVersion: 'tengine.taobao.org/v1',
    kind: 'SecretCheckSum',
    metadata: { name, namespace: ns },
    spec: { checksum, ids: '1-1-abc', timestamp: '2024-01-01T00:00:00Z' },
  };
}

/** A namespace with one object of every core kind, wired together (Ingress → Service, Secret, class). */
export function coreFixture(ns: string): object[] {
  return [
    namespace(ns),
    ingressClass(`${ns}-class`),
    service(ns, 'web'),
    endpointSlice(ns, 'web-abc', 'web', ['10.0.0.1']),
    secret(ns, 'cert', 'kubernetes.io/tls'),
    secret(ns, 'auth'),
    secret(ns, 'unrelated'),
    configMap(ns, 'settings', { 'proxy-body-size': '1m' }),
    ingress(ns, 'front', {
      className: `${ns}-class`,
      tlsSecret: 'cert',
      annotations: { 'nginx.ingress.kubernetes.io/auth-secret': 'auth' },
    }),
  ];
}

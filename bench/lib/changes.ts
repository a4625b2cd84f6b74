/**
 * The changes the system scenarios write to local-apiserver, each with the request through nginx
 * that shows it once it is served: an Ingress edit (a new Prefix path), an endpoint move (the
 * Service's only endpoint goes to another backend), a certificate change (the Secret of a TLS
 * Ingress gets another certificate), an annotation change (an allowlist that refuses 127.0.0.1,
 * then its removal), and an Ingress created or deleted with its Service and EndpointSlice.
 * A ChangeMaker keeps what it wrote, so every change has a known expected answer.
 */
import { performance } from 'node:perf_hooks';
import type { LocalApiServer } from '@ingresskit/local-apiserver';
import type { BenchCluster } from './cluster.js';
import { CERTIFICATE_ANSWER, waitForAnswer, type ControllerPorts } from './controller-process.js';
import {
  endpointSliceObject,
  ingressObject,
  initialBackendOf,
  initialCertificateOf,
  objectsOfIngress,
  refOf,
  secretObject,
  TLS_EVERY,
  type IngressRef,
  type IngressShape,
} from './fixture.js';

/** What can change. */
export type ChangeKind = 'edit' | 'endpoint' | 'certificate' | 'annotation' | 'create' | 'delete';

/** Where a change shows through nginx and what answers once it is served. */
export interface Probe {
  host: string;
  path: string;
  tls: boolean;
  /** A backend name, an HTTP status (`404`, `403`), or `cert:<fingerprint>`. */
  expected: string;
}

/** One change, not yet written. */
export interface Change {
  kind: ChangeKind;
  ref: IngressRef;
  /** Writes the change to the API server. */
  write(): Promise<void>;
  probe: Probe;
}

/** Makes changes against one cluster; see the module comment. */
export interface ChangeMaker {
  /** The next change of `kind`, on an Ingress no other pending change holds. */
  make(kind: ChangeKind): Change;
  /** Whether a change of `kind` can be made now (`delete` needs an Ingress created before). */
  canMake(kind: ChangeKind): boolean;
  /** Keeps later changes off `change`'s Ingress until {@link release} (while its probe waits). */
  hold(change: Change): void;
  release(change: Change): void;
  /** Probes of Ingresses the maker never touches (for background load): the first `n` of them. */
  untouchedProbes(n: number): Probe[];
}

const ALLOWLIST = 'nginx.ingress.kubernetes.io/allowlist-source-range';
/** TEST-NET-1: never 127.0.0.1, so nginx answers 403 once the annotation is served. */
const REFUSING_RANGE = '192.0.2.0/24';
/** A step coprime with any fixture size (a prime above them), to spread changes over the Ingresses. */
const STEP = 7919;

/** The REST path of a namespaced fixture object. */
function objectPath(object: Record<string, unknown>): string {
  const { name, namespace } = object.metadata as { name: string; namespace: string };
  const resource: Record<string, string> = {
    Ingress: '/apis/networking.k8s.io/v1/namespaces/%s/ingresses/',
    Service: '/api/v1/namespaces/%s/services/',
    EndpointSlice: '/apis/discovery.k8s.io/v1/namespaces/%s/endpointslices/',
    Secret: '/api/v1/namespaces/%s/secrets/',
  };
  const template = resource[object.kind as string];
  if (template === undefined) throw new Error(`cannot delete a ${String(object.kind)}`);
  return template.replace('%s', namespace) + name;
}

/** Deletes `objects` from local-apiserver through its REST API, in reverse order. */
export async function deleteObjects(
  server: LocalApiServer,
  objects: readonly Record<string, unknown>[],
): Promise<void> {
  for (const object of [...objects].reverse()) {
    const response = await fetch(`${server.url}${objectPath(object)}`, { method: 'DELETE' });
    await response.body?.cancel();
    if (response.status !== 200 && response.status !== 202 && response.status !== 404)
      throw new Error(`DELETE ${objectPath(object)} answered ${response.status}`);
  }
}

/**
 * A ChangeMaker for `cluster`. Indices of the fixture Ingresses are walked with a large prime step
 * from a different offset per kind, so consecutive changes hit Ingresses far apart; created
 * Ingresses get indices from `cluster.count` up and have no TLS.
 */
export function createChangeMaker(cluster: BenchCluster, options: { untouched?: number } = {}): ChangeMaker {
  const { backends, certificates } = cluster.fixture;
  const count = cluster.count;
  const server = cluster.server;
  // The last `untouched` Ingresses below the newest are left alone for background load.
  const untouched = Math.min(options.untouched ?? 0, Math.floor(count / 2));
  const changeable = count - untouched;
  const backendOf = new Map<number, number>();
  const certificateOf = new Map<number, number>();
  const shapes = new Map<number, IngressShape>();
  const refused = new Set<number>();
  const held = new Set<number>();
  const created: number[] = [];
  const counters = new Map<ChangeKind, number>();
  let nextCreated = count;
  let edits = 0;

  const backendIndexOf = (index: number) => backendOf.get(index) ?? initialBackendOf(index, backends.length);
  const expectedAnswerOf = (index: number) =>
    refused.has(index) ? '403' : backends[backendIndexOf(index)]!.name;
  const next = (kind: ChangeKind) => {
    const n = counters.get(kind) ?? 0;
    counters.set(kind, n + 1);
    return n;
  };
  // The changeable Ingresses are 0 … changeable-1 except the last, which the controllers' readiness
  // check asks for; a refused Ingress is skipped by other kinds until its allowlist goes again, and
  // a held one until its probe is done.
  const pick = (kind: ChangeKind, offset: number) => {
    for (;;) {
      const index = (offset + next(kind) * STEP) % (changeable - 1);
      if (!refused.has(index) && !held.has(index)) return index;
    }
  };
  const deletable = () => created.findIndex((index) => !held.has(index));
  const writeIngress = (ref: IngressRef) => server.apply(ingressObject(ref, shapes.get(ref.index) ?? {}));
  const probeOf = (ref: IngressRef, path: string, expected: string): Probe => ({
    host: ref.host,
    path,
    tls: ref.tls,
    expected,
  });

  const makers: Record<ChangeKind, () => Change> = {
    edit: () => {
      const ref = refOf(pick('edit', 0));
      const path = `/edit-${edits++}`;
      return {
        kind: 'edit',
        ref,
        probe: probeOf(ref, path, expectedAnswerOf(ref.index)),
        write: async () => {
          shapes.set(ref.index, { ...shapes.get(ref.index), extraPath: path });
          await writeIngress(ref);
        },
      };
    },
    endpoint: () => {
      const ref = refOf(pick('endpoint', 1));
      const to = (backendIndexOf(ref.index) + 1) % backends.length;
      return {
        kind: 'endpoint',
        ref,
        probe: probeOf(ref, '/app', backends[to]!.name),
        write: async () => {
          backendOf.set(ref.index, to);
          await server.apply(endpointSliceObject(ref, backends[to]!.port));
        },
      };
    },
    certificate: () => {
      const tlsCount = Math.floor((changeable - 1) / TLS_EVERY);
      let ref = refOf(((next('certificate') * STEP) % tlsCount) * TLS_EVERY);
      while (held.has(ref.index)) ref = refOf(((next('certificate') * STEP) % tlsCount) * TLS_EVERY);
      const from = certificateOf.get(ref.index) ?? initialCertificateOf(ref.index, certificates.length);
      const to = (from + 1) % certificates.length;
      return {
        kind: 'certificate',
        ref,
        probe: probeOf(ref, '/app', `${CERTIFICATE_ANSWER}${certificates[to]!.fingerprint}`),
        write: async () => {
          certificateOf.set(ref.index, to);
          await server.apply(secretObject(ref, certificates[to]!));
        },
      };
    },
    // Refuses one Ingress, and the next annotation change lets it in again: at most one is refused.
    annotation: () => {
      const [restricted] = refused;
      const ref = refOf(restricted ?? pick('annotation', 2));
      const refuse = restricted === undefined;
      return {
        kind: 'annotation',
        ref,
        probe: probeOf(ref, '/app', refuse ? '403' : backends[backendIndexOf(ref.index)]!.name),
        write: async () => {
          const { annotations: _dropped, ...rest } = shapes.get(ref.index) ?? {};
          shapes.set(ref.index, refuse ? { ...rest, annotations: { [ALLOWLIST]: REFUSING_RANGE } } : rest);
          if (refuse) refused.add(ref.index);
          else refused.delete(ref.index);
          await writeIngress(ref);
        },
      };
    },
    create: () => {
      const ref = refOf(nextCreated++, 0);
      const backend = backends[initialBackendOf(ref.index, backends.length)]!;
      return {
        kind: 'create',
        ref,
        probe: probeOf(ref, '/app', backend.name),
        write: async () => {
          created.push(ref.index);
          await server.apply(objectsOfIngress(ref, backend.port, undefined));
        },
      };
    },
    // The oldest created Ingress goes; nginx answers its host from the catch-all server.
    delete: () => {
      const at = deletable();
      if (at < 0) throw new Error('nothing to delete: create first');
      const [index] = created.splice(at, 1) as [number];
      const ref = refOf(index, 0);
      return {
        kind: 'delete',
        ref,
        probe: probeOf(ref, '/app', '404'),
        write: () =>
          deleteObjects(server, objectsOfIngress(ref, backends[0]!.port, undefined)).then(() => undefined),
      };
    },
  };
  return {
    make: (kind) => makers[kind](),
    canMake: (kind) => kind !== 'delete' || deletable() >= 0,
    hold: (change) => held.add(change.ref.index),
    release: (change) => held.delete(change.ref.index),
    untouchedProbes: (n) =>
      Array.from({ length: Math.min(n, untouched) }, (_, i) => {
        const ref = refOf(changeable + i);
        return probeOf(ref, '/app', expectedAnswerOf(ref.index));
      }),
  };
}

/** The port a probe goes to. */
export function portOf(ports: ControllerPorts, probe: Probe): number {
  return probe.tls ? ports.https : ports.http;
}

/**
 * Writes `change` and polls its probe every `intervalMs` until nginx shows it; resolves to the
 * milliseconds from the start of the write to the first request that saw it.
 */
export async function measureChange(
  ports: ControllerPorts,
  change: Change,
  options: { intervalMs: number; timeoutMs?: number },
): Promise<number> {
  const start = performance.now();
  await change.write();
  const seenAt = await waitForAnswer(
    portOf(ports, change.probe),
    change.probe.host,
    change.probe.path,
    change.probe.expected,
    {
      tls: change.probe.tls,
      intervalMs: options.intervalMs,
      timeoutMs: options.timeoutMs ?? 300_000,
    },
  );
  return seenAt - start;
}

/** A change kind's label in tables. */
export function describeChange(kind: ChangeKind): string {
  return {
    edit: 'Ingress edit (new Prefix path)',
    endpoint: 'endpoint move (EndpointSlice)',
    certificate: 'TLS certificate change (Secret)',
    annotation: 'annotation (allowlist policy) on / off',
    create: 'Ingress created',
    delete: 'Ingress deleted',
  }[kind];
}

/**
 * Test-only builders for the plain Gateway API objects the translation reads. Not exported from
 * index.ts. Objects come back deep-frozen, so a translation that changed its input would throw.
 */
import { readFileSync } from 'node:fs';
import type {
  GatewayApiConfig,
  GatewayLike,
  HTTPRouteLike,
  HTTPRouteRuleLike,
  ListenerLike,
  NamespaceLike,
  ParentReferenceLike,
  ReferenceGrantLike,
  SecretLike,
  ServiceLike,
} from '../types.js';

const tlsDir = new URL('../../testdata/tls/', import.meta.url);

/** The controller name of the fixtures. */
export const CONTROLLER = 'ingresskit.dev/gateway-controller';

/** Ports 80 (HTTP, listener `http`) and 443 (HTTPS, listener `https`), class `ingresskit`. */
export const config: GatewayApiConfig = {
  controllerName: CONTROLLER,
  gatewayClassNames: ['ingresskit'],
  ports: [
    { port: 80, protocol: 'HTTP', listener: 'http' },
    { port: 443, protocol: 'HTTPS', listener: 'https' },
  ],
};

/** Freezes `value` and everything reachable from it; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

interface MetaOptions {
  namespace?: string;
  created?: string;
  generation?: number;
  uid?: string;
  resourceVersion?: string;
}

function metadata(name: string, options: MetaOptions) {
  return {
    name,
    namespace: options.namespace ?? 'default',
    creationTimestamp: options.created ?? '2026-01-01T00:00:00Z',
    generation: options.generation ?? 1,
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }),
  };
}

/** An HTTP listener on port 80 (override anything). */
export function httpListener(name = 'http', overrides: Record<string, unknown> = {}): ListenerLike {
  return { name, port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } }, ...overrides };
}

/** An HTTPS listener on port 443 terminating with the Secrets `certificates` (names or refs). */
export function httpsListener(
  name = 'https',
  certificates: (string | Record<string, unknown>)[] = ['secure-cert'],
  overrides: Record<string, unknown> = {},
): ListenerLike {
  return {
    name,
    port: 443,
    protocol: 'HTTPS',
    tls: {
      mode: 'Terminate',
      certificateRefs: certificates.map((ref) =>
        typeof ref === 'string' ? { kind: 'Secret', name: ref } : ref,
      ),
    },
    allowedRoutes: { namespaces: { from: 'All' } },
    ...overrides,
  };
}

/** A Gateway of class `ingresskit` (unless `className`) with `listeners`. */
export function gateway(
  name: string,
  listeners: ListenerLike[],
  options: MetaOptions & { className?: string } = {},
): GatewayLike {
  return deepFreeze({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: metadata(name, { namespace: 'infra', ...options }),
    spec: { gatewayClassName: options.className ?? 'ingresskit', listeners },
  });
}

/** A parentRef to Gateway `infra/<name>` (or `namespace/name`), with optional sectionName and port. */
export function parent(name = 'gw', extra: Omit<ParentReferenceLike, 'name'> = {}): ParentReferenceLike {
  return { namespace: 'infra', name, ...extra };
}

/** A rule forwarding `matches` to the Services `backends` (name, or name:port, or name:port:weight). */
export function rule(
  matches: Record<string, unknown>[] | undefined,
  backends: (string | Record<string, unknown>)[] = ['app'],
  extra: Record<string, unknown> = {},
): HTTPRouteRuleLike {
  return {
    ...(matches === undefined ? {} : { matches }),
    backendRefs: backends.map((backend) => {
      if (typeof backend !== 'string') return backend;
      const [name, port, weight] = backend.split(':');
      return { name, port: Number(port ?? 80), ...(weight === undefined ? {} : { weight: Number(weight) }) };
    }),
    ...extra,
  };
}

/** A PathPrefix (or other type) match. */
export function pathMatch(
  value: string,
  type = 'PathPrefix',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { path: { type, value }, ...extra };
}

/** An HTTPRoute attached to `parentRefs` (Gateway `infra/gw` by default). */
export function httpRoute(
  name: string,
  spec: { parentRefs?: ParentReferenceLike[]; hostnames?: string[]; rules?: HTTPRouteRuleLike[] },
  options: MetaOptions = {},
): HTTPRouteLike {
  return deepFreeze({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: metadata(name, options),
    spec: { parentRefs: spec.parentRefs ?? [parent()], ...spec },
  });
}

/** A ClusterIP Service with `ports`. */
export function service(
  name: string,
  namespace = 'default',
  ports = [80],
  resourceVersion?: string,
): ServiceLike {
  return deepFreeze({
    metadata: { name, namespace, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
    spec: { type: 'ClusterIP', ports: ports.map((port) => ({ port, protocol: 'TCP' })) },
  });
}

/** Reads a fixture from testdata/tls (e.g. `secure.crt`). */
export function readTlsFixture(file: string): string {
  return readFileSync(new URL(file, tlsDir), 'utf8');
}

/** A kubernetes.io/tls Secret holding the fixture `secure` (secure.example.com) or `wildcard`. */
export function tlsSecret(
  name: string,
  fixture: 'secure' | 'wildcard' = 'secure',
  namespace = 'infra',
): SecretLike {
  return deepFreeze({
    metadata: { name, namespace },
    type: 'kubernetes.io/tls',
    stringData: { 'tls.crt': readTlsFixture(`${fixture}.crt`), 'tls.key': readTlsFixture(`${fixture}.key`) },
  });
}

/** A ReferenceGrant in `namespace` from `from.kind` in `from.namespace` to `to.kind` (named or all). */
export function referenceGrant(
  name: string,
  namespace: string,
  from: { kind: string; namespace: string },
  to: { kind: string; name?: string },
): ReferenceGrantLike {
  return deepFreeze({
    metadata: { name, namespace },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', ...from }],
      to: [{ group: '', ...to }],
    },
  });
}

/** A Namespace with `labels`. */
export function namespaceObject(name: string, labels: Record<string, string> = {}): NamespaceLike {
  return deepFreeze({ metadata: { name, labels } });
}

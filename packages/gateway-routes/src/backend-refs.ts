/**
 * The backendRefs of an HTTPRoute rule (and a mirror's) → weighted route-model backends: a Service
 * port the route may use, or a 500 share for one it cannot, with the first such problem recorded
 * for the route's ResolvedRefs condition.
 */
import { namespacedKey } from '@ingresskit/kube-objects';
import { describeValue, serviceBackendIdOf, type WeightedBackend } from '@ingresskit/route-model';
import { RouteReason } from './conditions.js';
import { arrayOr, checkDnsLabel, isPortNumber, objectOr, optionalString } from './grammar.js';
import { InvalidRule } from './invalid-rule.js';
import { GATEWAY_GROUP, isReferenceAllowed } from './reference-grants.js';
import type { GatewayApiReferences } from './types.js';
import type { GatewayApiProblemCode, GatewayApiProblemLog } from './problem-codes.js';

/** Why a backend reference cannot be served, as the route's ResolvedRefs condition says it. */
export interface RefProblem {
  reason: string;
  message: string;
}

/** What resolving a route's backend references records, for its status and its memo keys. */
export interface BackendRefRecord {
  /** The first backend reference that could not be resolved, in rule order. */
  refProblem: RefProblem | undefined;
  /** `namespace/name` of every Service referred to (found or not). */
  services: Set<string>;
  /** Namespaces whose ReferenceGrants were consulted. */
  grantNamespaces: Set<string>;
}

/** The route whose backend references are resolved, what they are resolved against, and where that is recorded. */
export interface BackendContext {
  route: { namespace: string };
  references: GatewayApiReferences;
  record: BackendRefRecord;
}

const MAX_WEIGHT = 1_000_000;

/** The ResolvedRefs reasons of a backendRef, and the code of the problem each is. */
const CODE_OF_REASON = {
  [RouteReason.BackendNotFound]: 'backend-not-found',
  [RouteReason.InvalidKind]: 'invalid-backend-kind',
  [RouteReason.RefNotPermitted]: 'backend-ref-not-permitted',
} as const satisfies Readonly<Record<string, GatewayApiProblemCode>>;

function noteRefProblem(
  context: BackendContext,
  reason: keyof typeof CODE_OF_REASON,
  message: string,
  log: GatewayApiProblemLog,
  field: string,
  value?: unknown,
) {
  const outcome = field.includes('.requestMirror.')
    ? 'requests are not mirrored'
    : 'its share of requests is answered with 500';
  log.error(CODE_OF_REASON[reason], field, `${message}; ${outcome}`, value);
  context.record.refProblem ??= { reason, message: `${field}: ${message}` };
}

/**
 * Reads one backendRef (or a mirror's): a Service port the route may use, as a backend id
 * `namespace/service:port`, or undefined when it cannot be served (noted as the route's ResolvedRefs).
 */
export function resolveBackendRef(
  raw: unknown,
  field: string,
  context: BackendContext,
  log: GatewayApiProblemLog,
): string | undefined {
  const ref = objectOr<{ group: unknown; kind: unknown; name: unknown; namespace: unknown; port: unknown }>(
    raw,
  );
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Service';
  if (group !== '' || kind !== 'Service') {
    noteRefProblem(
      context,
      RouteReason.InvalidKind,
      `${describeValue(group) ?? ''}/${describeValue(kind) ?? ''} is not a supported backend kind (core Service)`,
      log,
      field,
    );
    return undefined;
  }
  const namespace = optionalString(ref.namespace) ?? context.route.namespace;
  if (checkDnsLabel(namespace) !== undefined || checkDnsLabel(ref.name) !== undefined) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      'does not name a Service',
      log,
      `${field}.name`,
      ref.name,
    );
    return undefined;
  }
  const name = ref.name as string;
  if (namespace !== context.route.namespace) {
    context.record.grantNamespaces.add(namespace);
    const allowed = isReferenceAllowed(
      { group: GATEWAY_GROUP, kind: 'HTTPRoute', namespace: context.route.namespace },
      { group: '', kind: 'Service', namespace, name },
      context.references.referenceGrants(namespace),
    );
    if (!allowed) {
      noteRefProblem(
        context,
        RouteReason.RefNotPermitted,
        `Service ${namespace}/${name} is in another namespace and no ReferenceGrant there allows it`,
        log,
        field,
      );
      return undefined;
    }
  }
  if (!isPortNumber(ref.port)) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      'a Service backend needs a port',
      log,
      `${field}.port`,
      ref.port,
    );
    return undefined;
  }
  const port = ref.port;
  context.record.services.add(namespacedKey(namespace, name));
  const service = context.references.service(namespace, name);
  if (service === undefined || service === null) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      `Service ${namespace}/${name} does not exist`,
      log,
      field,
    );
    return undefined;
  }
  const spec = objectOr<{ type: unknown; ports: unknown }>(objectOr<{ spec: unknown }>(service).spec);
  const hasPort =
    spec.type === 'ExternalName' ||
    arrayOr(spec.ports).some((entry) => objectOr<{ port: unknown }>(entry).port === port);
  if (!hasPort) {
    noteRefProblem(
      context,
      RouteReason.BackendNotFound,
      `Service ${namespace}/${name} has no port ${port}`,
      log,
      `${field}.port`,
      port,
    );
    return undefined;
  }
  return serviceBackendIdOf({ namespace, name, port });
}

/** Translates the backendRefs at `field`; throws InvalidRule for a weight or filter that cannot be served. */
export function translateBackends(
  raw: unknown,
  field: string,
  context: BackendContext,
  log: GatewayApiProblemLog,
): WeightedBackend[] {
  const members: WeightedBackend[] = [];
  for (const [index, entry] of arrayOr(raw).entries()) {
    const at = `${field}[${index}]`;
    const ref = objectOr<{ weight: unknown; filters: unknown }>(entry);
    const weight = ref.weight ?? 1;
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > MAX_WEIGHT) {
      throw new InvalidRule(`${at}.weight`, `must be an integer 0-${MAX_WEIGHT}`, weight);
    }
    if (arrayOr(ref.filters).length > 0) {
      throw new InvalidRule(`${at}.filters`, 'filters on a backendRef are not supported');
    }
    const backend = resolveBackendRef(entry, at, context, log);
    members.push(backend === undefined ? { weight, statusCode: 500 } : { backend, weight });
  }
  return members;
}

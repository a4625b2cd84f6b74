/**
 * A GatewayClass's parametersRef: the kinds it may name and the values they may hold, checked so
 * that a typo is reported, not ignored.
 */
import type { ParametersReference } from './types.js';

/** API group of IngressKit's own GatewayClass parameters kind. */
export const PARAMETERS_GROUP = 'ingresskit.dev';
/** Kind of IngressKit's own GatewayClass parameters (cluster-scoped; CRD in this package's `crds/`). */
export const PARAMETERS_KIND = 'IngressKitParameters';
/** apiVersion served by the IngressKitParameters CRD. */
export const PARAMETERS_API_VERSION = `${PARAMETERS_GROUP}/v1alpha1`;

/** nginx error_log levels accepted by `logLevel`. */
export type ParametersLogLevel = 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit';

/** Validated GatewayClass parameters; keys left out of the referent are absent. */
export interface GatewayClassParameters {
  /** nginx `error_log` level. */
  logLevel?: ParametersLogLevel;
  /** nginx `worker_connections`, 1–65535. */
  workerConnections?: number;
  /** nginx `proxy_read_timeout`, a positive number with a unit: `90s`, `500ms`, `2m`, `1h`. */
  proxyReadTimeout?: string;
  /** nginx `client_max_body_size`: `0` (no limit) or a positive size with an optional k/m/g unit. */
  clientMaxBodySize?: string;
  /** Whether to send Strict-Transport-Security on HTTPS responses. */
  hsts?: boolean;
}

/** A parametersRef kind we understand, and whether its objects live in a namespace. */
export interface ParametersKind {
  group: string;
  kind: string;
  namespaced: boolean;
}

/** The kinds `spec.parametersRef` may point at: a core ConfigMap, or our own cluster-scoped kind. */
export const supportedParametersKinds: readonly ParametersKind[] = [
  { group: '', kind: 'ConfigMap', namespaced: true },
  { group: PARAMETERS_GROUP, kind: PARAMETERS_KIND, namespaced: false },
];

/**
 * Looks up a parameters object by reference (kind, name and, for namespaced kinds, namespace);
 * returns undefined when it does not exist. Must be a side-effect-free read of a cache.
 */
export type ParametersLookup = (ref: ParametersReference) => unknown;

/** Outcome of checking a GatewayClass's parametersRef: the parsed parameters, or a message naming the problem. */
export type ParametersResolution =
  | { valid: true; parameters: GatewayClassParameters; referent: string | undefined }
  | { valid: false; message: string };

type FieldCheck = { ok: true; value: unknown } | { ok: false; expected: string };

const LOG_LEVELS: readonly string[] = ['debug', 'info', 'notice', 'warn', 'error', 'crit'];
const DURATION = /^[1-9]\d{0,8}(ms|s|m|h)$/;
const SIZE = /^(0|[1-9]\d{0,12}[kKmMgG]?)$/;
const INTEGER = /^(0|[1-9]\d{0,9})$/;

const fieldChecks: Record<keyof GatewayClassParameters, (value: unknown) => FieldCheck> = {
  logLevel: (value) =>
    typeof value === 'string' && LOG_LEVELS.includes(value)
      ? { ok: true, value }
      : { ok: false, expected: `one of ${LOG_LEVELS.join(', ')}` },
  workerConnections: (value) => {
    const parsed = toInteger(value);
    return parsed !== undefined && parsed >= 1 && parsed <= 65535
      ? { ok: true, value: parsed }
      : { ok: false, expected: 'an integer from 1 to 65535' };
  },
  proxyReadTimeout: (value) =>
    typeof value === 'string' && DURATION.test(value)
      ? { ok: true, value }
      : { ok: false, expected: 'a positive duration with a unit (ms, s, m, h), e.g. 60s' },
  clientMaxBodySize: (value) =>
    typeof value === 'string' && SIZE.test(value)
      ? { ok: true, value }
      : { ok: false, expected: 'a size such as 0, 512k, 8m or 1g' },
  hsts: (value) => {
    if (value === true || value === 'true') return { ok: true, value: true };
    if (value === false || value === 'false') return { ok: true, value: false };
    return { ok: false, expected: 'true or false' };
  },
};

const ACCEPTED_KEYS = Object.keys(fieldChecks).sort();

function toInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value === 'string' && INTEGER.test(value)) return Number(value);
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}

/**
 * Validates parameter values (ConfigMap `data` or IngressKitParameters `spec`) against the accepted
 * keys; `path` prefixes field names in problems (`data`, `spec`). Unknown keys are problems too, so a
 * typo is reported instead of silently ignored.
 */
export function parseParameters(
  values: Record<string, unknown>,
  path: string,
): { parameters: GatewayClassParameters; problems: string[] } {
  const parameters: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of Object.keys(values).sort()) {
    const value = values[key];
    const check = Object.hasOwn(fieldChecks, key)
      ? fieldChecks[key as keyof GatewayClassParameters]
      : undefined;
    if (check === undefined) {
      problems.push(`${path}.${key}: unknown key (accepted keys: ${ACCEPTED_KEYS.join(', ')})`);
      continue;
    }
    const result = check(value);
    if (result.ok) parameters[key] = result.value;
    else problems.push(`${path}.${key}: ${quote(value)} is not ${result.expected}`);
  }
  return { parameters, problems };
}

/** Human name of a referent: `ConfigMap "ns/name"` or `IngressKitParameters "name"`. */
export function describeReferent(ref: ParametersReference): string {
  const namespace = ref.namespace ? `${ref.namespace}/` : '';
  return `${ref.kind} "${namespace}${ref.name}"`;
}

/**
 * Checks `spec.parametersRef` of a GatewayClass: a supported group/kind, a namespace exactly when the
 * kind is namespaced, an existing referent, and valid content. No reference means no parameters.
 */
export function resolveParametersRef(
  ref: ParametersReference | undefined,
  lookup: ParametersLookup,
): ParametersResolution {
  if (ref === undefined) return { valid: true, parameters: {}, referent: undefined };
  const group = ref.group ?? '';
  const supported = supportedParametersKinds.find(
    (candidate) => candidate.group === group && candidate.kind === ref.kind,
  );
  if (supported === undefined) {
    return {
      valid: false,
      message:
        `spec.parametersRef: group "${group}" kind "${ref.kind}" is not supported; ` +
        `use a ConfigMap (group "") or ${PARAMETERS_KIND} (group "${PARAMETERS_GROUP}")`,
    };
  }
  const hasNamespace = ref.namespace !== undefined && ref.namespace !== '';
  if (supported.namespaced && !hasNamespace) {
    return {
      valid: false,
      message: `spec.parametersRef.namespace is required: ${ref.kind} is namespaced (referent ${ref.kind} "${ref.name}")`,
    };
  }
  if (!supported.namespaced && hasNamespace) {
    return {
      valid: false,
      message:
        `spec.parametersRef.namespace must not be set: ${ref.kind} is cluster-scoped ` +
        `(referent ${ref.kind} "${ref.name}", namespace "${ref.namespace}" given)`,
    };
  }
  const normalized: ParametersReference = hasNamespace
    ? { group, kind: ref.kind, name: ref.name, namespace: ref.namespace }
    : { group, kind: ref.kind, name: ref.name };
  const referent = describeReferent(normalized);
  const object = lookup(normalized);
  if (object === undefined || object === null) {
    return { valid: false, message: `spec.parametersRef: ${referent} not found` };
  }
  const { parameters, problems } = supported.namespaced
    ? parseConfigMap(object)
    : parseParametersObject(object);
  if (problems.length > 0) {
    return { valid: false, message: `spec.parametersRef: ${referent} is invalid: ${problems.join('; ')}` };
  }
  return { valid: true, parameters, referent };
}

function parseConfigMap(object: unknown): { parameters: GatewayClassParameters; problems: string[] } {
  const data = isRecord(object) ? object.data : undefined;
  const binaryData = isRecord(object) ? object.binaryData : undefined;
  const problems: string[] = [];
  if (isRecord(binaryData) && Object.keys(binaryData).length > 0) {
    problems.push(`binaryData: not supported (keys: ${Object.keys(binaryData).sort().join(', ')})`);
  }
  if (data !== undefined && data !== null && !isRecord(data)) {
    return { parameters: {}, problems: [...problems, 'data: must be a map of strings'] };
  }
  const parsed = parseParameters(data ?? {}, 'data');
  return { parameters: parsed.parameters, problems: [...problems, ...parsed.problems] };
}

function parseParametersObject(object: unknown): { parameters: GatewayClassParameters; problems: string[] } {
  const spec = isRecord(object) ? object.spec : undefined;
  if (spec === undefined || spec === null) return { parameters: {}, problems: [] };
  if (!isRecord(spec)) return { parameters: {}, problems: ['spec: must be an object'] };
  return parseParameters(spec, 'spec');
}

/**
 * ingress-nginx's per-client limits: limit-connections, limit-rps, limit-rpm, with
 * limit-burst-multiplier and limit-allowlist (old name limit-whitelist). ingress-nginx renders them
 * as limit_conn / limit_req zones named after the Ingress, keyed by the client address (empty for
 * allowlisted clients), with `burst = rate × multiplier` and `nodelay`, refused with 503.
 */
import type { ClientLimits, ClientRate } from '@ingresskit/route-model';
import { parseCidrList } from './grammar.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationProblem,
  type IngressAnnotations,
  type AnnotationParser,
} from './annotation-types.js';
import type { LimitAnnotations } from './annotation-parts.js';

/** ingress-nginx's default limit-burst-multiplier. */
export const DEFAULT_BURST_MULTIPLIER = 5;
/** The statuses of limit-* refusals (the controller ConfigMap's limit-req- and limit-conn-status-code). */
export interface LimitStatusCodes {
  /** Of a request refused by limit-rps or limit-rpm. */
  requests: number;
  /** Of a request refused by limit-connections. */
  connections: number;
}

/** ingress-nginx's default limit-req-status-code and limit-conn-status-code. */
export const LIMIT_STATUS_CODE = 503;
/** Largest count accepted for a limit: far beyond any client, small enough for exact arithmetic. */
const MAX_LIMIT = 1_000_000;
const MAX_MULTIPLIER = 1000;

function limitsOf(into: IngressAnnotations): LimitAnnotations {
  return (into.limits ??= {});
}

/** A whole number from `min` to `max`, written without sign, leading zeros or spaces. */
function parseCount(
  min: number,
  max: number,
  set: (limits: LimitAnnotations, value: number) => void,
): AnnotationParser {
  return (value, into) => {
    if (!/^(?:0|[1-9][0-9]{0,6})$/.test(value) || Number(value) < min || Number(value) > max) {
      return `must be a whole number from ${min} to ${max}`;
    }
    set(limitsOf(into), Number(value));
    return undefined;
  };
}

function parseExemptSources(value: string, into: IngressAnnotations): string | undefined {
  const ranges = parseCidrList(value);
  if (typeof ranges === 'string') return ranges;
  limitsOf(into).exemptSources = ranges;
  return undefined;
}

/**
 * The parsers of the limit annotations. 0 is ingress-nginx's "no limit" for the three limits
 * (it renders no zone for them).
 */
export const LIMIT_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'limit-connections': parseCount(0, MAX_LIMIT, (limits, value) => (limits.connections = value)),
  'limit-rps': parseCount(0, MAX_LIMIT, (limits, value) => (limits.requestsPerSecond = value)),
  'limit-rpm': parseCount(0, MAX_LIMIT, (limits, value) => (limits.requestsPerMinute = value)),
  'limit-burst-multiplier': parseCount(
    1,
    MAX_MULTIPLIER,
    (limits, value) => (limits.burstMultiplier = value),
  ),
  'limit-allowlist': parseExemptSources,
  'limit-whitelist': parseExemptSources,
};

/** Whether the Ingress asks for any limit (a limit of 0 is none). */
function hasLimit(limits: LimitAnnotations): boolean {
  return (
    (limits.connections ?? 0) > 0 ||
    (limits.requestsPerSecond ?? 0) > 0 ||
    (limits.requestsPerMinute ?? 0) > 0
  );
}

/**
 * Warns about limit-burst-multiplier and limit-allowlist set without a limit: they only loosen
 * one, so without one they do nothing (in ingress-nginx either).
 */
export function checkLimitAnnotations(
  limits: LimitAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
  names: ReadonlySet<string>,
): void {
  if (limits === undefined || hasLimit(limits)) return;
  for (const name of ['limit-burst-multiplier', 'limit-allowlist', 'limit-whitelist']) {
    if (!names.has(name)) continue;
    problems.push({
      field: annotationField(`${withPrefix}${name}`),
      message: `annotation "${name}" has no effect without limit-connections, limit-rps or limit-rpm`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
}

/**
 * The route-model limits of an Ingress whose routes share `scope`, or undefined without a limit.
 * Rates in ingress-nginx's order (limit-rpm before limit-rps), each with its burst.
 */
export function createClientLimits(
  limits: LimitAnnotations | undefined,
  scope: string,
  statusCodes?: LimitStatusCodes,
): ClientLimits | undefined {
  if (limits === undefined || !hasLimit(limits)) return undefined;
  const multiplier = limits.burstMultiplier ?? DEFAULT_BURST_MULTIPLIER;
  const result: ClientLimits = { scope, statusCode: statusCodes?.requests ?? LIMIT_STATUS_CODE };
  const connectionsStatus = statusCodes?.connections ?? LIMIT_STATUS_CODE;
  if (connectionsStatus !== result.statusCode) result.connectionsStatusCode = connectionsStatus;
  if ((limits.connections ?? 0) > 0) result.connections = limits.connections!;
  const rates: ClientRate[] = [];
  if ((limits.requestsPerMinute ?? 0) > 0) {
    const rate = limits.requestsPerMinute!;
    rates.push({ rate, per: 'minute', burst: rate * multiplier });
  }
  if ((limits.requestsPerSecond ?? 0) > 0) {
    const rate = limits.requestsPerSecond!;
    rates.push({ rate, per: 'second', burst: rate * multiplier });
  }
  if (rates.length > 0) result.rates = rates;
  if (limits.exemptSources !== undefined) result.exemptSources = [...limits.exemptSources];
  return result;
}

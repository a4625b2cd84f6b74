/**
 * ingress-nginx's auth-keepalive, auth-keepalive-requests, auth-keepalive-timeout and
 * auth-keepalive-share-vars: connections to the auth-url service kept open between checks. Read
 * into the external auth annotations, combined into the policy's keepalive with ingress-nginx's
 * defaults (1000 requests, 60 seconds) and its rule that a count or time of 0 or less turns it off.
 */
import type { ExternalAuthKeepalive } from '@ingresskit/route-model';
import { booleanParser } from './grammar.js';
import { type AnnotationProblem } from './annotation-types.js';
import type { ExternalAuthNaming, ExternalAuthKeepaliveAnnotations } from './annotation-parts.js';

// Bounds of ours (ingress-nginx has none): a pool is per route and nginx worker, and idle
// connections hold file descriptors every tenant shares.
const MAX_CONNECTIONS = 1024;
const MAX_REQUESTS = 1_000_000;
const MAX_TIMEOUT_SECONDS = 3600;
// ingress-nginx's defaults when auth-keepalive is above 0.
const DEFAULT_REQUESTS = 1000;
const DEFAULT_TIMEOUT_SECONDS = 60;

/** `value` as a whole number (Go's strconv.Atoi, as ingress-nginx reads it), or undefined. */
function readInteger(value: string): number | undefined {
  return /^[+-]?[0-9]{1,10}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

type KeepaliveReader = (value: string, into: ExternalAuthKeepaliveAnnotations) => string | undefined;

/** The readers of the keep-alive annotations, by annotation name. */
export const EXTERNAL_AUTH_KEEPALIVE_READERS: Readonly<Record<string, KeepaliveReader>> = {
  'auth-keepalive': (value, into) => {
    const connections = readInteger(value);
    if (connections === undefined || connections < 0 || connections > MAX_CONNECTIONS) {
      return `must be a number of connections from 0 (off) to ${MAX_CONNECTIONS}`;
    }
    into.keepaliveConnections = connections;
    return undefined;
  },
  'auth-keepalive-requests': (value, into) => {
    const requests = readInteger(value);
    if (requests === undefined || requests > MAX_REQUESTS)
      return `must be a number of requests up to ${MAX_REQUESTS}`;
    into.keepaliveRequests = requests;
    return undefined;
  },
  'auth-keepalive-timeout': (value, into) => {
    const seconds = readInteger(value);
    if (seconds === undefined || seconds > MAX_TIMEOUT_SECONDS) {
      return `must be a number of seconds up to ${MAX_TIMEOUT_SECONDS}`;
    }
    into.keepaliveTimeout = seconds;
    return undefined;
  },
  'auth-keepalive-share-vars': booleanParser((into, on) => (into.keepaliveShareVars = on)),
};

/**
 * The keep-alive the annotations ask for, with auth-url set: undefined when auth-keepalive is
 * absent or 0 (then the other keys set are warnings: they have no effect), or when the requests or
 * timeout are 0 or less (a warning: ingress-nginx turns keep-alive off for them too).
 */
export function combineExternalAuthKeepalive(
  annotations: ExternalAuthKeepaliveAnnotations,
  naming: ExternalAuthNaming,
  problems: AnnotationProblem[],
): ExternalAuthKeepalive | undefined {
  const { keepaliveConnections = 0, keepaliveRequests, keepaliveTimeout, keepaliveShareVars } = annotations;
  const warn = (name: string, message: string) =>
    problems.push({
      field: naming.field(name),
      message: `${naming.label(name)} ${message}`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  if (keepaliveConnections === 0) {
    const set: [string, unknown][] = [
      ['auth-keepalive-requests', keepaliveRequests],
      ['auth-keepalive-timeout', keepaliveTimeout],
      ['auth-keepalive-share-vars', keepaliveShareVars],
    ];
    for (const [name, value] of set) {
      if (value !== undefined) warn(name, `has no effect without ${naming.key('auth-keepalive')} above 0`);
    }
    return undefined;
  }
  const requests = keepaliveRequests ?? DEFAULT_REQUESTS;
  const timeoutSeconds = keepaliveTimeout ?? DEFAULT_TIMEOUT_SECONDS;
  if (requests <= 0) {
    warn('auth-keepalive-requests', 'is not above 0, so connections are not kept, as with ingress-nginx');
    return undefined;
  }
  if (timeoutSeconds <= 0) {
    warn('auth-keepalive-timeout', 'is not above 0, so connections are not kept, as with ingress-nginx');
    return undefined;
  }
  const keepalive: ExternalAuthKeepalive = { connections: keepaliveConnections, requests, timeoutSeconds };
  if (keepaliveShareVars === true) keepalive.shareRequestId = true;
  return keepalive;
}

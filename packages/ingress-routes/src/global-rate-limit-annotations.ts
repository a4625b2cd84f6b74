/**
 * ingress-nginx's global rate limit: global-rate-limit requests per global-rate-limit-window, per
 * global-rate-limit-key (default `$remote_addr`), counted in the memcached the controller
 * ConfigMap names, clients in global-rate-limit-ignored-cidrs left alone. Values travel as data.
 */
import { parseGoDuration } from './go-duration.js';
import type { GlobalRateLimit } from '@ingresskit/route-model';
import { annotationField } from './annotation-field.js';
import { parseCidrList } from './grammar.js';
import { parseHashKey } from './proxy-annotations.js';
import type { Context } from './translation-context.js';
import {
  type AnnotationParser,
  type AnnotationProblem,
  type IngressAnnotations,
  DEFAULT_ANNOTATION_PREFIX,
} from './annotation-types.js';
import type { GlobalRateLimitAnnotations } from './annotation-parts.js';

/** ingress-nginx's global-rate-limit-status-code default. */
export const DEFAULT_GLOBAL_RATE_LIMIT_STATUS = 429;
/** The ConfigMap key a global rate limit cannot do without. */
export const MEMCACHED_HOST_KEY = 'global-rate-limit-memcached-host';
/** How the problem of a limit without memcached begins (see isReferencedObjectProblem). */
export const GLOBAL_LIMIT_STORE_PROBLEM =
  'annotation "global-rate-limit" needs the controller ConfigMap key ';

const MAX_LIMIT = 1_000_000_000;
/**
 * A count lives two windows in memcached, which reads an expiry over 30 days as a date: windows
 * up to 14 days keep the expiry a duration.
 */
const MAX_WINDOW_SECONDS = 14 * 24 * 3600;

function globalOf(into: IngressAnnotations): GlobalRateLimitAnnotations {
  return (into.globalRateLimit ??= {});
}

/** The parsers of the global-rate-limit annotations. */
export const GLOBAL_RATE_LIMIT_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'global-rate-limit': (value, into) => {
    if (!/^(?:0|[1-9][0-9]{0,9})$/.test(value) || Number(value) > MAX_LIMIT)
      return `must be a whole number from 0 to ${MAX_LIMIT}`;
    globalOf(into).limit = Number(value);
    return undefined;
  },
  'global-rate-limit-window': (value, into) => {
    const seconds = parseGoDuration(value);
    if (seconds === undefined) return 'must be a duration such as 1m, 10s or 1h30m';
    // ingress-nginx keeps whole seconds; a window under one second would limit nothing.
    const whole = Math.floor(seconds + 1e-9);
    if (whole < 1 || whole > MAX_WINDOW_SECONDS) return `must be from 1s to ${MAX_WINDOW_SECONDS / 3600}h`;
    globalOf(into).windowSeconds = whole;
    return undefined;
  },
  'global-rate-limit-key': (value, into) => {
    const key = parseHashKey(value);
    if (typeof key === 'string') return key;
    globalOf(into).key = key;
    return undefined;
  },
  'global-rate-limit-ignored-cidrs': (value, into) => {
    const ranges = parseCidrList(value);
    if (typeof ranges === 'string') return ranges;
    globalOf(into).exemptSources = ranges;
    return undefined;
  },
};

/**
 * A limit without a window is an error (ingress-nginx serves it unlimited; a limit asked for is
 * not dropped quietly here); a window, key or CIDRs without a limit only warn: they do nothing.
 * `names` are the annotations set: one that did not parse was reported already.
 */
export function checkGlobalRateLimitAnnotations(
  global: GlobalRateLimitAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
  names: ReadonlySet<string>,
): void {
  if (global === undefined || (names.has('global-rate-limit') && global.limit === undefined)) return;
  if ((global.limit ?? 0) > 0) {
    if (!names.has('global-rate-limit-window')) {
      problems.push({
        field: annotationField(`${withPrefix}global-rate-limit`),
        message: 'annotation "global-rate-limit" needs global-rate-limit-window',
        code: 'invalid-annotation',
        severity: 'error',
      });
    }
    return;
  }
  const loose: [keyof GlobalRateLimitAnnotations, string][] = [
    ['windowSeconds', 'global-rate-limit-window'],
    ['key', 'global-rate-limit-key'],
    ['exemptSources', 'global-rate-limit-ignored-cidrs'],
  ];
  for (const [property, name] of loose) {
    if (global[property] === undefined) continue;
    problems.push({
      field: annotationField(`${withPrefix}${name}`),
      message: `annotation "${name}" has no effect without global-rate-limit`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
}

/**
 * The annotations with the global rate limit the ConfigMap's memcached completes. Without a
 * memcached host the routes are closed (503) with an error naming the key: a limit asked for is
 * never served as no limit.
 */
export function resolveGlobalRateLimit(context: Context): IngressAnnotations {
  const annotations = context.annotations;
  const global = annotations.globalRateLimit;
  if (global === undefined || (global.limit ?? 0) === 0 || global.windowSeconds === undefined)
    return annotations;
  const config = context.config.globalRateLimit;
  if (config?.store === undefined) {
    const prefix = context.config.annotationPrefix ?? DEFAULT_ANNOTATION_PREFIX;
    context.log.error(
      'global-rate-limit-unavailable',
      annotationField(`${prefix}/global-rate-limit`),
      `${GLOBAL_LIMIT_STORE_PROBLEM}${MEMCACHED_HOST_KEY}, which is not set; every request gets 503`,
    );
    return { ...annotations, closed: true };
  }
  const limit: Omit<GlobalRateLimit, 'scope'> = {
    limit: global.limit!,
    windowSeconds: global.windowSeconds,
    key: global.key ?? [{ type: 'clientAddress' }],
    statusCode: config.statusCode,
    store: config.store,
  };
  if (global.exemptSources !== undefined) limit.exemptSources = global.exemptSources;
  return { ...annotations, globalRateLimitPolicy: limit };
}

/** The route-model global rate limit of an Ingress whose routes share `scope`, a new object. */
export function createGlobalRateLimit(limit: Omit<GlobalRateLimit, 'scope'>, scope: string): GlobalRateLimit {
  const result: GlobalRateLimit = {
    scope,
    limit: limit.limit,
    windowSeconds: limit.windowSeconds,
    key: limit.key.map((part) => ({ ...part })),
    statusCode: limit.statusCode,
    store: { ...limit.store },
  };
  if (limit.exemptSources !== undefined) result.exemptSources = [...limit.exemptSources];
  return result;
}

/**
 * Gateway API's CORS filter → the route model's CorsPolicy in its Gateway API dialect (see
 * CorsPolicy.dialect for how its answers differ from ingress-nginx's enable-cors).
 */
import { HTTP_METHODS, type CorsPolicy } from '@ingresskit/route-model';
import { checkHeaderName, objectOr } from './grammar.js';
import { InvalidRule } from './invalid-rule.js';

// The CRD's pattern: `*`, or http(s):// and a host (possibly `*.`-prefixed, or `*` alone) with a port.
const ORIGIN = /^(?:\*|https?:\/\/(?:(?:\*\.)?(?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]+|\*)(?::[0-9]{1,5})?)$/;
const MAX_ITEMS = 64;
const DEFAULT_MAX_AGE_SECONDS = 5;

/** A list field of the filter, each item checked; `*` only alone, as the CRD's validation says. */
function readList(raw: unknown, field: string, check: (item: unknown) => string | undefined): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new InvalidRule(field, 'must be a list', raw);
  if (raw.length > MAX_ITEMS)
    throw new InvalidRule(field, `must hold at most ${MAX_ITEMS} items`, raw.length);
  for (const [index, item] of raw.entries()) {
    const problem = item === '*' ? undefined : check(item);
    if (problem !== undefined) throw new InvalidRule(`${field}[${index}]`, problem, item);
  }
  const items = [...new Set(raw as string[])];
  if (items.includes('*') && items.length > 1)
    throw new InvalidRule(field, 'cannot hold "*" beside other items');
  return items;
}

/**
 * The CORS filter of a rule, or undefined when it allows no origin (its requests then get no
 * CORS headers, which is what an empty list means). Throws InvalidRule for a value outside the
 * CRD's grammar: the rule then answers 500 rather than answer with other headers than asked.
 */
export function translateCorsFilter(raw: unknown, field: string): CorsPolicy | undefined {
  const cors = objectOr<{
    allowOrigins: unknown;
    allowMethods: unknown;
    allowHeaders: unknown;
    exposeHeaders: unknown;
    allowCredentials: unknown;
    maxAge: unknown;
  }>(raw);
  const origins = readList(cors.allowOrigins, `${field}.allowOrigins`, (origin) =>
    typeof origin === 'string' && origin.length <= 253 && ORIGIN.test(origin)
      ? undefined
      : 'must be "*" or http(s)://host[:port], the host possibly "*" or starting with "*."',
  );
  const methods = readList(cors.allowMethods, `${field}.allowMethods`, (method) =>
    HTTP_METHODS.has(method as string) ? undefined : `must be "*" or one of ${[...HTTP_METHODS].join(', ')}`,
  );
  const allowHeaders = readList(cors.allowHeaders, `${field}.allowHeaders`, checkHeaderName);
  const exposeHeaders = readList(cors.exposeHeaders, `${field}.exposeHeaders`, checkHeaderName);
  if (cors.allowCredentials !== undefined && typeof cors.allowCredentials !== 'boolean') {
    throw new InvalidRule(`${field}.allowCredentials`, 'must be true or false', cors.allowCredentials);
  }
  const maxAge = cors.maxAge ?? DEFAULT_MAX_AGE_SECONDS;
  if (!Number.isInteger(maxAge) || (maxAge as number) < 1 || (maxAge as number) > 2 ** 31 - 1) {
    throw new InvalidRule(`${field}.maxAge`, 'must be a whole number of seconds from 1', cors.maxAge);
  }
  if (origins.length === 0) return undefined;
  return {
    allowOrigins: origins,
    allowMethods: methods.join(', '),
    allowHeaders: allowHeaders.join(', '),
    exposeHeaders: exposeHeaders.join(', '),
    allowCredentials: cors.allowCredentials === true,
    maxAgeSeconds: maxAge as number,
    dialect: 'gateway-api',
  };
}

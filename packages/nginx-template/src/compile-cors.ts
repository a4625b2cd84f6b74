/**
 * CorsPolicy → the CORS entry the Lua router answers with: one anchored origin regex, and the
 * fixed headers. ingress-nginx's and Gateway API's dialects differ in wildcards, default ports and
 * preflight answers.
 */
import type { CorsPolicy } from '@ingresskit/route-model';
import { isHeaderValue } from './compile-headers.js';
import type { PolicyEntry } from './data-entries.js';

/** What compiling reports: a fatal error, by field. */
export interface CorsIssues {
  error(field: string, message: string, value?: unknown): undefined;
}

// A CORS origin: scheme, a host whose first label may be `*` (or, for Gateway API, that is `*`
// alone), an optional port.
const CORS_ORIGIN = /^https?:\/\/(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?$/;
const ANY_HOST_ORIGIN = /^https?:\/\/\*(?::[0-9]{1,5})?$/;
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/**
 * One origin → the regex that matches it, unanchored. ingress-nginx: `*.` stands for one DNS
 * label. Gateway API: `*.` for any number of labels, `*` alone for any host, and no port or the
 * scheme's default port match both with and without it.
 */
function originPattern(origin: string, gatewayApi: boolean): string {
  const [, scheme = '', host = '', port] = /^(https?):\/\/([^:]+)(?::(\d+))?$/.exec(origin) ?? [];
  let hostPattern: string;
  if (host === '*') hostPattern = '[A-Za-z0-9.-]+';
  else if (host.startsWith('*.'))
    hostPattern =
      (gatewayApi ? '(?:[A-Za-z0-9-]+\\.)+' : '[A-Za-z0-9-]+\\.') + host.slice(2).replace(/[.]/g, '\\.');
  else hostPattern = host.replace(/[.]/g, '\\.');
  const defaultPort = gatewayApi && (port === undefined || port === DEFAULT_PORTS[scheme]);
  const portPattern = defaultPort ? `(?::${DEFAULT_PORTS[scheme]})?` : port === undefined ? '' : `:${port}`;
  return `${scheme}://${hostPattern}${portPattern}`;
}

/** A Gateway API list header (`GET, PUT` or `*`) as the data plane sends it to a request asking. */
function askedHeader(value: string, echoWildcard: boolean): string | true {
  return value === '*' && echoWildcard ? true : value;
}

/**
 * Compiles `policy.cors`; undefined after an error reported through `out`. A value that is not a
 * valid header value, or an origin outside the grammar, makes the route answer 500: serving it
 * without the CORS headers it asked for, or with others, would both be wrong.
 */
export function compileCors(cors: CorsPolicy, out: CorsIssues): PolicyEntry['cors'] {
  const origins = Array.isArray(cors.allowOrigins) ? cors.allowOrigins : [];
  const gatewayApi = cors.dialect === 'gateway-api';
  const credentials = cors.allowCredentials === true;
  const entry: NonNullable<PolicyEntry['cors']> = { headers: [] };
  if (origins.length === 0)
    return out.error('policy.cors.allowOrigins', 'must list at least one origin or "*"');
  if (!(origins.length === 1 && origins[0] === '*')) {
    const patterns: string[] = [];
    for (const [index, origin] of origins.entries()) {
      const valid =
        typeof origin === 'string' &&
        (CORS_ORIGIN.test(origin) || (gatewayApi && ANY_HOST_ORIGIN.test(origin)));
      if (!valid) {
        return out.error(
          `policy.cors.allowOrigins[${index}]`,
          'must be "*" alone or http(s)://host[:port], the host possibly starting with "*."',
          origin,
        );
      }
      patterns.push(originPattern(origin, gatewayApi));
    }
    entry.origin = `^(?:${patterns.join('|')})$`;
  } else if (gatewayApi && credentials) {
    entry.echoOrigin = true;
  }
  if (gatewayApi) {
    for (const [name, value] of [
      ['Access-Control-Allow-Methods', cors.allowMethods],
      ['Access-Control-Allow-Headers', cors.allowHeaders],
    ] as const) {
      if (!isHeaderValue(value)) return out.error(`policy.cors`, `${name} holds control characters`, value);
    }
    if (cors.allowMethods !== '') entry.methods = askedHeader(cors.allowMethods, credentials);
    if (cors.allowHeaders !== '') entry.allowHeaders = askedHeader(cors.allowHeaders, credentials);
    entry.preflight = 200;
  }
  const headers: [string, string | undefined][] = [
    ['Access-Control-Allow-Credentials', credentials ? 'true' : undefined],
    ['Access-Control-Allow-Methods', gatewayApi ? undefined : cors.allowMethods],
    ['Access-Control-Allow-Headers', gatewayApi ? undefined : cors.allowHeaders],
    // Gateway API: a `*` cannot expose headers to a request with credentials; none are then named.
    [
      'Access-Control-Expose-Headers',
      cors.exposeHeaders === '' || (gatewayApi && credentials && cors.exposeHeaders === '*')
        ? undefined
        : cors.exposeHeaders,
    ],
    [
      'Access-Control-Max-Age',
      Number.isSafeInteger(cors.maxAgeSeconds) ? String(cors.maxAgeSeconds) : undefined,
    ],
  ];
  for (const [name, value] of headers) {
    if (value === undefined) continue;
    if (!isHeaderValue(value)) return out.error(`policy.cors`, `${name} holds control characters`, value);
    entry.headers.push([name, value]);
  }
  return entry;
}

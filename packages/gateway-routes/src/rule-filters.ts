/**
 * The filters of an HTTPRoute rule → the route-model policy they set (header changes, rewrites,
 * mirror, CORS) or the redirect the rule answers with. A filter that cannot be applied as written
 * throws InvalidRule: the spec does not let it be skipped.
 */
import {
  type HeaderModifier,
  type PathModifier,
  type Redirect,
  type RouteMatch,
  type RoutePolicy,
} from '@ingresskit/route-model';
import { type BackendContext, resolveBackendRef } from './backend-refs.js';
import { translateCorsFilter } from './cors-filter.js';
import {
  arrayOr,
  checkHeaderName,
  checkHeaderValue,
  checkPreciseHostname,
  isPortNumber,
  objectOr,
  parseLiteralPath,
} from './grammar.js';
import { InvalidRule } from './invalid-rule.js';
import type { GatewayApiProblemLog } from './problem-codes.js';

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

/**
 * Translates the filters of the rule at `field` (`spec.rules[i]`) whose matches are `matches`: at
 * most one of each type, and a redirect never combined with a rewrite.
 */
export function translateFilters(
  raw: unknown,
  field: string,
  matches: readonly RouteMatch[],
  context: BackendContext,
  log: GatewayApiProblemLog,
): { policy: RoutePolicy; redirect: Redirect | undefined } {
  const policy: RoutePolicy = {};
  let redirect: Redirect | undefined;
  const seenTypes = new Set<string>();
  for (const [index, entry] of arrayOr(raw).entries()) {
    const at = `${field}.filters[${index}]`;
    const filter = objectOr<{
      type: unknown;
      requestHeaderModifier: unknown;
      responseHeaderModifier: unknown;
      requestRedirect: unknown;
      urlRewrite: unknown;
      requestMirror: unknown;
      cors: unknown;
    }>(entry);
    const type = typeof filter.type === 'string' ? filter.type : '';
    if (seenTypes.has(type)) throw new InvalidRule(`${at}.type`, `a rule may hold one ${type} filter`, type);
    seenTypes.add(type);
    switch (type) {
      case 'RequestHeaderModifier':
        policy.requestHeaders = translateHeaderFilter(
          filter.requestHeaderModifier,
          `${at}.requestHeaderModifier`,
        );
        break;
      case 'ResponseHeaderModifier':
        policy.responseHeaders = translateHeaderFilter(
          filter.responseHeaderModifier,
          `${at}.responseHeaderModifier`,
        );
        break;
      case 'RequestRedirect':
        redirect = translateRedirect(filter.requestRedirect, `${at}.requestRedirect`, matches);
        break;
      case 'URLRewrite': {
        const rewrite = objectOr<{ hostname: unknown; path: unknown }>(filter.urlRewrite);
        if (rewrite.hostname !== undefined && rewrite.hostname !== null) {
          const problem = checkPreciseHostname(rewrite.hostname);
          if (problem !== undefined)
            throw new InvalidRule(`${at}.urlRewrite.hostname`, problem, rewrite.hostname);
          policy.upstreamHost = rewrite.hostname as string;
        }
        if (rewrite.path !== undefined && rewrite.path !== null) {
          policy.rewrite = translatePathModifier(rewrite.path, `${at}.urlRewrite.path`, matches);
        }
        break;
      }
      case 'RequestMirror': {
        const mirror = objectOr<{ backendRef: unknown; percent: unknown; fraction: unknown }>(
          filter.requestMirror,
        );
        if (mirror.percent !== undefined || mirror.fraction !== undefined) {
          throw new InvalidRule(`${at}.requestMirror`, 'mirroring a fraction of requests is not supported');
        }
        const backend = resolveBackendRef(mirror.backendRef, `${at}.requestMirror.backendRef`, context, log);
        if (backend !== undefined) policy.mirror = { backend };
        break;
      }
      case 'CORS': {
        const cors = translateCorsFilter(filter.cors, `${at}.cors`);
        if (cors !== undefined) policy.cors = cors;
        break;
      }
      default:
        throw new InvalidRule(
          `${at}.type`,
          'is not a supported filter (RequestHeaderModifier, ResponseHeaderModifier, RequestRedirect, URLRewrite, RequestMirror, CORS)',
          filter.type,
        );
    }
  }
  if (redirect !== undefined && (policy.rewrite !== undefined || policy.upstreamHost !== undefined)) {
    throw new InvalidRule(`${field}.filters`, 'RequestRedirect and URLRewrite cannot be combined');
  }
  return { policy, redirect };
}

function translateHeaderFilter(raw: unknown, field: string): HeaderModifier {
  if (typeof raw !== 'object' || raw === null)
    throw new InvalidRule(field, 'is required for this filter type');
  const filter = raw as { set?: unknown; add?: unknown; remove?: unknown };
  const modifier: HeaderModifier = {};
  for (const part of ['set', 'add'] as const) {
    const headers: { name: string; value: string }[] = [];
    const seen = new Set<string>();
    for (const [index, entry] of arrayOr(filter[part]).entries()) {
      const header = objectOr<{ name: unknown; value: unknown }>(entry);
      const at = `${field}.${part}[${index}]`;
      const nameProblem = checkHeaderName(header.name);
      if (nameProblem !== undefined) throw new InvalidRule(`${at}.name`, nameProblem, header.name);
      const valueProblem = checkHeaderValue(header.value);
      if (valueProblem !== undefined) throw new InvalidRule(`${at}.value`, valueProblem, header.value);
      const key = (header.name as string).toLowerCase();
      if (seen.has(key)) throw new InvalidRule(`${at}.name`, `names a header twice in ${part}`, header.name);
      seen.add(key);
      headers.push({ name: header.name as string, value: header.value as string });
    }
    if (headers.length > 0) modifier[part] = headers;
  }
  const remove: string[] = [];
  for (const [index, name] of arrayOr(filter.remove).entries()) {
    const problem = checkHeaderName(name);
    if (problem !== undefined) throw new InvalidRule(`${field}.remove[${index}]`, problem, name);
    remove.push(name as string);
  }
  if (remove.length > 0) modifier.remove = remove;
  return modifier;
}

function translatePathModifier(raw: unknown, field: string, matches: readonly RouteMatch[]): PathModifier {
  const path = objectOr<{ type: unknown; replaceFullPath: unknown; replacePrefixMatch: unknown }>(raw);
  if (path.type === 'ReplaceFullPath' || path.type === 'ReplacePrefixMatch') {
    const value = path.type === 'ReplaceFullPath' ? path.replaceFullPath : path.replacePrefixMatch;
    const valueField = `${field}.${path.type === 'ReplaceFullPath' ? 'replaceFullPath' : 'replacePrefixMatch'}`;
    const parsed = parseLiteralPath(value);
    if (!parsed.ok) throw new InvalidRule(valueField, parsed.message, value);
    if (path.type === 'ReplacePrefixMatch' && !matches.every((match) => match.path.type === 'PathPrefix')) {
      throw new InvalidRule(field, 'ReplacePrefixMatch needs every match of the rule to be a PathPrefix');
    }
    return { type: path.type, value: parsed.path };
  }
  throw new InvalidRule(`${field}.type`, 'must be ReplaceFullPath or ReplacePrefixMatch', path.type);
}

function translateRedirect(raw: unknown, field: string, matches: readonly RouteMatch[]): Redirect {
  if (typeof raw !== 'object' || raw === null)
    throw new InvalidRule(field, 'is required for this filter type');
  const redirect = raw as {
    scheme?: unknown;
    hostname?: unknown;
    port?: unknown;
    path?: unknown;
    statusCode?: unknown;
  };
  const statusCode = redirect.statusCode ?? 302;
  if (typeof statusCode !== 'number' || !REDIRECT_CODES.has(statusCode)) {
    throw new InvalidRule(`${field}.statusCode`, 'must be 301, 302, 303, 307 or 308', statusCode);
  }
  const result: Redirect = { statusCode: statusCode as Redirect['statusCode'] };
  if (redirect.scheme !== undefined && redirect.scheme !== null) {
    if (redirect.scheme !== 'http' && redirect.scheme !== 'https') {
      throw new InvalidRule(`${field}.scheme`, 'must be http or https', redirect.scheme);
    }
    result.scheme = redirect.scheme;
  }
  if (redirect.hostname !== undefined && redirect.hostname !== null) {
    const problem = checkPreciseHostname(redirect.hostname);
    if (problem !== undefined) throw new InvalidRule(`${field}.hostname`, problem, redirect.hostname);
    result.hostname = redirect.hostname as string;
  }
  if (redirect.port !== undefined && redirect.port !== null) {
    if (!isPortNumber(redirect.port))
      throw new InvalidRule(`${field}.port`, 'must be a port number 1-65535', redirect.port);
    result.port = redirect.port;
  }
  if (redirect.path !== undefined && redirect.path !== null) {
    result.path = translatePathModifier(redirect.path, `${field}.path`, matches);
  }
  return result;
}

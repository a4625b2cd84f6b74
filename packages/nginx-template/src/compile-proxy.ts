/**
 * The proxy policies served in Lua → their entries: a hash key as nginx variables and text, the
 * number of endpoints tried, and the response header rewrites. A value that could inject into a
 * header, or name a variable outside the hash key grammar, makes the route answer 500.
 */
import type { HashKeyPart, ResponseRewrite, RoutePolicy } from '@ingresskit/route-model';
import type { PolicyEntry } from './data-entries.js';

/** What compiling reports: a fatal error, by field. */
export interface ProxyIssues {
  error(field: string, message: string, value?: unknown): undefined;
}

const NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const TEXT = /^[A-Za-z0-9._~:/-]{1,256}$/;
// Visible ASCII without spaces, quotes, `;` or `\`: cannot end a header value or an attribute.
const REWRITE = /^[\x21\x23-\x3a\x3c-\x5b\x5d-\x7e]{1,1024}$/;
const VARIABLES: Readonly<Record<string, string>> = {
  requestUri: 'request_uri',
  path: 'uri',
  host: 'host',
  clientAddress: 'remote_addr',
};

/** A hash key part as `['text' | 'var', value]` for Lua (an nginx variable name for 'var'). */
export function compileHashPart(
  part: HashKeyPart,
  field: string,
  out: ProxyIssues,
): ['text' | 'var', string] | undefined {
  if (part.type === 'text') {
    return typeof part.value === 'string' && TEXT.test(part.value)
      ? ['text', part.value]
      : out.error(`${field}.value`, 'must be letters, digits and . _ ~ : / -', part.value);
  }
  if (Object.hasOwn(VARIABLES, part.type)) return ['var', VARIABLES[part.type]!];
  if (part.type === 'header' || part.type === 'cookie' || part.type === 'query') {
    if (typeof part.name !== 'string' || !NAME.test(part.name))
      return out.error(`${field}.name`, 'must be a name', part.name);
    if (part.type === 'header') return ['var', `http_${part.name.toLowerCase().replace(/-/g, '_')}`];
    return ['var', `${part.type === 'cookie' ? 'cookie' : 'arg'}_${part.name}`];
  }
  return out.error(`${field}.type`, 'is not a hash key part', (part as { type?: unknown }).type);
}

function compileRewritePair(
  rewrite: ResponseRewrite,
  field: string,
  out: ProxyIssues,
): [string, string] | undefined {
  if (typeof rewrite.from !== 'string' || !REWRITE.test(rewrite.from))
    return out.error(`${field}.from`, 'must be visible text without spaces, quotes, ; or \\', rewrite.from);
  if (typeof rewrite.to !== 'string' || !REWRITE.test(rewrite.to))
    return out.error(`${field}.to`, 'must be visible text without spaces, quotes, ; or \\', rewrite.to);
  return [rewrite.from, rewrite.to];
}

/** Adds the proxy policies of `policy` to `entry`; errors go to `out`. */
export function compileProxyPolicy(policy: RoutePolicy, entry: PolicyEntry, out: ProxyIssues): void {
  if (policy.hashKey !== undefined) {
    const parts: ['text' | 'var', string][] = [];
    for (const [index, part] of (Array.isArray(policy.hashKey) ? policy.hashKey : []).entries()) {
      const compiled = compileHashPart(part, `policy.hashKey[${index}]`, out);
      if (compiled === undefined) return;
      parts.push(compiled);
    }
    if (!parts.some(([kind]) => kind === 'var')) {
      out.error('policy.hashKey', 'must hold a part of the request');
      return;
    }
    entry.hash = parts;
    if (policy.hashSubsetSize !== undefined) {
      const size = policy.hashSubsetSize;
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 999) {
        out.error('policy.hashSubsetSize', 'must be a whole number from 1 to 999', size);
        return;
      }
      entry.subset = size;
    }
  }
  if (policy.loadBalancing !== undefined) {
    if (policy.loadBalancing !== 'round-robin' && policy.loadBalancing !== 'ewma') {
      out.error('policy.loadBalancing', 'must be round-robin or ewma', policy.loadBalancing);
      return;
    }
    if (policy.loadBalancing === 'ewma') entry.balance = 'ewma';
  }
  if (policy.upstreamTries !== undefined) {
    const tries = policy.upstreamTries;
    if (typeof tries !== 'number' || !Number.isInteger(tries) || tries < 0 || tries > 100) {
      out.error('policy.upstreamTries', 'must be a whole number from 0 to 100', tries);
      return;
    }
    entry.tries = tries;
  }
  if (policy.upstreamConnectionHeader !== undefined) {
    const value = policy.upstreamConnectionHeader;
    if (
      typeof value !== 'string' ||
      !/^[A-Za-z0-9-]+(?:, ?[A-Za-z0-9-]+)*$/.test(value) ||
      value.length > 128
    ) {
      out.error('policy.upstreamConnectionHeader', 'must be connection options separated by ","', value);
      return;
    }
    entry.connection = value;
  }
  if (policy.accessLog === false) entry.noLog = true;
  if (policy.satisfy !== undefined) {
    if (policy.satisfy !== 'any') {
      out.error('policy.satisfy', 'must be any', policy.satisfy);
      return;
    }
    entry.satisfyAny = true;
  }
  const rewrites = [
    ['locationRewrite', 'location'],
    ['cookieDomainRewrite', 'cookieDomain'],
    ['cookiePathRewrite', 'cookiePath'],
  ] as const;
  for (const [name, key] of rewrites) {
    const rewrite = policy[name];
    if (rewrite === undefined) continue;
    const pair = compileRewritePair(rewrite, `policy.${name}`, out);
    if (pair === undefined) return;
    entry[key] = pair;
  }
}

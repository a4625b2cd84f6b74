/**
 * ingress-nginx proxy annotations served in Lua: upstream-hash-by (an nginx variable expression,
 * read into hash key parts), proxy-next-upstream-tries, proxy-redirect-from/-to,
 * proxy-cookie-domain and proxy-cookie-path (literal prefixes, as nginx's proxy_redirect and
 * proxy_cookie_* take them without `~` or variables).
 */
import type { HashKeyPart, ResponseRewrite } from '@ingresskit/route-model';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationProblem,
  type IngressAnnotations,
  type AnnotationParser,
} from './annotation-types.js';
import type { ProxyAnnotations } from './annotation-parts.js';

// Text that may stand in a rewrite: visible ASCII without spaces, quotes, `;`, `$` or `\`.
const LITERAL = /^[\x21\x23\x25-\x3a\x3c-\x5b\x5d-\x7e]{1,1024}$/;
const HASH_TEXT = /^[A-Za-z0-9._~:/-]+$/;
const VARIABLE = /\$(?:\{([a-z0-9_]+)\}|([a-z0-9_]+))/g;
const NAMED: Readonly<Record<string, HashKeyPart>> = {
  request_uri: { type: 'requestUri' },
  uri: { type: 'path' },
  document_uri: { type: 'path' },
  host: { type: 'host' },
  remote_addr: { type: 'clientAddress' },
  binary_remote_addr: { type: 'clientAddress' },
};

function proxyOf(into: IngressAnnotations): ProxyAnnotations {
  return (into.proxy ??= {});
}

/** An nginx variable name → a hash key part, or undefined for one we do not read. */
function partOf(variable: string): HashKeyPart | undefined {
  if (Object.hasOwn(NAMED, variable)) return { ...NAMED[variable]! };
  for (const [prefix, type] of [
    ['http_', 'header'],
    ['cookie_', 'cookie'],
    ['arg_', 'query'],
  ] as const) {
    if (variable.startsWith(prefix) && variable.length > prefix.length) {
      const name = variable.slice(prefix.length);
      return { type, name: type === 'header' ? name.replace(/_/g, '-') : name };
    }
  }
  return undefined;
}

/** `$request_uri`, `$host$uri`, `${arg_user}-x` → key parts; or why not. */
export function parseHashKey(value: string): HashKeyPart[] | string {
  if (value.length > 256) return 'must be at most 256 characters';
  const parts: HashKeyPart[] = [];
  let last = 0;
  for (const match of value.matchAll(VARIABLE)) {
    const text = value.slice(last, match.index);
    if (text !== '') {
      if (!HASH_TEXT.test(text)) return `"${text}" must be letters, digits and . _ ~ : / -`;
      parts.push({ type: 'text', value: text });
    }
    const variable = match[1] ?? match[2]!;
    const part = partOf(variable);
    if (part === undefined) {
      return `variable $${variable} is not supported (use $request_uri, $uri, $host, $remote_addr, $http_*, $cookie_* or $arg_*)`;
    }
    parts.push(part);
    last = match.index + match[0].length;
  }
  const rest = value.slice(last);
  if (rest !== '') {
    if (!HASH_TEXT.test(rest)) return `"${rest}" must be letters, digits and . _ ~ : / -`;
    parts.push({ type: 'text', value: rest });
  }
  if (!parts.some((part) => part.type !== 'text'))
    return 'must name at least one variable, such as $request_uri';
  return parts;
}

function parsePair(set: (proxy: ProxyAnnotations, value: ResponseRewrite | 'off') => void): AnnotationParser {
  return (value, into) => {
    if (value === 'off') {
      set(proxyOf(into), 'off');
      return undefined;
    }
    const words = value.trim().split(/ +/);
    if (words.length !== 2 || !words.every((word) => LITERAL.test(word))) {
      return 'must be "off" or "<from> <to>", literal text without $, quotes, ; or \\';
    }
    set(proxyOf(into), { from: words[0]!, to: words[1]! });
    return undefined;
  };
}

/** The parsers of the proxy annotations served in Lua. */
export const PROXY_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'upstream-hash-by': (value, into) => {
    const key = parseHashKey(value);
    if (typeof key === 'string') return key;
    proxyOf(into).hashKey = key;
    return undefined;
  },
  'upstream-hash-by-subset': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    proxyOf(into).hashSubset = on;
    return undefined;
  },
  'upstream-hash-by-subset-size': (value, into) => {
    if (!/^[1-9][0-9]{0,2}$/.test(value)) return 'must be a whole number from 1 to 999';
    proxyOf(into).hashSubsetSize = Number(value);
    return undefined;
  },
  'load-balance': (value, into) => {
    if (value !== 'round_robin' && value !== 'ewma') return 'must be "round_robin" or "ewma"';
    proxyOf(into).loadBalancing = value === 'ewma' ? 'ewma' : 'round-robin';
    return undefined;
  },
  'connection-proxy-header': (value, into) => {
    if (!/^[A-Za-z0-9-]+(?:, ?[A-Za-z0-9-]+)*$/.test(value) || value.length > 128) {
      return 'must be connection options such as keep-alive or close, separated by ","';
    }
    proxyOf(into).connectionHeader = value;
    return undefined;
  },
  'enable-access-log': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    proxyOf(into).accessLog = on;
    return undefined;
  },
  satisfy: (value, into) => {
    if (value !== 'any' && value !== 'all') return 'must be "any" or "all"';
    proxyOf(into).satisfyAny = value === 'any';
    return undefined;
  },
  'service-upstream': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    into.serviceUpstream = on;
    return undefined;
  },
  'proxy-next-upstream-tries': (value, into) => {
    if (!/^[0-9]{1,3}$/.test(value) || Number(value) > 100) return 'must be a whole number from 0 to 100';
    proxyOf(into).upstreamTries = Number(value);
    return undefined;
  },
  'proxy-redirect-from': (value, into) => {
    if (value !== 'off' && !LITERAL.test(value)) {
      return 'must be "off" or literal text without spaces, $, quotes, ; or \\ ("default" and regexes are not supported)';
    }
    if (value === 'default' || value.startsWith('~'))
      return '"default" and regular expressions are not supported';
    proxyOf(into).redirectFrom = value;
    return undefined;
  },
  'proxy-redirect-to': (value, into) => {
    if (!LITERAL.test(value)) return 'must be literal text without spaces, $, quotes, ; or \\';
    proxyOf(into).redirectTo = value;
    return undefined;
  },
  'proxy-cookie-domain': parsePair((proxy, value) => (proxy.cookieDomain = value)),
  'proxy-cookie-path': parsePair((proxy, value) => (proxy.cookiePath = value)),
};

/** The Location rewrite of proxy-redirect-from/-to (both needed, from not "off"), with warnings. */
export function combineProxy(
  proxy: ProxyAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
): ResponseRewrite | undefined {
  if (proxy === undefined) return undefined;
  const { redirectFrom, redirectTo } = proxy;
  if (redirectFrom !== undefined && redirectFrom !== 'off' && redirectTo !== undefined) {
    return { from: redirectFrom, to: redirectTo };
  }
  if ((redirectFrom === undefined) !== (redirectTo === undefined) && redirectFrom !== 'off') {
    const name = redirectFrom === undefined ? 'proxy-redirect-to' : 'proxy-redirect-from';
    const other = redirectFrom === undefined ? 'proxy-redirect-from' : 'proxy-redirect-to';
    problems.push({
      field: annotationField(`${withPrefix}${name}`),
      message: `annotation "${name}" has no effect without ${other}`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
  return undefined;
}

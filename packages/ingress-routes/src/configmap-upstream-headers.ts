/**
 * The controller ConfigMap's generate-request-id, proxy-add-original-uri-header and hide-headers:
 * headers nginx adds to every request to a backend, and those it hides from every response. nginx
 * takes them from nginx.conf (a reload).
 */
import { BOOLEAN_PROBLEM, readBoolean, splitCommaList } from './grammar.js';
import type { IngressNginxConfigKey } from './configmap-key.js';

/** What the keys set (names as nginx-template's RenderOptions.upstreamHeaders). */
export interface ConfigMapUpstreamHeaders {
  /** generate-request-id: X-Request-ID is the client's, else one nginx makes (default true). */
  requestId?: boolean;
  /** proxy-add-original-uri-header: X-Original-URI is the request URI as sent (default false). */
  originalUri?: boolean;
  /** hide-headers: response headers of backends never passed on. */
  hide?: string[];
}

/** The part of ConfigMapNginxSettings these keys set. */
export interface UpstreamHeaderSettings {
  /** generate-request-id, proxy-add-original-uri-header, hide-headers. */
  upstreamHeaders?: ConfigMapUpstreamHeaders;
}

const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;
const MAX_HIDDEN = 64;

function headersOf(into: UpstreamHeaderSettings): ConfigMapUpstreamHeaders {
  return (into.upstreamHeaders = { ...into.upstreamHeaders });
}

function flag(set: (headers: ConfigMapUpstreamHeaders, on: boolean) => void) {
  return (value: string, into: UpstreamHeaderSettings): string | undefined => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    set(headersOf(into), on);
    return undefined;
  };
}

/** How each key is read into ConfigMapNginxSettings: the reason it is invalid, or undefined. */
export const UPSTREAM_HEADER_KEYS: Readonly<
  Record<string, (value: string, into: UpstreamHeaderSettings) => string | undefined>
> = {
  'generate-request-id': flag((headers, on) => (headers.requestId = on)),
  'proxy-add-original-uri-header': flag((headers, on) => (headers.originalUri = on)),
  'hide-headers': (value, into) => {
    const names = splitCommaList(value);
    if (names.length > MAX_HIDDEN) return `must name at most ${MAX_HIDDEN} headers`;
    const bad = names.find((name) => !HEADER_NAME.test(name));
    if (bad !== undefined) return `holds "${bad}", which is not a header name (A-Z a-z 0-9 -, at most 64)`;
    headersOf(into).hide = [...new Set(names)];
    return undefined;
  },
};

/** The catalogue rows of UPSTREAM_HEADER_KEYS. */
export const UPSTREAM_HEADER_ROWS: readonly IngressNginxConfigKey[] = [
  {
    name: 'generate-request-id',
    applied: 'reload',
    difference:
      "X-Request-ID goes to HTTP and gRPC backends of every route (the client's, else nginx's $request_id; \"false\": the client's only), not to auth-url services, which get nginx's own",
  },
  { name: 'proxy-add-original-uri-header', applied: 'reload' },
  {
    name: 'hide-headers',
    applied: 'reload',
    difference: `header names (A-Z a-z 0-9 -, at most ${MAX_HIDDEN}) separated by commas, hidden from the responses of HTTP backends (not gRPC ones, as ingress-nginx)`,
  },
];

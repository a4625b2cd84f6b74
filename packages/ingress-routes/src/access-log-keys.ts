/**
 * The access log keys of ingress-nginx's ConfigMap (log-format-upstream, its escape keys, the
 * paths, access-log-params, skip-access-log-urls, and the stream log's log-format-stream and
 * stream-access-log-path): their catalogue entries, and each read and checked into what the data
 * plane's access logs are rendered from.
 */
import { BOOLEAN_PROBLEM, checkFilePath, readBoolean } from './grammar.js';
import { parseAccessLogFormat, type AccessLogPart } from './access-log-format.js';
import { parseStreamLogFormat } from './stream-log-format.js';
import type { IngressNginxConfigKey } from './configmap-key.js';

/** The access log a ConfigMap asks for; absent fields are the data plane's defaults. */
export interface ConfigMapAccessLog {
  /** An absolute file path: http-access-log-path, else access-log-path. */
  path?: string;
  /** log-format-upstream. */
  format?: AccessLogPart[];
  /** log-format-escape-none, else log-format-escape-json; absent: nginx's default escaping. */
  escape?: 'json' | 'none';
  /** access-log-params: buffer=SIZE (nginx size syntax), flush=TIME (nginx time syntax), gzip=LEVEL. */
  buffer?: string;
  flush?: string;
  gzipLevel?: number;
  /** skip-access-log-urls: request URIs (path and query, compared as nginx's map does) not logged. */
  skipUris?: string[];
  /** The TCP/UDP services' log: stream-access-log-path, else access-log-path. */
  streamPath?: string;
  /** log-format-stream. */
  streamFormat?: AccessLogPart[];
}

/** The keys as read, before the two paths and the two escape keys are combined. */
export interface AccessLogKeys {
  path?: string;
  httpPath?: string;
  format?: AccessLogPart[];
  escapeJson?: boolean;
  escapeNone?: boolean;
  params?: Pick<ConfigMapAccessLog, 'buffer' | 'flush' | 'gzipLevel'>;
  skipUris?: string[];
  streamPath?: string;
  streamFormat?: AccessLogPart[];
}

/** Most URIs skip-access-log-urls may list. */
export const MAX_SKIPPED_URIS = 1000;

const WHEN_LOGGING = 'the access log is written when disable-access-log is "false" (see above)';
const TRAILING_SPACE =
  'Trailing spaces and newlines are dropped (a YAML block scalar ends in one, which ingress-nginx would log as an empty line after each entry); a newline inside the value is refused';

/** The log format keys, whose trailing whitespace is dropped before they are read. */
const LOG_FORMAT_KEYS = new Set(['log-format-upstream', 'log-format-stream']);

/**
 * A ConfigMap value as the access log keys read it: a log format without its trailing spaces and
 * newlines (`log-format-upstream: |` ends in a newline); any other value as it is.
 */
export function trimConfigMapValue(name: string, value: string): string {
  return LOG_FORMAT_KEYS.has(name) ? value.trimEnd() : value;
}

/** The catalogue entries of the access log keys but disable-access-log. */
export const ACCESS_LOG_CONFIG_KEYS: IngressNginxConfigKey[] = [
  {
    name: 'log-format-upstream',
    applied: 'reload',
    difference: `read as text and variables, rendered by ingresskit: literal text is printable ASCII without "\\"; variables are nginx's and ingress-nginx's $proxy_upstream_name (the backend that served, as NAMESPACE/SERVICE:PORT), $proxy_alternative_upstream_name (the canary backend when it served), $req_id, $the_real_ip, $namespace, $ingress_name, $service_name, $service_port (the port as written: a number or a name), $location_path (the path as written), the last five empty when no route matched (of a Gateway API route, $namespace and $ingress_name are its HTTPRoute's, the others empty). ${TRAILING_SPACE}. Without it, ingresskit's own format`,
  },
  {
    name: 'log-format-stream',
    applied: 'reload',
    difference: `read as text and variables like log-format-upstream; variables are those of nginx's stream core, log and upstream modules and ingress-nginx's $proxy_upstream_name (tcp-NAMESPACE-SERVICE-PORT or udp-NAMESPACE-SERVICE-PORT, the port as the services ConfigMap entry writes it). ${TRAILING_SPACE}. The TCP/UDP services' connections are logged when the access log is on (disable-access-log "false")`,
  },
  {
    name: 'stream-access-log-path',
    applied: 'reload',
    difference: `as access-log-path, which it defaults to; access-log-params apply to it too`,
  },
  ...['log-format-escape-json', 'log-format-escape-none'].map((name) => ({
    name,
    applied: 'reload' as const,
  })),
  ...['access-log-path', 'http-access-log-path'].map((name) => ({
    name,
    applied: 'reload' as const,
    difference: `an absolute file path of A-Z a-z 0-9 . _ ~ + @ - /, the data plane's access.log by default; /dev/stdout and /dev/stderr are refused (nginx's output is the controller's socket); ${WHEN_LOGGING}`,
  })),
  {
    name: 'access-log-params',
    applied: 'reload',
    difference: 'buffer=SIZE, flush=TIME and gzip[=LEVEL] only, separated by spaces or commas',
  },
  {
    name: 'skip-access-log-urls',
    applied: 'reload',
    difference: `request URIs (path and query, as ingress-nginx's map on $request_uri compares them: exactly, without case) starting with "/", without spaces, quotes, ";" or "$"; at most ${MAX_SKIPPED_URIS}`,
  },
  {
    name: 'enable-access-log-for-default-backend',
    applied: 'live',
    difference:
      'every request no route matches, answered by --default-backend-service or 404; ingress-nginx leaves out only those of hosts no Ingress names',
  },
];

// A request URI as nginx sees it before decoding: RFC 3986's path and query characters (percent
// escapes included), without the quote, `;` and `$` that nginx.conf would read.
const URI = /^\/[A-Za-z0-9._~!&()*+,=:@/?%-]{0,1023}$/;
const SIZE = /^[1-9][0-9]{0,6}[kKmM]?$/;
const TIME = /^[1-9][0-9]{0,5}(?:ms|s|m|h)?$/;

function readPath(value: string): string | { path: string } {
  if (value === '/dev/stdout' || value === '/dev/stderr')
    return `is ${value}, which nginx cannot open here: its output is a socket to the controller, which logs it; give a file path`;
  return checkFilePath(value) ?? { path: value };
}

/** access-log-params: nginx's access_log parameters buffer=, flush= and gzip[=], separated by spaces or commas. */
export function parseAccessLogParams(value: string): NonNullable<AccessLogKeys['params']> | string {
  const params: NonNullable<AccessLogKeys['params']> = {};
  const words = value.split(/[\s,]+/).filter((word) => word !== '');
  for (const word of words) {
    const equals = word.indexOf('=');
    const name = equals < 0 ? word : word.slice(0, equals);
    const argument = equals < 0 ? undefined : word.slice(equals + 1);
    if ((name === 'buffer' || name === 'flush') && Object.hasOwn(params, name)) return `names ${name} twice`;
    if (name === 'gzip' && params.gzipLevel !== undefined) return 'names gzip twice';
    if (name === 'buffer' && argument !== undefined && SIZE.test(argument)) params.buffer = argument;
    else if (name === 'flush' && argument !== undefined && TIME.test(argument)) params.flush = argument;
    else if (name === 'gzip' && (argument === undefined || /^[1-9]$/.test(argument)))
      params.gzipLevel = argument === undefined ? 1 : Number(argument);
    else
      return `holds ${JSON.stringify(word)}: only buffer=SIZE (such as 16k), flush=TIME (such as 5s or 1m) and gzip or gzip=1..9 are taken`;
  }
  // nginx: "no buffer is defined for access_log" when flush comes without a buffer.
  if (params.flush !== undefined && params.buffer === undefined && params.gzipLevel === undefined)
    return 'names flush without buffer or gzip';
  return params;
}

/** skip-access-log-urls: request URIs separated by commas, as ingress-nginx splits them. */
export function parseSkippedUris(value: string): string[] | string {
  const uris = value
    .split(',')
    .map((uri) => uri.trim())
    .filter((uri) => uri !== '');
  if (uris.length > MAX_SKIPPED_URIS) return `must list at most ${MAX_SKIPPED_URIS} URLs`;
  const bad = uris.find((uri) => !URI.test(uri));
  if (bad !== undefined)
    return `holds ${JSON.stringify(bad)}, which is not a URL path (starting with "/", without spaces, quotes, ";" or "$")`;
  // nginx's map compares strings without case, and refuses a key given twice.
  const seen = new Set<string>();
  return uris.filter((uri) => {
    const key = uri.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A key's reader: `parse` gives the value or why it is invalid; `set` keeps a valid one. */
function reader<T>(parse: (value: string) => T | string, set: (into: AccessLogKeys, value: T) => void) {
  return (value: string, into: AccessLogKeys): string | undefined => {
    const parsed = parse(value);
    if (typeof parsed === 'string') return parsed;
    set(into, parsed);
    return undefined;
  };
}

function readFlag(value: string): boolean | string {
  return readBoolean(value) ?? BOOLEAN_PROBLEM;
}

/** How each access log key is read into AccessLogKeys: the reason it is invalid, or undefined. */
export const ACCESS_LOG_KEYS: Readonly<
  Record<string, (value: string, into: AccessLogKeys) => string | undefined>
> = {
  'log-format-upstream': reader(parseAccessLogFormat, (into, format) => (into.format = format)),
  'log-format-escape-json': reader(readFlag, (into, on) => (into.escapeJson = on)),
  'log-format-escape-none': reader(readFlag, (into, on) => (into.escapeNone = on)),
  'access-log-path': reader(readPath, (into, { path }) => (into.path = path)),
  'http-access-log-path': reader(readPath, (into, { path }) => (into.httpPath = path)),
  'access-log-params': reader(parseAccessLogParams, (into, params) => (into.params = params)),
  'skip-access-log-urls': reader(parseSkippedUris, (into, uris) => (into.skipUris = uris)),
  'log-format-stream': reader(parseStreamLogFormat, (into, format) => (into.streamFormat = format)),
  'stream-access-log-path': reader(readPath, (into, { path }) => (into.streamPath = path)),
};

/** The access log the keys ask for, as ingress-nginx combines them; undefined when none is set. */
export function createConfigMapAccessLog(keys: AccessLogKeys): ConfigMapAccessLog | undefined {
  const log: ConfigMapAccessLog = {};
  const path = keys.httpPath ?? keys.path;
  if (path !== undefined) log.path = path;
  if (keys.format !== undefined) log.format = keys.format;
  if (keys.escapeNone === true) log.escape = 'none';
  else if (keys.escapeJson === true) log.escape = 'json';
  Object.assign(log, keys.params);
  if (keys.skipUris !== undefined && keys.skipUris.length > 0) log.skipUris = keys.skipUris;
  // ingress-nginx: `or StreamAccessLogPath AccessLogPath`; http-access-log-path is not the stream's.
  const streamPath = keys.streamPath ?? keys.path;
  if (streamPath !== undefined) log.streamPath = streamPath;
  if (keys.streamFormat !== undefined) log.streamFormat = keys.streamFormat;
  return Object.keys(log).length === 0 ? undefined : log;
}

/**
 * ingress-nginx's `log-format-upstream` read as data: literal text and variables, each checked, so
 * the data plane renders its own log format from the parts and no ConfigMap text reaches
 * nginx.conf as it was written.
 */

/** One piece of an access log format: literal text, an nginx variable, or a value the gateway provides. */
export type AccessLogPart = { text: string } | { variable: string } | { field: AccessLogField };

/**
 * Values ingress-nginx's log format names with variables of its own, provided by the data plane:
 * the backend that served the request (`$proxy_upstream_name`), the canary backend when the
 * canary served it (`$proxy_alternative_upstream_name`), the request id (`$req_id`: the
 * client's X-Request-ID, else nginx's own), and where the route that answered comes from: its
 * Ingress (`$namespace`, `$ingress_name`), the Service and port its path names (`$service_name`,
 * `$service_port`) and the path as written (`$location_path`), all empty when no route matched.
 */
export type AccessLogField =
  | 'backend'
  | 'alternative-backend'
  | 'request-id'
  | 'namespace'
  | 'ingress-name'
  | 'service-name'
  | 'service-port'
  | 'location-path';

/** ingress-nginx's default log-format-upstream. */
export const INGRESS_NGINX_LOG_FORMAT =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id';

/** Most characters a format may hold: far beyond any real one. */
export const MAX_LOG_FORMAT_LENGTH = 4096;

/** ingress-nginx's own variables, as the data plane provides them. */
const INGRESS_NGINX_VARIABLES: Readonly<Record<string, AccessLogPart>> = {
  proxy_upstream_name: { field: 'backend' },
  proxy_alternative_upstream_name: { field: 'alternative-backend' },
  req_id: { field: 'request-id' },
  namespace: { field: 'namespace' },
  ingress_name: { field: 'ingress-name' },
  service_name: { field: 'service-name' },
  service_port: { field: 'service-port' },
  location_path: { field: 'location-path' },
  // ingress-nginx's client address: the realip module has already put it in $remote_addr here,
  // from the PROXY protocol or the forwarded-for header when they are believed.
  the_real_ip: { variable: 'remote_addr' },
};

/** nginx's HTTP variables (core, log, upstream, proxy, ssl, realip, gzip, http2), by name. */
const NGINX_VARIABLES = new Set([
  'args',
  'binary_remote_addr',
  'body_bytes_sent',
  'bytes_sent',
  'connection',
  'connection_requests',
  'connection_time',
  'content_length',
  'content_type',
  'document_uri',
  'gzip_ratio',
  'host',
  'hostname',
  'http2',
  'https',
  'is_args',
  'msec',
  'nginx_version',
  'pid',
  'pipe',
  'proxy_add_x_forwarded_for',
  'proxy_host',
  'proxy_port',
  'proxy_protocol_addr',
  'proxy_protocol_port',
  'proxy_protocol_server_addr',
  'proxy_protocol_server_port',
  'query_string',
  'realip_remote_addr',
  'realip_remote_port',
  'remote_addr',
  'remote_port',
  'remote_user',
  'request',
  'request_completion',
  'request_id',
  'request_length',
  'request_method',
  'request_time',
  'request_uri',
  'scheme',
  'server_addr',
  'server_name',
  'server_port',
  'server_protocol',
  'ssl_cipher',
  'ssl_client_fingerprint',
  'ssl_client_i_dn',
  'ssl_client_s_dn',
  'ssl_client_serial',
  'ssl_client_verify',
  'ssl_curve',
  'ssl_protocol',
  'ssl_server_name',
  'ssl_session_id',
  'ssl_session_reused',
  'status',
  'tcpinfo_rtt',
  'tcpinfo_rttvar',
  'tcpinfo_snd_cwnd',
  'tcpinfo_rcv_space',
  'time_iso8601',
  'time_local',
  'upstream_addr',
  'upstream_bytes_received',
  'upstream_bytes_sent',
  'upstream_cache_status',
  'upstream_connect_time',
  'upstream_header_time',
  'upstream_response_length',
  'upstream_response_time',
  'upstream_status',
  'uri',
]);

/** nginx's families of variables named after a header, cookie or argument. */
const NGINX_VARIABLE_PREFIXES = [
  'http_',
  'sent_http_',
  'sent_trailer_',
  'cookie_',
  'arg_',
  'upstream_http_',
  'upstream_cookie_',
  'upstream_trailer_',
];

// Printable ASCII but the backslash (an escape in nginx.conf) and `$` (which starts a variable).
const TEXT = /^[\x20-\x23\x25-\x5b\x5d-\x7e]$/;
const NAME = /^[a-z0-9_]+$/;

/** The part a variable name stands for, or why it cannot be logged. */
function readVariable(name: string): AccessLogPart | string {
  if (!NAME.test(name)) return `names the variable "$${name}", which is not of a-z 0-9 _`;
  const own = INGRESS_NGINX_VARIABLES[name];
  if (own !== undefined) return own;
  if (NGINX_VARIABLES.has(name)) return { variable: name };
  const prefix = NGINX_VARIABLE_PREFIXES.find((start) => name.startsWith(start));
  if (prefix !== undefined && name.length > prefix.length) return { variable: name };
  return `names "$${name}", which is not a variable nginx or ingresskit defines`;
}

/**
 * Reads a log format as nginx's log_format does: `$name` and `${name}` are variables, the rest
 * literal text. The parts, or why the format cannot be used (naming the offending variable or
 * character). Adjacent text is merged.
 */
export function parseAccessLogFormat(format: string): AccessLogPart[] | string {
  return parseLogFormat(format, readVariable);
}

/**
 * Reads a log format into parts, each variable as `readName` says (its part, or why it cannot be
 * logged); the parser of log-format-upstream and log-format-stream.
 */
export function parseLogFormat(
  format: string,
  readName: (name: string) => AccessLogPart | string,
): AccessLogPart[] | string {
  if (format.trim() === '') return 'must not be empty';
  if (format.length > MAX_LOG_FORMAT_LENGTH) return `must be at most ${MAX_LOG_FORMAT_LENGTH} characters`;
  const parts: AccessLogPart[] = [];
  const pushText = (text: string) => {
    const last = parts.at(-1);
    if (last !== undefined && 'text' in last) last.text += text;
    else parts.push({ text });
  };
  let at = 0;
  while (at < format.length) {
    const char = format[at]!;
    if (char !== '$') {
      if (!TEXT.test(char))
        return `holds ${JSON.stringify(char)} at ${at}: literal text is printable ASCII without "\\"`;
      pushText(char);
      at += 1;
      continue;
    }
    let name: string;
    if (format[at + 1] === '{') {
      const end = format.indexOf('}', at + 2);
      if (end < 0) return `holds "\${" at ${at} without its "}"`;
      name = format.slice(at + 2, end);
      at = end + 1;
    } else {
      const match = /^[A-Za-z0-9_]*/.exec(format.slice(at + 1))![0];
      name = match;
      at += 1 + match.length;
    }
    if (name === '') return `holds a "$" at ${at - 1} that starts no variable`;
    const part = readName(name);
    if (typeof part === 'string') return part;
    if ('text' in part) pushText(part.text);
    else parts.push(part);
  }
  return parts;
}

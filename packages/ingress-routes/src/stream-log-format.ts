/**
 * ingress-nginx's `log-format-stream` read as data: the log line of a TCP or UDP service's
 * connection, of literal text, the variables nginx's stream modules define and ingress-nginx's
 * `$proxy_upstream_name`.
 */
import { parseLogFormat, type AccessLogPart } from './access-log-format.js';

/** ingress-nginx's default log-format-stream. */
export const INGRESS_NGINX_STREAM_LOG_FORMAT =
  '[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time';

/**
 * The variables of nginx's stream core, log and upstream modules, which every nginx with the
 * stream module has (the realip and ssl_preread ones are left out: they are optional modules,
 * and no stream server here turns them on).
 */
const STREAM_VARIABLES = new Set([
  'binary_remote_addr',
  'bytes_received',
  'bytes_sent',
  'connection',
  'hostname',
  'msec',
  'nginx_version',
  'pid',
  'protocol',
  'proxy_protocol_addr',
  'proxy_protocol_port',
  'proxy_protocol_server_addr',
  'proxy_protocol_server_port',
  'remote_addr',
  'remote_port',
  'server_addr',
  'server_port',
  'session_time',
  'status',
  'time_iso8601',
  'time_local',
  'upstream_addr',
  'upstream_bytes_received',
  'upstream_bytes_sent',
  'upstream_connect_time',
  'upstream_first_byte_time',
  'upstream_session_time',
]);

function readStreamVariable(name: string): AccessLogPart | string {
  if (STREAM_VARIABLES.has(name)) return { variable: name };
  // ingress-nginx sets it from Lua in its stream servers; ours `set` it (nginx-template).
  if (name === 'proxy_upstream_name') return { variable: name };
  return `names "$${name}", which is not a variable of nginx's stream modules`;
}

/**
 * Reads a stream log format as nginx's stream log_format does: the parts (text and stream
 * variables), or why the format cannot be used.
 */
export function parseStreamLogFormat(format: string): AccessLogPart[] | string {
  return parseLogFormat(format, readStreamVariable);
}

/**
 * The access log of the TCP and UDP services (the stream block): a line per connection, in the
 * operator's format or ingress-nginx's log-format-stream, written while the HTTP access log is on.
 */
import { isRenderedLogFormat, renderPlainLogFormat, type AccessLogPart } from './access-log.js';
import { UnsafeValueError } from './errors.js';

/** How the stream servers' connections are logged. */
export interface StreamAccessLogOptions {
  /** The file; default RenderOptions.accessLogPath. false: none. */
  path?: string | false;
  /** Text and nginx stream variables; default ingress-nginx's log-format-stream. */
  format?: AccessLogPart[];
}

/** StreamAccessLogOptions checked; part of Settings while stream services exist and logging is on. */
export interface StreamAccessLogSettings {
  path: string;
  /** The log_format string, variables as `${name}`; absent: ingress-nginx's default. */
  format?: string;
}

/**
 * Checks `options` against the HTTP log's `accessLogPath` (none there, none here) with the
 * settings' own path check; throws InvalidRenderOptionsError naming a bad field. Undefined when
 * nothing is logged.
 */
export function checkStreamAccessLogOptions(
  options: StreamAccessLogOptions | undefined,
  accessLogPath: string | false,
  checkPath: (option: string, value: unknown) => string,
): StreamAccessLogSettings | undefined {
  if (accessLogPath === false || options?.path === false) return undefined;
  const path = options?.path === undefined ? accessLogPath : checkPath('streamAccessLog.path', options.path);
  if (options?.format === undefined) return { path };
  return { path, format: renderPlainLogFormat(options.format, 'streamAccessLog.format') };
}

/** What the stream block renders of its log: the path, the format (absent: the default) and access_log parameters. */
export interface StreamAccessLogView {
  streamLog: { path: string; format: string | undefined; params: string[] } | undefined;
}

/**
 * The template's view of `settings`, with the HTTP log's parameters (ingress-nginx gives both
 * logs access-log-params); throws UnsafeValueError for a format checkStreamAccessLogOptions did
 * not make. The path and parameters are checked where they are rendered (`q`, viewAccessLog).
 */
export function viewStreamAccessLog(
  settings: StreamAccessLogSettings | undefined,
  accessLogParams: readonly string[],
): StreamAccessLogView {
  if (settings === undefined) return { streamLog: undefined };
  if (settings.format !== undefined && !isRenderedLogFormat(settings.format))
    throw new UnsafeValueError(
      `stream access log format ${JSON.stringify(settings.format)} is out of shape; render only what buildConfiguration made`,
    );
  return { streamLog: { path: settings.path, format: settings.format, params: [...accessLogParams] } };
}

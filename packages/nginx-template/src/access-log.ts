/**
 * The access log an operator shapes: its format as parts (text, nginx variables, values the
 * router provides), escaping, buffering and the request URIs left out. Options are checked here
 * into settings, and settings are checked again into what the template renders, so that only
 * text of a known alphabet, variable names and numbers ever reach nginx.conf.
 */
import { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';

/**
 * A value the router provides to the log: the backend that served the request, the canary backend
 * when the canary served it (else empty), the request id (the client's X-Request-ID, else
 * nginx's `$request_id`), and of the route's origin (route-model RouteOrigin): its namespace and
 * name, the service and port it names, and its path as written (empty when the origin does not
 * say, or has no namespace, or no route matched).
 */
export type AccessLogField = 'backend' | 'alternative-backend' | 'request-id' | OriginField;

/** The fields of a route's origin, in the order of a route entry's `origin`. */
const ORIGIN_FIELDS = ['namespace', 'ingress-name', 'service-name', 'service-port', 'location-path'] as const;
type OriginField = (typeof ORIGIN_FIELDS)[number];

/** One piece of an access log format. */
export type AccessLogPart = { text: string } | { variable: string } | { field: AccessLogField };

/** How the access log is written, beyond its path (RenderOptions.accessLogPath). */
export interface AccessLogOptions {
  /** The line logged per request; default ingresskit's own format. */
  format?: AccessLogPart[];
  /** log_format's escaping of variable values; default nginx's. */
  escape?: 'default' | 'json' | 'none';
  /** Buffer lines up to this size (nginx size: `16k`, `1m`) before writing. */
  buffer?: string;
  /** Write buffered lines at least this often (nginx time: `5s`, `1m`); needs `buffer` or `gzip`. */
  flush?: string;
  /** Compress buffered lines with gzip at this level (1-9). */
  gzipLevel?: number;
  /** Request URIs (path and query, as `$request_uri`, compared without case) not logged. */
  skipUris?: string[];
}

/** AccessLogOptions checked; absent fields are the defaults. Plain JSON; part of Settings. */
export interface AccessLogSettings {
  /** The log_format string, variables as `${name}`. */
  format?: string;
  /** The router sets the backend variables for the log (the format names them). */
  logsBackend?: true;
  /** The origin fields the format names, in the order of ORIGIN_FIELDS; the router sets them. */
  logsOrigin?: OriginField[];
  escape?: 'json' | 'none';
  /** access_log parameters, such as `buffer=16k`. */
  params?: string[];
  skipUris?: string[];
}

// Printable ASCII but `\` (nginx.conf's escape) and `$` (a variable).
const TEXT_CHARACTER = '[\\x20-\\x23\\x25-\\x5b\\x5d-\\x7e]';
const TEXT = new RegExp(`^${TEXT_CHARACTER}+$`);
// A rendered format: text, and variables written as `${name}` only.
const RENDERED_FORMAT = new RegExp(`^(?:${TEXT_CHARACTER}|\\$\\{[a-z0-9_]{1,64}\\})+$`);
const VARIABLE = /^[a-z0-9_]{1,64}$/;
const SIZE_PATTERN = '[1-9][0-9]{0,6}[kKmM]?';
const TIME_PATTERN = '[1-9][0-9]{0,5}(?:ms|s|m|h)?';
const SIZE = new RegExp(`^${SIZE_PATTERN}$`);
const TIME = new RegExp(`^${TIME_PATTERN}$`);
const PARAMETER = new RegExp(`^(?:buffer=${SIZE_PATTERN}|gzip=[1-9]|flush=${TIME_PATTERN})$`);
const URI = /^\/[A-Za-z0-9._~!&()*+,=:@/?%-]{0,1023}$/;
const MAX_FORMAT_LENGTH = 8192;
const MAX_SKIPPED_URIS = 1000;

/** The nginx.conf variable of each field (declared by the template). */
const FIELD_VARIABLES: Readonly<Record<AccessLogField, string>> = {
  backend: 'ingresskit_backend',
  'alternative-backend': 'ingresskit_alternative_backend',
  'request-id': 'ingresskit_request_id',
  namespace: 'ingresskit_namespace',
  'ingress-name': 'ingresskit_ingress_name',
  'service-name': 'ingresskit_service_name',
  'service-port': 'ingresskit_service_port',
  'location-path': 'ingresskit_location_path',
};

function invalid(option: string, message: string, value: unknown): never {
  throw new InvalidRenderOptionsError(option, `${message} (got ${JSON.stringify(value)})`);
}

function checkFormat(
  parts: readonly AccessLogPart[],
  option = 'accessLog.format',
): Pick<AccessLogSettings, 'format' | 'logsBackend' | 'logsOrigin'> {
  if (!Array.isArray(parts) || parts.length === 0) invalid(option, 'must hold at least one part', parts);
  let format = '';
  let logsBackend = false;
  const origin = new Set<string>();
  // Read as untyped data: options come from callers' JSON as much as from typed code.
  for (const part of parts as readonly unknown[]) {
    if (typeof part !== 'object' || part === null) invalid(option, 'must hold parts', part);
    const { text, variable, field } = part as Record<string, unknown>;
    if (text !== undefined) {
      if (typeof text !== 'string' || !TEXT.test(text))
        invalid(option, 'text must be printable ASCII without "\\" and "$"', text);
      format += text;
    } else if (variable !== undefined) {
      // The router's own variables hold keys and internal state: never logged by name.
      if (typeof variable !== 'string' || !VARIABLE.test(variable) || variable.startsWith('ingresskit_'))
        invalid(option, 'variables must be nginx variable names of a-z 0-9 _', variable);
      format += `\${${variable}}`;
    } else if (typeof field === 'string' && Object.hasOwn(FIELD_VARIABLES, field)) {
      if ((ORIGIN_FIELDS as readonly string[]).includes(field)) origin.add(field);
      else if (field !== 'request-id') logsBackend = true;
      format += `\${${FIELD_VARIABLES[field as AccessLogField]}}`;
    } else invalid(option, 'must hold text, variable or field parts', part);
  }
  if (format.length > MAX_FORMAT_LENGTH)
    invalid(option, `must render to at most ${MAX_FORMAT_LENGTH} characters`, format.length);
  const logsOrigin = ORIGIN_FIELDS.filter((field) => origin.has(field));
  return {
    format,
    ...(logsBackend ? { logsBackend: true as const } : {}),
    ...(logsOrigin.length > 0 ? { logsOrigin } : {}),
  };
}

/**
 * A format of text and variables only (a stream log's, where the router provides nothing) as
 * log_format's string; throws InvalidRenderOptionsError naming `option`.
 */
export function renderPlainLogFormat(parts: readonly AccessLogPart[], option: string): string {
  for (const part of (Array.isArray(parts) ? parts : []) as readonly unknown[])
    if (typeof part === 'object' && part !== null && 'field' in part)
      invalid(option, 'must hold text and variable parts only', part);
  return checkFormat(parts, option).format!;
}

/** Whether `format` is of the shape checkFormat renders: text and `${name}` variables. */
export function isRenderedLogFormat(format: string): boolean {
  return RENDERED_FORMAT.test(format);
}

/** Checks `options`; throws InvalidRenderOptionsError naming a bad field. Undefined at the defaults. */
export function checkAccessLogOptions(options: AccessLogOptions | undefined): AccessLogSettings | undefined {
  if (options === undefined) return undefined;
  const settings: AccessLogSettings = options.format === undefined ? {} : checkFormat(options.format);
  if (options.escape !== undefined && options.escape !== 'default') {
    if (options.escape !== 'json' && options.escape !== 'none')
      invalid('accessLog.escape', 'must be default, json or none', options.escape);
    settings.escape = options.escape;
  }
  const params: string[] = [];
  if (options.buffer !== undefined) {
    if (typeof options.buffer !== 'string' || !SIZE.test(options.buffer))
      invalid('accessLog.buffer', 'must be a size such as 16k', options.buffer);
    params.push(`buffer=${options.buffer}`);
  }
  if (options.gzipLevel !== undefined) {
    if (!Number.isInteger(options.gzipLevel) || options.gzipLevel < 1 || options.gzipLevel > 9)
      invalid('accessLog.gzipLevel', 'must be a whole number from 1 to 9', options.gzipLevel);
    params.push(`gzip=${options.gzipLevel}`);
  }
  if (options.flush !== undefined) {
    if (typeof options.flush !== 'string' || !TIME.test(options.flush))
      invalid('accessLog.flush', 'must be a time such as 5s or 1m', options.flush);
    if (params.length === 0) invalid('accessLog.flush', 'needs buffer or gzipLevel', options.flush);
    params.push(`flush=${options.flush}`);
  }
  if (params.length > 0) settings.params = params;
  const uris = options.skipUris ?? [];
  if (!Array.isArray(uris) || uris.length > MAX_SKIPPED_URIS)
    invalid('accessLog.skipUris', `must list at most ${MAX_SKIPPED_URIS} URIs`, uris.length);
  const seen = new Set<string>();
  const skipUris: string[] = [];
  for (const uri of uris) {
    if (typeof uri !== 'string' || !URI.test(uri))
      invalid(
        'accessLog.skipUris',
        'must hold URIs starting with "/", without spaces, quotes, ";" or "$"',
        uri,
      );
    // nginx's map compares without case and refuses a key given twice.
    if (seen.has(uri.toLowerCase())) continue;
    seen.add(uri.toLowerCase());
    skipUris.push(uri);
  }
  if (skipUris.length > 0) settings.skipUris = skipUris;
  return Object.keys(settings).length === 0 ? undefined : settings;
}

/** What the template renders of the access log settings. */
export interface AccessLogView {
  accessLogFormat: string | undefined;
  accessLogEscape: string | undefined;
  accessLogParams: string[];
  accessLogSkipUris: string[];
  /** The variable access_log's `if=` reads. */
  accessLogCondition: string;
  logsBackend: boolean;
  /** The origin variables the router sets, by their (1-based) index in a route entry's `origin`. */
  accessLogOrigin: { index: number; variable: string }[];
}

function unsafe(what: string, value: unknown): never {
  throw new UnsafeValueError(
    `access log ${what} ${JSON.stringify(value)} is out of shape; render only what buildConfiguration made`,
  );
}

/** The template's view of `settings`; throws UnsafeValueError for settings checkAccessLogOptions did not make. */
export function viewAccessLog(settings: AccessLogSettings | undefined): AccessLogView {
  const format = settings?.format;
  if (format !== undefined && !RENDERED_FORMAT.test(format)) unsafe('format', format);
  const escape = settings?.escape;
  if (escape !== undefined && escape !== 'json' && escape !== 'none') unsafe('escape', escape);
  const params = settings?.params ?? [];
  for (const param of params) if (!PARAMETER.test(param)) unsafe('parameter', param);
  const skipUris = settings?.skipUris ?? [];
  for (const uri of skipUris) if (!URI.test(uri)) unsafe('skipped URI', uri);
  const accessLogOrigin = (settings?.logsOrigin ?? []).map((field) => {
    const index = ORIGIN_FIELDS.indexOf(field);
    if (index < 0) unsafe('origin field', field);
    return { index: index + 1, variable: FIELD_VARIABLES[field] };
  });
  return {
    accessLogFormat: format,
    accessLogEscape: escape,
    accessLogParams: params,
    accessLogSkipUris: skipUris,
    accessLogCondition: skipUris.length > 0 ? '$ingresskit_loggable' : '$ingresskit_log',
    logsBackend: settings?.logsBackend === true,
    accessLogOrigin,
  };
}

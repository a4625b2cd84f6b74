/**
 * The http-level settings an operator tunes (HttpOptions, declared in @ingresskit/nginx-settings
 * with the ranges of its whole numbers): checked here into settings, and settings again into what
 * the template renders, so only numbers, sizes, times, on/off and checked tokens reach nginx.conf.
 */
import { createHash } from 'node:crypto';
import {
  HTTP_WHOLE_NUMBER_RANGES,
  isInRange,
  type HttpOptions,
  type WholeRange,
} from '@ingresskit/nginx-settings';
import { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';
import { DEFAULT_GZIP_TYPES } from './gzip-types.js';

/** HttpOptions checked; absent fields are the defaults. Plain JSON; part of Settings. */
export type HttpSettings = Omit<HttpOptions, 'brotli' | 'brotliLevel' | 'brotliMinLength' | 'brotliTypes'> & {
  brotli?: { level: number; minLength: number; types: string[] };
};

/** ingress-nginx's default brotli-types: its gzip-types and application/xml+rss. */
function listDefaultBrotliTypes(): string[] {
  return ['application/xml+rss', ...DEFAULT_GZIP_TYPES];
}

/** The module brotli takes, in modulesDir (Debian's libnginx-mod-http-brotli-filter). */
export const BROTLI_MODULE = 'ngx_http_brotli_filter_module.so';

const SIZE = /^[1-9][0-9]{0,9}[kKmMgG]?$/;
const TIME = /^[1-9][0-9]{0,6}(?:ms|s|m|h|d)?$/;
const MIME_TYPE = /^(?:\*|[A-Za-z0-9][A-Za-z0-9!&.+_-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!&.+_-]{0,63})$/;
const CPU_MASK = '[01]{1,64}';
const CPU_AFFINITY = new RegExp(`^(?:auto(?: ${CPU_MASK})?|${CPU_MASK}(?: ${CPU_MASK}){0,1023})$`);
/** gzip_disable: `msie6` or a regular expression without `$`, `;`, quotes or braces. */
const GZIP_DISABLE = /^[A-Za-z0-9 ._/()[\]\\*+?^|-]{1,256}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function invalid(option: string, message: string, value: unknown): never {
  throw new InvalidRenderOptionsError(`http.${option}`, `${message} (got ${JSON.stringify(value)})`);
}

function checkPattern(option: string, value: unknown, pattern: RegExp, what: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) invalid(option, `must be ${what}`, value);
  return value;
}

function checkWhole(option: string, value: unknown, range: WholeRange): number {
  if (!isInRange(value, range))
    invalid(option, `must be a whole number from ${range.min} to ${range.max}`, value);
  return value;
}

function checkFlag(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') invalid(option, 'must be true or false', value);
  return value;
}

type Checker = (option: string, value: unknown) => unknown;

const size: Checker = (option, value) => checkPattern(option, value, SIZE, 'an nginx size such as 8k');
const RANGES = HTTP_WHOLE_NUMBER_RANGES;
const whole =
  (range: WholeRange): Checker =>
  (option, value) =>
    checkWhole(option, value, range);

/** How each option but brotli is checked; the value is kept as given when valid. */
const CHECKS: Readonly<Record<Exclude<keyof HttpOptions, `brotli${string}`>, Checker>> = {
  clientHeaderBufferSize: size,
  largeClientHeaderBuffers: (option, value) => {
    const { number, size: bufferSize } = (value ?? {}) as { number?: unknown; size?: unknown };
    return {
      number: checkWhole(`${option}.number`, number, RANGES['largeClientHeaderBuffers.number']),
      size: size(`${option}.size`, bufferSize),
    };
  },
  clientHeaderTimeoutSeconds: whole(RANGES.clientHeaderTimeoutSeconds),
  clientBodyTimeoutSeconds: whole(RANGES.clientBodyTimeoutSeconds),
  http2: checkFlag,
  http2MaxConcurrentStreams: whole(RANGES.http2MaxConcurrentStreams),
  sslSessionCache: checkFlag,
  sslSessionCacheSize: size,
  sslSessionTimeout: (option, value) => checkPattern(option, value, TIME, 'an nginx time such as 10m'),
  sslSessionTickets: checkFlag,
  sslSessionTicketKey: (option, value) => {
    const key = checkPattern(option, value, BASE64, 'base64');
    const bytes = Buffer.from(key, 'base64').length;
    if (bytes !== 48 && bytes !== 80) invalid(option, 'must hold 48 or 80 bytes', `${bytes} bytes`);
    return key;
  },
  sslBufferSize: size,
  underscoresInHeaders: checkFlag,
  ignoreInvalidHeaders: checkFlag,
  serverNamesHashBucketSize: whole(RANGES.serverNamesHashBucketSize),
  serverNamesHashMaxSize: whole(RANGES.serverNamesHashMaxSize),
  proxyHeadersHashBucketSize: whole(RANGES.proxyHeadersHashBucketSize),
  proxyHeadersHashMaxSize: whole(RANGES.proxyHeadersHashMaxSize),
  variablesHashBucketSize: whole(RANGES.variablesHashBucketSize),
  variablesHashMaxSize: whole(RANGES.variablesHashMaxSize),
  mapHashBucketSize: whole(RANGES.mapHashBucketSize),
  reusePort: checkFlag,
  workerCpuAffinity: (option, value) =>
    checkPattern(
      option,
      value,
      CPU_AFFINITY,
      '"auto", "auto MASK" or CPU masks of 0 and 1 separated by spaces',
    ),
  maxWorkerOpenFiles: whole(RANGES.maxWorkerOpenFiles),
  multiAccept: checkFlag,
  defaultType: (option, value) => checkPattern(option, value, MIME_TYPE, 'a MIME type TYPE/SUBTYPE'),
  gzipDisable: (option, value) =>
    checkPattern(
      option,
      value,
      GZIP_DISABLE,
      'msie6 or a regular expression of A-Z a-z 0-9 and . _ - / ( ) [ ] \\ * + ? ^ | and spaces',
    ),
};

function checkBrotli(options: HttpOptions): HttpSettings['brotli'] {
  if (options.brotli === undefined || checkFlag('brotli', options.brotli) === false) return undefined;
  const types = [...new Set(options.brotliTypes ?? listDefaultBrotliTypes())];
  if (types.length === 0 || types.length > 100)
    invalid('brotliTypes', 'must hold from 1 to 100 MIME types', types);
  for (const type of types) checkPattern('brotliTypes', type, MIME_TYPE, 'MIME types TYPE/SUBTYPE or "*"');
  return {
    level: checkWhole('brotliLevel', options.brotliLevel ?? 4, RANGES.brotliLevel),
    minLength: checkWhole('brotliMinLength', options.brotliMinLength ?? 20, RANGES.brotliMinLength),
    types,
  };
}

/**
 * Checks `options`; throws InvalidRenderOptionsError naming a bad field. Undefined when nothing
 * is set, so that the settings (and their hash) of a configuration without them stay as they were.
 */
export function checkHttpOptions(options: HttpOptions | undefined): HttpSettings | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null) invalid('', 'must be an object', options);
  const settings: Record<string, unknown> = {};
  for (const [name, check] of Object.entries(CHECKS)) {
    const value = (options as Record<string, unknown>)[name];
    if (value !== undefined) settings[name] = check(name, value);
  }
  const brotli = checkBrotli(options);
  if (brotli !== undefined) settings.brotli = brotli;
  return Object.keys(settings).length === 0 ? undefined : settings;
}

/** The modules `settings` need loaded, by file name in modulesDir. */
export function listHttpModules(settings: HttpSettings | undefined): string[] {
  return settings?.brotli === undefined ? [] : [BROTLI_MODULE];
}

/** Where nginx.conf names the ticket key: relative to nginx.conf, named by its hash. */
function ticketKeyPath(key: string): string {
  return `certs/session-ticket-${createHash('sha256').update(key).digest('hex')}.key`;
}

/** The files the settings' nginx.conf reads beside it (the session ticket key), with their bytes. */
export function listHttpSettingsFiles(
  settings: HttpSettings | undefined,
): { path: string; content: Buffer }[] {
  const key = settings?.sslSessionTicketKey;
  return key === undefined ? [] : [{ path: ticketKeyPath(key), content: Buffer.from(key, 'base64') }];
}

function unsafe(what: string, value: unknown): never {
  throw new UnsafeValueError(
    `http setting ${what} ${JSON.stringify(value)} is out of shape; render only what buildConfiguration made`,
  );
}

/** `value` when it matches `pattern`, for the template; anything else throws UnsafeValueError. */
function token(what: string, value: unknown, pattern: RegExp): string {
  if (typeof value !== 'string' || !pattern.test(value)) unsafe(what, value);
  return value;
}

function number(what: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) unsafe(what, value);
  return value;
}

const onOff = (on: boolean) => (on ? 'on' : 'off');

/** What the template renders of `settings` (HTTP_SETTINGS_PARTIAL and the listen parameters). */
export function viewHttpSettings(settings: HttpSettings | undefined) {
  const s = settings ?? {};
  const optional = <T>(value: T | undefined, view: (value: T) => unknown) =>
    value === undefined ? false : view(value);
  const sizeOf = (what: string) => (value: string) => token(what, value, SIZE);
  const numberOf = (what: string) => (value: number) => number(what, value);
  return {
    http2: s.http2 !== false,
    reusePort: s.reusePort === true,
    multiAccept: onOff(s.multiAccept !== false),
    workerCpuAffinity: optional(s.workerCpuAffinity || undefined, (value) =>
      token('workerCpuAffinity', value, CPU_AFFINITY),
    ),
    maxWorkerOpenFiles: optional(s.maxWorkerOpenFiles || undefined, numberOf('maxWorkerOpenFiles')),
    defaultType: token('defaultType', s.defaultType ?? 'application/octet-stream', MIME_TYPE),
    clientHeaderBufferSize: optional(s.clientHeaderBufferSize, sizeOf('clientHeaderBufferSize')),
    largeClientHeaderBuffers: optional(
      s.largeClientHeaderBuffers,
      ({ number: count, size: bufferSize }) =>
        `${number('largeClientHeaderBuffers', count)} ${token('largeClientHeaderBuffers', bufferSize, SIZE)}`,
    ),
    clientHeaderTimeout: optional(s.clientHeaderTimeoutSeconds, numberOf('clientHeaderTimeoutSeconds')),
    clientBodyTimeout: optional(s.clientBodyTimeoutSeconds, numberOf('clientBodyTimeoutSeconds')),
    http2MaxConcurrentStreams: optional(s.http2MaxConcurrentStreams, numberOf('http2MaxConcurrentStreams')),
    underscoresInHeaders: s.underscoresInHeaders === true,
    ignoreInvalidHeaders: s.ignoreInvalidHeaders !== false,
    serverNamesHashBucketSize: optional(s.serverNamesHashBucketSize, numberOf('serverNamesHashBucketSize')),
    serverNamesHashMaxSize: number('serverNamesHashMaxSize', s.serverNamesHashMaxSize ?? 1024),
    proxyHeadersHashBucketSize: optional(
      s.proxyHeadersHashBucketSize,
      numberOf('proxyHeadersHashBucketSize'),
    ),
    proxyHeadersHashMaxSize: optional(s.proxyHeadersHashMaxSize, numberOf('proxyHeadersHashMaxSize')),
    variablesHashBucketSize: number('variablesHashBucketSize', s.variablesHashBucketSize ?? 256),
    variablesHashMaxSize: number('variablesHashMaxSize', s.variablesHashMaxSize ?? 2048),
    mapHashBucketSize: optional(s.mapHashBucketSize, numberOf('mapHashBucketSize')),
    sslSessionCache:
      s.sslSessionCache === false
        ? false
        : {
            size: token('sslSessionCacheSize', s.sslSessionCacheSize ?? '10m', SIZE),
            timeout: token('sslSessionTimeout', s.sslSessionTimeout ?? '10m', TIME),
          },
    sslSessionTickets: onOff(s.sslSessionTickets === true),
    sslSessionTicketKey: optional(s.sslSessionTicketKey, (key) =>
      ticketKeyPath(token('sslSessionTicketKey', key, BASE64)),
    ),
    sslBufferSize: token('sslBufferSize', s.sslBufferSize ?? '4k', SIZE),
    gzipDisable: optional(s.gzipDisable, (value) => token('gzipDisable', value, GZIP_DISABLE)),
    brotli: optional(s.brotli, (brotli) => ({
      level: number('brotliLevel', brotli.level),
      minLength: number('brotliMinLength', brotli.minLength),
      types: brotli.types.map((type) => token('brotliTypes', type, MIME_TYPE)),
    })),
  };
}

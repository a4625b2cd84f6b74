/**
 * UpstreamSettings, the other way round. The operator's (ingress-nginx's proxy-* ConfigMap keys)
 * are nginx.conf's http-level defaults and add their values to the profile catalogue. A route's
 * are served by its profile (see profiles.ts), its data (a retry time limit), or not at all, which
 * is reported: the body buffers and temporary files are nginx.conf's, and retry conditions outside
 * the catalogue's sets are served as the largest set within them.
 */
import { RETRY_CONDITIONS, type UpstreamSettings } from '@ingresskit/route-model';
import type { PolicyEntry } from './data-entries.js';
import { InvalidRenderOptionsError } from './errors.js';
import {
  createProfileCatalogue,
  isValidHeaderBuffer,
  retryConditionsOf,
  retryMaskOf,
  retrySetOf,
  type Profile,
  type ProfileCatalogue,
} from './profiles.js';

/** What compiling reports: a value served otherwise than written, by field. */
export interface UpstreamIssues {
  warn(field: string, message: string, value?: unknown): void;
}

/** The operator's upstream settings as nginx.conf and the routes' compilation read them. */
export interface UpstreamDefaults {
  /** Validated: every field in range (see checkUpstreamDefaults). */
  settings: UpstreamSettings;
  catalogue: ProfileCatalogue;
}

const MAX_BUFFER = 1024 ** 2;
const MAX_TEMP_FILE = 1024 ** 4;
const MAX_RETRY_SECONDS = 86400;
// nginx's default buffer is a memory page (4k here), ingress-nginx's default number is 4.
const DEFAULT_BUFFER_SIZE = 4096;
const DEFAULT_BUFFERS_NUMBER = 4;

/** Settings a route's profile or data serve; the others are nginx.conf's. */
const BODY_BUFFER_SETTINGS = [
  'buffersNumber',
  'busyBuffersBytes',
  'requestBodyBufferBytes',
  'maxTempFileBytes',
] as const;

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * The proxy_busy_buffers_size nginx accepts with these buffers (the defaults where unset): at
 * least one buffer, less than all buffers but one.
 */
export function busyBuffersRange(
  bufferSize: number | undefined,
  buffersNumber: number | undefined,
): { min: number; max: number } {
  const size = bufferSize ?? DEFAULT_BUFFER_SIZE;
  return { min: size, max: ((buffersNumber ?? DEFAULT_BUFFERS_NUMBER) - 1) * size - 1 };
}

/** The names of the settings of `settings` out of range. */
export function findInvalidUpstreamSettings(settings: UpstreamSettings): (keyof UpstreamSettings)[] {
  const invalid: (keyof UpstreamSettings)[] = [];
  for (const name of ['requestBuffering', 'responseBuffering'] as const) {
    if (settings[name] !== undefined && typeof settings[name] !== 'boolean') invalid.push(name);
  }
  if (settings.httpVersion !== undefined && settings.httpVersion !== '1.0' && settings.httpVersion !== '1.1')
    invalid.push('httpVersion');
  if (settings.bufferSizeBytes !== undefined && !isValidHeaderBuffer(settings.bufferSizeBytes))
    invalid.push('bufferSizeBytes');
  if (settings.buffersNumber !== undefined && !isWhole(settings.buffersNumber, 3, 64))
    invalid.push('buffersNumber');
  if (settings.busyBuffersBytes !== undefined) {
    const range = busyBuffersRange(settings.bufferSizeBytes, settings.buffersNumber);
    if (!isWhole(settings.busyBuffersBytes, range.min, range.max)) invalid.push('busyBuffersBytes');
  }
  if (
    settings.requestBodyBufferBytes !== undefined &&
    !isWhole(settings.requestBodyBufferBytes, 1024, MAX_BUFFER)
  )
    invalid.push('requestBodyBufferBytes');
  if (
    settings.maxTempFileBytes !== undefined &&
    !(settings.maxTempFileBytes === 0 || isWhole(settings.maxTempFileBytes, MAX_BUFFER, MAX_TEMP_FILE))
  )
    invalid.push('maxTempFileBytes');
  if (
    settings.retryOn !== undefined &&
    !(
      Array.isArray(settings.retryOn) &&
      settings.retryOn.every((condition) => RETRY_CONDITIONS.includes(condition))
    )
  )
    invalid.push('retryOn');
  if (
    settings.retryTimeoutSeconds !== undefined &&
    !isWhole(settings.retryTimeoutSeconds, 0, MAX_RETRY_SECONDS)
  )
    invalid.push('retryTimeoutSeconds');
  return invalid;
}

/**
 * Checks RenderOptions.upstreamDefaults: the settings nginx.conf takes, each in range; undefined
 * when none is set. Throws InvalidRenderOptionsError.
 */
export function checkUpstreamDefaults(options: UpstreamSettings | undefined): UpstreamSettings | undefined {
  if (options === undefined) return undefined;
  const invalid = findInvalidUpstreamSettings(options);
  if (invalid.length > 0) {
    throw new InvalidRenderOptionsError(`upstreamDefaults.${invalid[0]}`, 'is out of range');
  }
  const taken: UpstreamSettings = {};
  for (const name of [...BODY_BUFFER_SETTINGS, 'bufferSizeBytes', 'retryOn'] as const) {
    if (options[name] !== undefined) (taken as Record<string, unknown>)[name] = options[name];
  }
  return Object.keys(taken).length === 0 ? undefined : taken;
}

/** The operator's defaults of `settings` (already checked) with the catalogue they make. */
export function createUpstreamDefaults(settings: UpstreamSettings = {}): UpstreamDefaults {
  return {
    settings,
    catalogue: createProfileCatalogue({
      headerBufferBytes: settings.bufferSizeBytes,
      retryOn: settings.retryOn,
    }),
  };
}

/** The defaults of an operator who set none. */
export const NO_UPSTREAM_DEFAULTS: UpstreamDefaults = createUpstreamDefaults();

/**
 * Adds to `entry` what of `settings` is route data (the retry time limit), and reports through
 * `out` each setting out of range (the default is used) or not served as written: body buffers
 * and temporary files other than the operator's, retry conditions outside the catalogue's sets.
 */
export function compileUpstreamSettings(
  settings: UpstreamSettings | undefined,
  defaults: UpstreamDefaults,
  entry: PolicyEntry,
  out: UpstreamIssues,
): void {
  if (settings === undefined) return;
  const field = (name: keyof UpstreamSettings) => `policy.upstreamSettings.${name}`;
  const invalid = findInvalidUpstreamSettings(settings);
  for (const name of invalid) out.warn(field(name), 'is out of range; the default is used', settings[name]);
  for (const name of BODY_BUFFER_SETTINGS) {
    if (
      settings[name] !== undefined &&
      !invalid.includes(name) &&
      settings[name] !== defaults.settings[name]
    ) {
      out.warn(field(name), "is not applied per route; nginx.conf's value is used", settings[name]);
    }
  }
  // proxy-next-upstream off: one try, whatever the number of tries says.
  if (settings.retryOn !== undefined && !invalid.includes('retryOn') && settings.retryOn.length === 0)
    entry.tries = 1;
  if (settings.retryOn !== undefined && !invalid.includes('retryOn') && settings.retryOn.length > 0) {
    const served = retrySetOf(defaults.catalogue, settings.retryOn);
    if (served !== retryMaskOf(settings.retryOn)) {
      out.warn(
        field('retryOn'),
        `is served as "${retryConditionsOf(served).join(' ')}"`,
        settings.retryOn.join(' '),
      );
    }
  }
  if (
    settings.retryTimeoutSeconds !== undefined &&
    !invalid.includes('retryTimeoutSeconds') &&
    settings.retryTimeoutSeconds > 0
  ) {
    entry.retryTimeout = settings.retryTimeoutSeconds;
  }
}

/**
 * The http-level directives of the operator's defaults as the template writes them, `false` for
 * what nginx's own default decides (the template runs in strict mode).
 */
export function viewUpstreamDefaults(settings: UpstreamSettings) {
  const { bufferSizeBytes, buffersNumber, busyBuffersBytes } = settings;
  const text = (value: number | undefined) => (value === undefined ? false : String(value));
  const hasBuffers = bufferSizeBytes !== undefined || buffersNumber !== undefined;
  const size = bufferSizeBytes ?? DEFAULT_BUFFER_SIZE;
  const number = buffersNumber ?? DEFAULT_BUFFERS_NUMBER;
  return {
    bufferSize: text(bufferSizeBytes),
    buffers: hasBuffers ? { number: String(number), size: String(size) } : false,
    // With 3 buffers nginx's default busy size (two buffers) leaves none to read into.
    busyBuffersSize:
      busyBuffersBytes !== undefined
        ? String(busyBuffersBytes)
        : hasBuffers && number === 3
          ? String(size)
          : false,
    bodyBufferSize: text(settings.requestBodyBufferBytes),
    maxTempFileSize: text(settings.maxTempFileBytes),
  };
}

/**
 * The directives of `profile` as the template writes them: strings nginx reads, `false` for what
 * nginx.conf's http-level defaults decide (the template runs in strict mode).
 */
export function viewProfileDirectives(profile: Profile) {
  const size = profile.headerBuffer === 0 ? undefined : profile.headerBuffer;
  const grpc = profile.family === 'grpc';
  return {
    requestBuffering: grpc ? false : profile.requestBuffering ? 'on' : 'off',
    responseBuffering: grpc ? false : profile.responseBuffering ? 'on' : 'off',
    httpVersion: grpc ? false : profile.httpVersion,
    bufferSize: size === undefined ? false : String(size),
    // Four buffers of the header buffer's size for the body (ingress-nginx's number), and nginx's
    // default busy size for them: the operator's http-level ones are checked against smaller buffers.
    buffers: size === undefined || grpc ? false : { number: '4', size: String(size), busy: String(2 * size) },
    nextUpstream: retryConditionsOf(profile.retry).join(' '),
  };
}

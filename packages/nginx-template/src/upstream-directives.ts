/**
 * UpstreamSettings, the other way round: what of them a route's profile (see profiles.ts) takes,
 * what goes into its data (a retry time limit), and what the data plane does not apply per route,
 * reported. And each profile's directives as the template renders them.
 */
import { RETRY_CONDITIONS, type UpstreamSettings } from '@ingresskit/route-model';
import type { PolicyEntry } from './data-entries.js';
import {
  HEADER_BUFFER_CLASSES,
  headerBufferClassOf,
  RETRY_CLASSES,
  retryClassOf,
  type Profile,
} from './profiles.js';

/** What compiling reports: a value served otherwise than written, by field. */
export interface UpstreamIssues {
  warn(field: string, message: string, value?: unknown): void;
}

const MAX_BUFFER = 1024 ** 2;
const MAX_RETRY_SECONDS = 86400;

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/**
 * Adds to `entry` what of `settings` is route data (the retry time limit), and reports through
 * `out` each setting out of range (the default is used) or not applied as written: the buffer
 * counts and sizes of the body, temporary files and retry conditions outside the catalogue's sets.
 */
export function compileUpstreamSettings(
  settings: UpstreamSettings | undefined,
  entry: PolicyEntry,
  out: UpstreamIssues,
): void {
  if (settings === undefined) return;
  const field = (name: keyof UpstreamSettings) => `policy.upstreamSettings.${name}`;
  const invalid = (name: keyof UpstreamSettings) =>
    out.warn(field(name), 'is out of range; the default is used', settings[name]);
  const fixed = (name: keyof UpstreamSettings) =>
    out.warn(field(name), "is not applied per route; nginx.conf's value is used", settings[name]);
  for (const name of ['requestBuffering', 'responseBuffering'] as const) {
    if (settings[name] !== undefined && typeof settings[name] !== 'boolean') invalid(name);
  }
  if (settings.httpVersion !== undefined && settings.httpVersion !== '1.0' && settings.httpVersion !== '1.1')
    invalid('httpVersion');
  if (settings.bufferSizeBytes !== undefined && !isWhole(settings.bufferSizeBytes, 1024, MAX_BUFFER))
    invalid('bufferSizeBytes');
  for (const name of [
    'buffersNumber',
    'busyBuffersBytes',
    'requestBodyBufferBytes',
    'maxTempFileBytes',
  ] as const) {
    if (settings[name] !== undefined) fixed(name);
  }
  if (settings.retryOn !== undefined) {
    const conditions = settings.retryOn;
    if (
      !Array.isArray(conditions) ||
      !conditions.every((condition) => RETRY_CONDITIONS.includes(condition))
    ) {
      invalid('retryOn');
    } else if (conditions.length > 0) {
      const served = RETRY_CLASSES[retryClassOf(conditions)]!;
      const asked = new Set(conditions);
      if (served.length !== asked.size || !served.every((condition) => asked.has(condition))) {
        out.warn(field('retryOn'), `is served as "${served.join(' ')}"`, conditions.join(' '));
      }
    }
  }
  if (settings.retryTimeoutSeconds !== undefined) {
    if (!isWhole(settings.retryTimeoutSeconds, 0, MAX_RETRY_SECONDS)) invalid('retryTimeoutSeconds');
    else if (settings.retryTimeoutSeconds > 0) entry.retryTimeout = settings.retryTimeoutSeconds;
  }
}

/** The header buffer size a route asking for `bytes` gets (undefined: nginx's default). */
export function servedHeaderBufferBytes(bytes: number | undefined): number | undefined {
  return HEADER_BUFFER_CLASSES[headerBufferClassOf(bytes)];
}

/**
 * The directives of `profile` as the template writes them: strings nginx reads, `false` for what
 * nginx.conf's http-level defaults decide (the template runs in strict mode).
 */
export function viewProfileDirectives(profile: Profile) {
  const size = HEADER_BUFFER_CLASSES[profile.headerBuffer];
  const grpc = profile.family === 'grpc';
  return {
    requestBuffering: grpc ? false : profile.requestBuffering ? 'on' : 'off',
    responseBuffering: grpc ? false : profile.responseBuffering ? 'on' : 'off',
    httpVersion: grpc ? false : profile.httpVersion,
    bufferSize: size === undefined ? false : String(size),
    // Four buffers of the header buffer's size for the body: ingress-nginx's number.
    buffers: size === undefined || grpc ? false : { number: '4', size: String(size) },
    nextUpstream: RETRY_CLASSES[profile.retry]!.join(' '),
  };
}

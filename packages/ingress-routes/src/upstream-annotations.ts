/**
 * ingress-nginx proxy annotations that become directives of a route's profile location:
 * proxy-buffering, proxy-request-buffering, proxy-http-version, proxy-buffer-size,
 * proxy-buffers-number, proxy-busy-buffers-size, client-body-buffer-size, proxy-max-temp-file-size,
 * proxy-next-upstream and proxy-next-upstream-timeout. Only enumerations and numbers come out of here.
 */
import { RETRY_CONDITIONS, type RetryCondition, type UpstreamSettings } from '@ingresskit/route-model';
import { type IngressAnnotations, type AnnotationParser } from './annotation-types.js';

const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
/** Largest buffer accepted: far above what a location needs, small enough to be no memory attack. */
const MAX_BUFFER_BYTES = 1024 ** 2;
const MAX_TEMP_FILE_BYTES = 1024 ** 4;

function settingsOf(into: IngressAnnotations): UpstreamSettings {
  return (into.upstreamSettings ??= {});
}

/** An nginx size (`512`, `8k`, `1m`, `1g`) in bytes from `min` to `max`, or undefined. */
function readSize(value: string, min: number, max: number): number | undefined {
  const match = /^([0-9]{1,10})([kKmMgG]?)$/.exec(value);
  if (match === null) return undefined;
  const bytes = Number(match[1]) * SIZE_UNITS[match[2]!.toLowerCase()]!;
  return bytes >= min && bytes <= max ? bytes : undefined;
}

function parseSize(
  min: number,
  max: number,
  set: (settings: UpstreamSettings, bytes: number) => void,
): AnnotationParser {
  return (value, into) => {
    const bytes = readSize(value, min, max);
    if (bytes === undefined) return `must be a size such as 8k or 1m, from ${min} to ${max} bytes`;
    set(settingsOf(into), bytes);
    return undefined;
  };
}

function parseSwitch(set: (settings: UpstreamSettings, on: boolean) => void): AnnotationParser {
  return (value, into) => {
    if (value !== 'on' && value !== 'off') return 'must be "on" or "off"';
    set(settingsOf(into), value === 'on');
    return undefined;
  };
}

/** The parsers of the annotations that become profile directives. */
export const UPSTREAM_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'proxy-buffering': parseSwitch((settings, on) => (settings.responseBuffering = on)),
  'proxy-request-buffering': parseSwitch((settings, on) => (settings.requestBuffering = on)),
  'proxy-http-version': (value, into) => {
    if (value !== '1.0' && value !== '1.1') return 'must be "1.0" or "1.1"';
    settingsOf(into).httpVersion = value;
    return undefined;
  },
  'proxy-buffer-size': parseSize(
    1024,
    MAX_BUFFER_BYTES,
    (settings, bytes) => (settings.bufferSizeBytes = bytes),
  ),
  // nginx needs room for its busy buffers beside one being read: fewer than 3 fails its check.
  'proxy-buffers-number': (value, into) => {
    if (!/^[1-9][0-9]?$/.test(value) || Number(value) < 3 || Number(value) > 64)
      return 'must be a whole number from 3 to 64';
    settingsOf(into).buffersNumber = Number(value);
    return undefined;
  },
  // Checked against the buffers once every annotation is read (checkBusyBuffers).
  'proxy-busy-buffers-size': parseSize(
    1024,
    64 * MAX_BUFFER_BYTES,
    (settings, bytes) => (settings.busyBuffersBytes = bytes),
  ),
  'client-body-buffer-size': parseSize(
    1024,
    MAX_BUFFER_BYTES,
    (settings, bytes) => (settings.requestBodyBufferBytes = bytes),
  ),
  // nginx wants 0 or at least the largest buffer: 1m covers every proxy-buffer-size accepted.
  'proxy-max-temp-file-size': (value, into) => {
    const bytes = readSize(value, 0, MAX_TEMP_FILE_BYTES);
    if (bytes === undefined || (bytes > 0 && bytes < MAX_BUFFER_BYTES))
      return 'must be 0 (no temporary file) or a size from 1m to 1024g';
    settingsOf(into).maxTempFileBytes = bytes;
    return undefined;
  },
  'proxy-next-upstream': (value, into) => {
    const words = value.trim().split(/ +/);
    if (words.length === 1 && words[0] === 'off') {
      settingsOf(into).retryOn = [];
      return undefined;
    }
    for (const word of words) {
      if (!RETRY_CONDITIONS.includes(word as RetryCondition)) {
        return `must be "off" or conditions among ${RETRY_CONDITIONS.join(' ')}, separated by spaces`;
      }
    }
    settingsOf(into).retryOn = RETRY_CONDITIONS.filter((condition) => words.includes(condition));
    return undefined;
  },
  'proxy-next-upstream-timeout': (value, into) => {
    if (!/^[0-9]{1,5}$/.test(value) || Number(value) > 86400) return 'must be whole seconds from 0 to 86400';
    settingsOf(into).retryTimeoutSeconds = Number(value);
    return undefined;
  },
};

/**
 * Why the busy buffers of `settings` do not fit its buffers (nginx refuses a configuration where
 * proxy_busy_buffers_size is under one buffer, or not under all buffers but one), or undefined.
 * Unset buffers count as the data plane's defaults: 4k, 4 of them.
 */
export function checkBusyBuffers(settings: UpstreamSettings | undefined): string | undefined {
  const busy = settings?.busyBuffersBytes;
  if (busy === undefined) return undefined;
  const size = settings?.bufferSizeBytes ?? 4096;
  const all = (settings?.buffersNumber ?? 4) * size;
  if (busy >= size && busy < all - size) return undefined;
  return `must be at least proxy-buffer-size (${size}) and less than proxy-buffers-number - 1 buffers (${all - size} bytes)`;
}

/** Leaves out the busy buffers of `into`, and its upstream settings when nothing else is left. */
export function dropBusyBuffers(into: { upstreamSettings?: UpstreamSettings }): void {
  if (into.upstreamSettings === undefined) return;
  delete into.upstreamSettings.busyBuffersBytes;
  if (Object.keys(into.upstreamSettings).length === 0) delete into.upstreamSettings;
}

/**
 * `settings` with non_idempotent among the retry conditions, as ingress-nginx's retry-non-idempotent
 * (its buildNextUpstream adds it to every location's proxy_next_upstream); "off" stays off.
 */
export function withNonIdempotentRetries(
  settings: UpstreamSettings | undefined,
): UpstreamSettings | undefined {
  // nginx's default conditions, which ingress-nginx's proxy-next-upstream default repeats.
  const retryOn = settings?.retryOn ?? ['error', 'timeout'];
  if (retryOn.length === 0) return settings;
  const conditions = new Set<RetryCondition>([...retryOn, 'non_idempotent']);
  return { ...settings, retryOn: RETRY_CONDITIONS.filter((condition) => conditions.has(condition)) };
}

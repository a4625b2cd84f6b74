/**
 * UpstreamSettings → the directives of a profile location (proxy_buffering, proxy_next_upstream
 * and the like) and the part of the profile name that stands for them. Only validated enumerations
 * and numbers come out; a setting outside its range counts as absent.
 */
import { RETRY_CONDITIONS, type RetryCondition, type UpstreamSettings } from '@ingresskit/route-model';

/** The upstream directives of a profile, validated. */
export interface UpstreamDirectives {
  requestBuffering?: 'on' | 'off';
  responseBuffering?: 'on' | 'off';
  httpVersion?: '1.0' | '1.1';
  /** proxy_buffer_size and the size of each of proxy_buffers. */
  bufferSize?: number;
  buffersNumber?: number;
  /** proxy_busy_buffers_size; only within what the buffers allow (see busyBuffersRange). */
  busyBuffersSize?: number;
  bodyBufferSize?: number;
  maxTempFileSize?: number;
  /** proxy_next_upstream conditions; empty: off. */
  nextUpstream?: RetryCondition[];
  nextUpstreamTimeout?: number;
}

const MAX_BUFFER = 1024 ** 2;
// nginx's default buffer is a memory page (4k here), ingress-nginx's default number is 4.
const DEFAULT_BUFFER_SIZE = 4096;
const DEFAULT_BUFFERS_NUMBER = 4;
const MAX_TEMP_FILE = 1024 ** 4;

function isWhole(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** The valid upstream directives of `settings`, and the names of the settings left out. */
export function upstreamDirectivesOf(settings: UpstreamSettings | undefined): {
  directives: UpstreamDirectives | undefined;
  invalid: string[];
} {
  if (settings === undefined) return { directives: undefined, invalid: [] };
  const directives: UpstreamDirectives = {};
  const invalid: string[] = [];
  const onOff = (value: unknown, name: string): 'on' | 'off' | undefined => {
    if (value === undefined) return undefined;
    if (typeof value === 'boolean') return value ? 'on' : 'off';
    invalid.push(name);
    return undefined;
  };
  const whole = (value: unknown, name: string, min: number, max: number): number | undefined => {
    if (value === undefined) return undefined;
    if (isWhole(value, min, max)) return value;
    invalid.push(name);
    return undefined;
  };
  const requestBuffering = onOff(settings.requestBuffering, 'requestBuffering');
  if (requestBuffering !== undefined) directives.requestBuffering = requestBuffering;
  const responseBuffering = onOff(settings.responseBuffering, 'responseBuffering');
  if (responseBuffering !== undefined) directives.responseBuffering = responseBuffering;
  if (settings.httpVersion !== undefined) {
    if (settings.httpVersion === '1.0' || settings.httpVersion === '1.1')
      directives.httpVersion = settings.httpVersion;
    else invalid.push('httpVersion');
  }
  const bufferSize = whole(settings.bufferSizeBytes, 'bufferSizeBytes', 1024, MAX_BUFFER);
  if (bufferSize !== undefined) directives.bufferSize = bufferSize;
  const buffersNumber = whole(settings.buffersNumber, 'buffersNumber', 3, 64);
  if (buffersNumber !== undefined) directives.buffersNumber = buffersNumber;
  const busy = whole(settings.busyBuffersBytes, 'busyBuffersBytes', 1024, 64 * MAX_BUFFER);
  if (busy !== undefined) {
    const range = busyBuffersRange(bufferSize, buffersNumber);
    if (busy >= range.min && busy <= range.max) directives.busyBuffersSize = busy;
    else invalid.push('busyBuffersBytes');
  }
  const bodyBufferSize = whole(settings.requestBodyBufferBytes, 'requestBodyBufferBytes', 1024, MAX_BUFFER);
  if (bodyBufferSize !== undefined) directives.bodyBufferSize = bodyBufferSize;
  const maxTemp = whole(settings.maxTempFileBytes, 'maxTempFileBytes', 0, MAX_TEMP_FILE);
  if (maxTemp !== undefined) {
    if (maxTemp === 0 || maxTemp >= MAX_BUFFER) directives.maxTempFileSize = maxTemp;
    else invalid.push('maxTempFileBytes');
  }
  if (settings.retryOn !== undefined) {
    if (
      Array.isArray(settings.retryOn) &&
      settings.retryOn.every((condition) => RETRY_CONDITIONS.includes(condition))
    ) {
      directives.nextUpstream = RETRY_CONDITIONS.filter((condition) => settings.retryOn!.includes(condition));
    } else invalid.push('retryOn');
  }
  const timeout = whole(settings.retryTimeoutSeconds, 'retryTimeoutSeconds', 0, 86400);
  if (timeout !== undefined) directives.nextUpstreamTimeout = timeout;
  return { directives: Object.keys(directives).length === 0 ? undefined : directives, invalid };
}

/**
 * The proxy_busy_buffers_size nginx accepts with these buffers (the defaults where unset, as the
 * view renders them): at least one buffer, less than all buffers but one.
 */
export function busyBuffersRange(
  bufferSize: number | undefined,
  buffersNumber: number | undefined,
): { min: number; max: number } {
  const size = bufferSize ?? DEFAULT_BUFFER_SIZE;
  return { min: size, max: ((buffersNumber ?? DEFAULT_BUFFERS_NUMBER) - 1) * size - 1 };
}

/** The profile name suffix of `directives`: `_` and a code with a number per directive set. */
export function upstreamNameSuffix(directives: UpstreamDirectives): string {
  const parts: string[] = [];
  if (directives.requestBuffering !== undefined)
    parts.push(`rq${directives.requestBuffering === 'on' ? 1 : 0}`);
  if (directives.responseBuffering !== undefined)
    parts.push(`rs${directives.responseBuffering === 'on' ? 1 : 0}`);
  if (directives.httpVersion !== undefined) parts.push(`v${directives.httpVersion === '1.0' ? 10 : 11}`);
  if (directives.bufferSize !== undefined) parts.push(`bs${directives.bufferSize}`);
  if (directives.buffersNumber !== undefined) parts.push(`bn${directives.buffersNumber}`);
  if (directives.busyBuffersSize !== undefined) parts.push(`bb${directives.busyBuffersSize}`);
  if (directives.bodyBufferSize !== undefined) parts.push(`cb${directives.bodyBufferSize}`);
  if (directives.maxTempFileSize !== undefined) parts.push(`tf${directives.maxTempFileSize}`);
  if (directives.nextUpstream !== undefined) {
    const mask = directives.nextUpstream.reduce(
      (bits, condition) => bits | (1 << RETRY_CONDITIONS.indexOf(condition)),
      0,
    );
    parts.push(`nu${mask}`);
  }
  if (directives.nextUpstreamTimeout !== undefined) parts.push(`nt${directives.nextUpstreamTimeout}`);
  return parts.map((part) => `_${part}`).join('');
}

/**
 * The view of the directives for the template: strings as nginx reads them, `false` for what is
 * not set (the template runs in strict mode, and `0` must still render).
 */
export function viewUpstreamDirectives(directives: UpstreamDirectives | undefined) {
  if (directives === undefined) return false;
  const { bufferSize, buffersNumber, busyBuffersSize } = directives;
  // A busy size was checked against these buffers: they are rendered with it.
  const hasBuffers = bufferSize !== undefined || buffersNumber !== undefined || busyBuffersSize !== undefined;
  const size = bufferSize ?? DEFAULT_BUFFER_SIZE;
  const number = buffersNumber ?? DEFAULT_BUFFERS_NUMBER;
  const text = (value: number | string | undefined) => (value === undefined ? false : String(value));
  return {
    requestBuffering: directives.requestBuffering ?? false,
    responseBuffering: directives.responseBuffering ?? false,
    httpVersion: directives.httpVersion ?? false,
    bufferSize: text(busyBuffersSize === undefined ? bufferSize : size),
    buffers: hasBuffers ? { number: String(number), size: String(size) } : false,
    // With 3 buffers the default busy size (two buffers) leaves none to read into.
    busyBuffersSize:
      busyBuffersSize !== undefined
        ? String(busyBuffersSize)
        : hasBuffers && number === 3
          ? String(size)
          : false,
    bodyBufferSize: text(directives.bodyBufferSize),
    maxTempFileSize: text(directives.maxTempFileSize),
    nextUpstream:
      directives.nextUpstream === undefined
        ? false
        : directives.nextUpstream.length === 0
          ? 'off'
          : directives.nextUpstream.join(' '),
    nextUpstreamTimeout: text(directives.nextUpstreamTimeout),
  };
}

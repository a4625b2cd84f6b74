/**
 * The controller ConfigMap's proxy-stream-* keys: how nginx's stream block proxies the TCP and
 * UDP services (idle timeout, passing a connection to the next endpoint, UDP answers expected).
 * nginx takes them from nginx.conf (a reload); only checked numbers reach it.
 */
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import type { IngressNginxConfigKey } from './configmap-key.js';

/** What the keys set (names as nginx-template's RenderOptions.streamProxy); absent: ingress-nginx's default. */
export interface ConfigMapStreamProxy {
  /** proxy-stream-timeout: a connection idle this long is closed (default 600 s). */
  timeoutMs?: number;
  /** proxy-stream-next-upstream: a connection an endpoint refuses goes to the next (default true). */
  nextUpstream?: boolean;
  /** proxy-stream-next-upstream-timeout: 0 is no limit (default 600 s). */
  nextUpstreamTimeoutMs?: number;
  /** proxy-stream-next-upstream-tries: 0 is no limit (default 3). */
  nextUpstreamTries?: number;
  /** proxy-stream-responses: datagrams a UDP service's endpoint answers with (default 1). */
  responses?: number;
}

/** The part of ConfigMapNginxSettings these keys set. */
export interface StreamProxySettings {
  /** The proxy-stream-* keys: how the TCP and UDP services are proxied. */
  streamProxy?: ConfigMapStreamProxy;
}

/**
 * The longest time taken: nginx's timers compare times as differences of milliseconds, which
 * must stay below 2^31.
 */
export const MAX_STREAM_TIME_MS = 24 * 86_400_000;
const MAX_TRIES = 1000;
const MAX_RESPONSES = 1_000_000;

// nginx's time syntax as ingress-nginx passes it on: `600s`, `10m`, `1h30m`, `500ms`, units
// largest first and each once; a number alone is seconds.
const TIME = /^(?:([0-9]{1,9})d)?(?:([0-9]{1,9})h)?(?:([0-9]{1,9})m)?(?:([0-9]{1,9})s)?(?:([0-9]{1,9})ms)?$/;
const UNIT_MS = [86_400_000, 3_600_000, 60_000, 1000, 1];
const TIME_PROBLEM = 'must be a time such as 600s, 10m, 1h30m or 500ms';

/** A time in nginx's syntax → milliseconds, from `min` to MAX_STREAM_TIME_MS; else why not. */
export function parseStreamTime(value: string, min: number): number | string {
  const groups = /^[0-9]{1,9}$/.test(value)
    ? [undefined, undefined, undefined, value]
    : TIME.exec(value)?.slice(1);
  if (value === '' || groups === undefined) return TIME_PROBLEM;
  const total = groups.reduce((sum, count, at) => sum + Number(count ?? 0) * UNIT_MS[at]!, 0);
  if (total < min) return `must be at least ${min}ms`;
  if (total > MAX_STREAM_TIME_MS) return `must be at most ${MAX_STREAM_TIME_MS / 86_400_000}d`;
  return total;
}

function wholeNumber(value: string, max: number): number | string {
  const number = /^[0-9]{1,10}$/.test(value) ? Number(value) : Number.NaN;
  return number <= max ? number : `must be a whole number from 0 to ${max}`;
}

function streamProxyOf(into: StreamProxySettings): ConfigMapStreamProxy {
  return (into.streamProxy = { ...into.streamProxy });
}

/** A key's reader: `parse` gives the value or why it is invalid; `set` keeps a valid one. */
function reader<T>(
  parse: (value: string) => T | string,
  set: (proxy: ConfigMapStreamProxy, value: T) => void,
) {
  return (value: string, into: StreamProxySettings): string | undefined => {
    const parsed = parse(value);
    if (typeof parsed === 'string') return parsed;
    set(streamProxyOf(into), parsed);
    return undefined;
  };
}

/** How each key is read into ConfigMapNginxSettings: the reason it is invalid, or undefined. */
export const STREAM_PROXY_KEYS: Readonly<
  Record<string, (value: string, into: StreamProxySettings) => string | undefined>
> = {
  // 0 would close every connection at once: nginx arms the idle timer with it.
  'proxy-stream-timeout': reader(
    (value) => parseStreamTime(value, 1),
    (proxy, ms) => (proxy.timeoutMs = ms),
  ),
  'proxy-stream-next-upstream': reader(
    (value) => readBoolean(value) ?? BOOLEAN_PROBLEM,
    (proxy, on) => (proxy.nextUpstream = on),
  ),
  'proxy-stream-next-upstream-timeout': reader(
    (value) => parseStreamTime(value, 0),
    (proxy, ms) => (proxy.nextUpstreamTimeoutMs = ms),
  ),
  'proxy-stream-next-upstream-tries': reader(
    (value) => wholeNumber(value, MAX_TRIES),
    (proxy, tries) => (proxy.nextUpstreamTries = tries),
  ),
  'proxy-stream-responses': reader(
    (value) => wholeNumber(value, MAX_RESPONSES),
    (proxy, count) => (proxy.responses = count),
  ),
};

const TIME_DIFFERENCE = `a time of d, h, m, s, ms (no unit: seconds), at most ${MAX_STREAM_TIME_MS / 86_400_000}d`;

/** The catalogue rows of STREAM_PROXY_KEYS. */
export const STREAM_PROXY_ROWS: readonly IngressNginxConfigKey[] = [
  {
    name: 'proxy-stream-timeout',
    applied: 'reload',
    difference: `${TIME_DIFFERENCE}, at least 1ms (nginx closes a connection at once with 0)`,
  },
  { name: 'proxy-stream-next-upstream', applied: 'reload' },
  {
    name: 'proxy-stream-next-upstream-timeout',
    applied: 'reload',
    difference: `${TIME_DIFFERENCE}; 0 is no limit`,
  },
  {
    name: 'proxy-stream-next-upstream-tries',
    applied: 'reload',
    difference: `a whole number from 0 (no limit) to ${MAX_TRIES}`,
  },
  {
    name: 'proxy-stream-responses',
    applied: 'reload',
    difference: `a whole number from 0 to ${MAX_RESPONSES}; UDP services only, as ingress-nginx`,
  },
];

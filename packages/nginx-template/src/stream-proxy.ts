/**
 * How the stream block proxies the TCP and UDP services (ingress-nginx's proxy-stream-* keys, its
 * defaults when unset), and the name each stream server gives `$proxy_upstream_name` for its log.
 */
import { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';

/** The stream servers' proxying; an absent field is ingress-nginx's default. */
export interface StreamProxyOptions {
  /** An idle connection is closed after this long; default 600 s. */
  timeoutMs?: number;
  /** A connection an endpoint refuses or times out goes to the next endpoint; default true. */
  nextUpstream?: boolean;
  /** How long passing to the next endpoint may take; 0 is no limit; default 600 s. */
  nextUpstreamTimeoutMs?: number;
  /** How many endpoints are tried; 0 is no limit; default 3. */
  nextUpstreamTries?: number;
  /** Datagrams a UDP service's endpoint answers one with; default 1. */
  responses?: number;
}

/** StreamProxyOptions checked; absent from Settings when none is given. */
export type StreamProxySettings = StreamProxyOptions;

/** The Service a stream service proxies to, as its ConfigMap entry names it. */
export interface StreamServiceSource {
  namespace: string;
  service: string;
  /** The Service port as written: a number or a port name. */
  port: number | string;
}

/** Longest time taken: nginx compares timer deadlines as differences of milliseconds below 2^31. */
const MAX_TIME_MS = 24 * 86_400_000;
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const PORT_NAME = /^[a-z0-9](?:[a-z0-9-]{0,13}[a-z0-9])?$/;
const UPSTREAM_NAME = /^(?:tcp|udp)-[a-z0-9-]{5,160}$/;

function checkCount(option: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new InvalidRenderOptionsError(
      option,
      `must be an integer from ${min} to ${max} (got ${String(value)})`,
    );
  return value;
}

/** Checks `options`; throws InvalidRenderOptionsError naming a bad field. Undefined when none is given. */
export function checkStreamProxyOptions(
  options: StreamProxyOptions | undefined,
): StreamProxySettings | undefined {
  if (options === undefined) return undefined;
  const settings: StreamProxySettings = {};
  if (options.timeoutMs !== undefined)
    settings.timeoutMs = checkCount('streamProxy.timeoutMs', options.timeoutMs, 1, MAX_TIME_MS);
  if (options.nextUpstream !== undefined) {
    if (typeof options.nextUpstream !== 'boolean')
      throw new InvalidRenderOptionsError(
        'streamProxy.nextUpstream',
        `must be a boolean (got ${String(options.nextUpstream)})`,
      );
    settings.nextUpstream = options.nextUpstream;
  }
  if (options.nextUpstreamTimeoutMs !== undefined)
    settings.nextUpstreamTimeoutMs = checkCount(
      'streamProxy.nextUpstreamTimeoutMs',
      options.nextUpstreamTimeoutMs,
      0,
      MAX_TIME_MS,
    );
  if (options.nextUpstreamTries !== undefined)
    settings.nextUpstreamTries = checkCount(
      'streamProxy.nextUpstreamTries',
      options.nextUpstreamTries,
      0,
      1000,
    );
  if (options.responses !== undefined)
    settings.responses = checkCount('streamProxy.responses', options.responses, 0, 1_000_000);
  return Object.keys(settings).length === 0 ? undefined : settings;
}

/** Checks a stream service's `source`: DNS labels and a port number or name; throws InvalidRenderOptionsError. */
export function checkStreamServiceSource(option: string, source: StreamServiceSource): StreamServiceSource {
  if (typeof source?.namespace !== 'string' || !DNS_LABEL.test(source.namespace))
    throw new InvalidRenderOptionsError(
      `${option}.namespace`,
      `must be a DNS label (got ${JSON.stringify(source?.namespace)})`,
    );
  if (typeof source.service !== 'string' || !DNS_LABEL.test(source.service))
    throw new InvalidRenderOptionsError(
      `${option}.service`,
      `must be a DNS label (got ${JSON.stringify(source.service)})`,
    );
  const port =
    typeof source.port === 'string' && PORT_NAME.test(source.port)
      ? source.port
      : checkCount(`${option}.port`, source.port, 1, 65535);
  return { namespace: source.namespace, service: source.service, port };
}

/** Milliseconds as nginx time: whole seconds as `Ns`, else `Nms`. */
function formatTime(what: string, ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > MAX_TIME_MS)
    throw new UnsafeValueError(
      `${what} ${String(ms)} is out of range; render only what buildConfiguration made`,
    );
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** What the stream block renders of its proxying: every directive, at ingress-nginx's default when unset. */
export function viewStreamProxy(settings: StreamProxySettings | undefined) {
  const responses = settings?.responses ?? 1;
  const tries = settings?.nextUpstreamTries ?? 3;
  if (!Number.isInteger(responses) || !Number.isInteger(tries))
    throw new UnsafeValueError(
      'stream proxy counts are not integers; render only what buildConfiguration made',
    );
  return {
    streamProxy: {
      timeout: formatTime('stream proxy timeout', settings?.timeoutMs ?? 600_000),
      nextUpstream: settings?.nextUpstream === false ? 'off' : 'on',
      nextUpstreamTimeout: formatTime(
        'stream next upstream timeout',
        settings?.nextUpstreamTimeoutMs ?? 600_000,
      ),
      nextUpstreamTries: tries,
      responses,
    },
  };
}

/**
 * ingress-nginx's `$proxy_upstream_name` of a stream server: `tcp-NAMESPACE-SERVICE-PORT` (or
 * `udp-`), the port as the entry wrote it; empty without a source. Throws UnsafeValueError for a
 * source checkStreamServiceSource would refuse.
 */
export function streamUpstreamName(protocol: 'TCP' | 'UDP', source: StreamServiceSource | undefined): string {
  if (source === undefined) return '';
  const name = `${protocol.toLowerCase()}-${source.namespace}-${source.service}-${String(source.port)}`;
  if (!UPSTREAM_NAME.test(name) || !DNS_LABEL.test(source.namespace) || !DNS_LABEL.test(source.service))
    throw new UnsafeValueError(
      `stream upstream name ${JSON.stringify(name)} is out of shape; render only what buildConfiguration made`,
    );
  return name;
}

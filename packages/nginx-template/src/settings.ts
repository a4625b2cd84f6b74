/**
 * Options → settings: every option an operator gives buildConfiguration is checked here, once,
 * and turned into the plain values nginx.conf is rendered from. A bad option throws
 * InvalidRenderOptionsError naming it; nothing else in the package validates options.
 */
import { isIP } from 'node:net';
import { parseCidr } from './cidr.js';
import { InvalidRenderOptionsError } from './errors.js';
import {
  resolveRequestCounting,
  type RequestCounting,
  type RequestCountingOptions,
} from './request-counting.js';
import { checkAccessLogOptions, type AccessLogOptions, type AccessLogSettings } from './access-log.js';
import { DEFAULT_GZIP_TYPES } from './gzip-types.js';
import type { HttpOptions } from '@ingresskit/nginx-settings';
import { checkHttpOptions, listHttpModules, type HttpSettings } from './http-settings.js';
import { checkSslDhParam, checkSslEcdhCurve, type DhParamSettings } from './connection-settings.js';
import { checkUpstreamDefaults } from './upstream-directives.js';
import type { UpstreamSettings } from '@ingresskit/route-model';
import {
  checkStreamAccessLogOptions,
  type StreamAccessLogOptions,
  type StreamAccessLogSettings,
} from './stream-access-log.js';
import {
  checkUpstreamHeaders,
  type UpstreamHeaderOptions,
  type UpstreamHeaderSettings,
} from './upstream-headers.js';
import {
  checkStreamProxyOptions,
  checkStreamServiceSource,
  type StreamProxyOptions,
  type StreamProxySettings,
  type StreamServiceSource,
} from './stream-proxy.js';
import { DEFAULT_REGEX_MATCHES_PER_REQUEST } from './regex-work.js';

/** Options of buildConfiguration. Relative paths are resolved by nginx against its `-p` prefix. */
export interface RenderOptions {
  /**
   * Absolute path of the control socket (`listen unix:`), inside a directory only the user
   * running nginx may enter, e.g. `<prefix>/control/ingresskit.sock`. Required: nginx resolves a
   * relative socket path against its working directory, not the prefix.
   */
  controlSocketPath: string;
  /**
   * PEM file with the certificate (chain) and key served to TLS clients whose server name has no
   * binding (and to clients without SNI); default `certs/default.pem`, relative to the directory
   * of nginx.conf. `createSelfSignedCertificate` makes one.
   */
  defaultCertificatePath?: string;
  /** Addresses to listen on (IPv4 or IPv6); default: all IPv4 addresses. */
  listenAddresses?: string[];
  /**
   * Port nginx binds for a listener port of the route table, when they differ (a Service maps
   * 443 to 8443 in the pod, say). Redirects keep naming the listener's port.
   */
  listenPorts?: Readonly<Record<number, number>>;
  /** `auto` or a count; default `auto`. */
  workerProcesses?: number | 'auto';
  /** Default 16384. */
  workerConnections?: number;
  /** Seconds old workers may take to finish after a reload; default 240. */
  workerShutdownTimeoutSeconds?: number;
  /** Directory holding `ingresskit/*.lua` (see luaFiles); default `lua`, relative to the prefix. */
  luaDir?: string;
  /** Directory of lua-resty-core and other system Lua modules; default `/usr/share/lua/5.1`. */
  luaSystemDir?: string;
  /** Render `load_module` lines for the Lua module (Debian's dynamic modules); default true. */
  loadLuaModule?: boolean;
  /**
   * Absolute directory of ndk_http_module.so and ngx_http_lua_module.so; default
   * `/usr/lib/nginx/modules`. Absolute because Debian's `modules-enabled` paths do not resolve
   * under `nginx -p`.
   */
  modulesDir?: string;
  /** Default `nginx.pid`. */
  pidPath?: string;
  /** Default `error.log`. */
  errorLogPath?: string;
  /** Default `notice`. */
  errorLogLevel?: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit';
  /** Access log path, or false for none; default `access.log`. */
  accessLogPath?: string | false;
  /** The access log's format, escaping, buffering and skipped URIs; ingresskit's own by default. */
  accessLog?: AccessLogOptions;
  /** Directory of nginx's temp directories (client bodies, proxy buffers); default the prefix. */
  tempDir?: string;
  /**
   * Idle connections to backends kept open (shared by every backend: size it for many);
   * false turns it off. Default 320 connections, 60 s, 10000 requests, and nginx's 1 h for
   * `timeSeconds`, how long one connection may serve requests.
   */
  upstreamKeepalive?:
    false | { connections?: number; timeoutSeconds?: number; requests?: number; timeSeconds?: number };
  /** DNS servers (IP or IP:port) nginx resolves ExternalName backends with; none by default. */
  resolvers?: string[];
  /**
   * Compress responses of these types with gzip (ingress-nginx's use-gzip); off by default.
   * Defaults: level 1, 256 bytes, ingress-nginx's list of types (`*`: every type).
   */
  gzip?: false | { level?: number; minLength?: number; types?: string[] };
  /** Say nginx's version in the Server header and error pages; default false. */
  serverTokens?: boolean;
  /** Client keep-alive: idle seconds (0: off; default 75) and requests per connection (default nginx's, 1000). */
  clientKeepalive?: { timeoutSeconds?: number; requests?: number };
  /** TLS versions served (TLSv1, TLSv1.1, TLSv1.2, TLSv1.3); default TLSv1.2 and TLSv1.3. */
  sslProtocols?: string[];
  /** OpenSSL cipher list (also preferring the server's order); default nginx's. */
  sslCiphers?: string;
  /** ECDH curves (`ssl_ecdh_curve`), names separated by colons; default `auto`. */
  sslEcdhCurve?: string;
  /** DH parameters (a DH PARAMETERS PEM) for DHE ciphers, written beside nginx.conf; none by default. */
  sslDhParamPem?: string;
  /**
   * Every HTTP and HTTPS listener takes the PROXY protocol (ingress-nginx's use-proxy-protocol):
   * a connection without it is refused, and with `realIp` the client address is the one it
   * carries when the peer is in `realIp.trustedNetworks` (its `header` is then not read).
   */
  proxyProtocol?: boolean;
  /** X-Request-ID and X-Original-URI sent to backends, response headers hidden; see UpstreamHeaderOptions. */
  upstreamHeaders?: UpstreamHeaderOptions;
  /**
   * The operator's upstream settings (ingress-nginx's proxy-buffer-size, proxy-buffers-number,
   * proxy-busy-buffers-size, client-body-buffer-size, proxy-max-temp-file-size and
   * proxy-next-upstream ConfigMap keys): nginx.conf's defaults for every route, and header buffer
   * and retry classes of the profile catalogue, so routes keeping them are served exactly. The
   * other fields are ignored (routes carry them).
   */
  upstreamDefaults?: UpstreamSettings;
  /** Request body limit of routes without `maxBodyBytes`: `0` (none) or a size like `1m`; default `1m`. */
  proxyBodySize?: string;
  /** Defaults of the upstream timeouts, in seconds: 5, 60, 60. */
  proxyConnectTimeoutSeconds?: number;
  proxyReadTimeoutSeconds?: number;
  proxySendTimeoutSeconds?: number;
  /**
   * Size of the shared dict holding the pushed routes, backends and certificates (also the
   * largest push accepted); default `64m`, room for about 10,000 hosts, 10,000 backends and
   * 1,000 certificates several times over.
   */
  sharedDictSize?: string;
  /** Compiled regexes each worker keeps (`lua_regex_cache_max_entries`); default 16384. */
  regexCacheEntries?: number;
  /**
   * Most backtracking steps one regex match may take (`lua_regex_match_limit`); default 100000,
   * about half a millisecond. A route's regex (`^/(a+)+$`) and a request path built to make it
   * backtrack would otherwise hold a worker, and every tenant it serves, for about 45 ms per
   * request (PCRE's own limit of ten million). A match that reaches the limit does not match.
   */
  regexMatchLimit?: number;
  /**
   * Most regex matches the router runs for one request (regex path groups, header and query
   * regex conditions), each bounded by regexMatchLimit; default 16. Once they are spent, the
   * request's other regex paths and conditions do not match. The regex paths of a host are
   * matched together, a group per match (see regex-groups.ts), so a host needs as many matches as
   * it has groups and regex conditions, however many routes it has; a request that crosses
   * several virtual hosts (a host, then wildcards) shares the one bound.
   */
  regexMatchesPerRequest?: number;
  /** Add `X-Ingresskit-Route: <route id>` to every response (debugging, tests); default false. */
  exposeRouteId?: boolean;
  /**
   * Count requests per route, status, method and backend in the log phase, readable at GET
   * /metrics/requests on the control socket (ingress-nginx's request metrics), and answer nginx's
   * own connection and request counters at GET /metrics/nginx; default true.
   */
  requestMetrics?: boolean;
  /** How requests are counted (buckets, host label, histograms left out); default ingress-nginx's. */
  requestCounting?: RequestCountingOptions;
  /**
   * External auth services may answer from loopback addresses (but not on nginx's own listener
   * ports): set it as the backend address policy's allowLocalAddresses. Default false. Link-local
   * and unspecified addresses are never accepted.
   */
  localAuthPeers?: boolean;
  /**
   * The rest of the backend address policy for auth services' answers (a host name nginx resolves
   * may lead anywhere): `refusedNetworks` (`address/prefix`: the clouds' metadata networks) are
   * never accepted; `ownAddresses` (the gateway pod's) count as loopback; `ownPorts` (the
   * gateway's besides nginx's listeners: health, webhook; stream services' ports are added) are
   * never accepted on loopback or own addresses. None by default.
   */
  authPeerRules?: AuthPeerRulesOptions;
  /**
   * Listener ports (of the route table) whose server nginx binds on 127.0.0.1 only, taking the
   * PROXY protocol and the client address it carries from 127.0.0.1 only: the HTTPS listener
   * behind the controller's ssl-passthrough proxy. None by default.
   */
  proxyProtocolPorts?: number[];
  /**
   * TCP and UDP services (ingress-nginx's `--tcp-services-configmap` and
   * `--udp-services-configmap`): a `stream` server per port proxying to the addresses given, which
   * takes the stream module (`ngx_stream_module.so` in `modulesDir`). None by default.
   */
  streamServices?: StreamService[];
  /** The stream services' access log: path (default accessLogPath) and format (ingress-nginx's default). */
  streamAccessLog?: StreamAccessLogOptions;
  /** How the stream services are proxied (ingress-nginx's proxy-stream-* keys); its defaults by default. */
  streamProxy?: StreamProxyOptions;
  /**
   * The client address from a header set by proxies in front (ingress-nginx's enable-real-ip,
   * use-forwarded-headers, forwarded-for-header, proxy-real-ip-cidr, compute-full-forwarded-for):
   * nginx's realip module replaces the peer by the last address of `header` not in
   * `trustedNetworks`, when the peer is in them. Allowlists, limits and X-Real-IP then see that
   * address. Absent by default: the peer is the client.
   */
  realIp?: RealIpSettings;
  /** Header buffers and timeouts, HTTP/2, TLS sessions, hash sizes, workers, brotli (see HttpOptions). */
  http?: HttpOptions;
}

/** How the client address and the X-Forwarded-* headers are taken from proxies in front. */
export interface RealIpSettings {
  /** The request header carrying the client address: A-Z a-z 0-9 -, such as X-Forwarded-For. */
  header: string;
  /** CIDRs (or addresses) of the proxies whose `header` is believed; at least one. */
  trustedNetworks: string[];
  /**
   * Pass the client's X-Forwarded-Proto, -Host and -Port on when present, and X-Forwarded-For as
   * the client address alone (or, with `fullForwardedFor`, the client's list and the peer).
   */
  forwardedHeaders: boolean;
  fullForwardedFor: boolean;
}

/** One TCP or UDP port nginx exposes and the addresses it balances over (round robin). */
export interface StreamService {
  protocol: 'TCP' | 'UDP';
  /** The port nginx listens on. */
  port: number;
  /** IP addresses and ports; none: connections are closed. */
  endpoints: { address: string; port: number }[];
  /** Listen with `proxy_protocol` (TCP only). */
  decodeProxyProtocol?: boolean;
  /** Send a PROXY protocol line to the backend (TCP only). */
  encodeProxyProtocol?: boolean;
  /** The Service it proxies to, which names the server in the stream log ($proxy_upstream_name). */
  source?: StreamServiceSource;
}

/** A StreamService checked: every field present but the optional source. */
export type CheckedStreamService = Required<Omit<StreamService, 'source'>> & Pick<StreamService, 'source'>;

/** A header name realIp may read: A-Z a-z 0-9 -, at most 64. */
export const REAL_IP_HEADER = /^[A-Za-z0-9-]{1,64}$/;

/** An IPv4 or IPv6 address with an optional prefix length. */
export function isCidr(value: string): boolean {
  return parseCidr(value) !== undefined;
}

function checkRealIp(realIp: RealIpSettings): RealIpSettings {
  if (typeof realIp.header !== 'string' || !REAL_IP_HEADER.test(realIp.header))
    throw new InvalidRenderOptionsError(
      'realIp.header',
      `must be a header name of A-Z a-z 0-9 - (got ${JSON.stringify(realIp.header)})`,
    );
  if (!Array.isArray(realIp.trustedNetworks) || realIp.trustedNetworks.length === 0)
    throw new InvalidRenderOptionsError('realIp.trustedNetworks', 'must hold at least one CIDR');
  for (const network of realIp.trustedNetworks) {
    if (typeof network !== 'string' || !isCidr(network))
      throw new InvalidRenderOptionsError(
        'realIp.trustedNetworks',
        `must hold CIDRs (got ${JSON.stringify(network)})`,
      );
  }
  return {
    header: realIp.header,
    trustedNetworks: [...realIp.trustedNetworks],
    forwardedHeaders: realIp.forwardedHeaders === true,
    fullForwardedFor: realIp.forwardedHeaders === true && realIp.fullForwardedFor === true,
  };
}

/** See RenderOptions.authPeerRules. */
export interface AuthPeerRulesOptions {
  refusedNetworks?: string[];
  ownAddresses?: string[];
  ownPorts?: number[];
}

/** Checked auth peer rules: networks and addresses as given, ports sorted and once each. */
export interface AuthPeerRules {
  refusedNetworks: string[];
  ownAddresses: string[];
  ownPorts: number[];
}

function checkAuthPeerRules(rules: AuthPeerRulesOptions): AuthPeerRules {
  const refusedNetworks = (rules.refusedNetworks ?? []).map((network) => {
    if (typeof network !== 'string' || !isCidr(network))
      throw new InvalidRenderOptionsError(
        'authPeerRules.refusedNetworks',
        `must hold CIDRs (got ${JSON.stringify(network)})`,
      );
    return network;
  });
  const ownAddresses = (rules.ownAddresses ?? []).map((address) => {
    if (typeof address !== 'string' || isIP(address) === 0 || address.includes('%'))
      throw new InvalidRenderOptionsError(
        'authPeerRules.ownAddresses',
        `must hold IP addresses (got ${JSON.stringify(address)})`,
      );
    return address;
  });
  const ports = (rules.ownPorts ?? []).map((port) => checkInteger('authPeerRules.ownPorts', port, 1, 65535));
  return { refusedNetworks, ownAddresses, ownPorts: [...new Set(ports)].sort((a, b) => a - b) };
}

/** Upstream keep-alive settings. */
export interface KeepaliveSettings {
  connections: number;
  timeoutSeconds: number;
  requests: number;
  /** Absent: nginx's default (1 h). */
  timeSeconds?: number;
}

/** The options, checked and with every default filled in. Plain JSON; part of Configuration. */
export interface Settings {
  controlSocketPath: string;
  defaultCertificatePath: string;
  /** Empty: all IPv4 addresses. */
  listenAddresses: string[];
  /** Listener port → bind port, only where they differ; keys as decimal strings, sorted. */
  listenPorts: Record<string, number>;
  workerProcesses: number | 'auto';
  workerConnections: number;
  workerShutdownTimeoutSeconds: number;
  luaDir: string;
  luaSystemDir: string;
  /** Absolute paths of the modules to `load_module`, in order; empty when not loading. */
  modules: string[];
  pidPath: string;
  errorLogPath: string;
  errorLogLevel: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit';
  accessLogPath: string | false;
  /** Absent at the defaults. */
  accessLog?: AccessLogSettings;
  /** Empty: the prefix. */
  tempDir: string;
  upstreamKeepalive: KeepaliveSettings | false;
  resolvers: string[];
  proxyConnectTimeoutSeconds: number;
  proxyReadTimeoutSeconds: number;
  proxySendTimeoutSeconds: number;
  /** Body limit of routes without their own, in bytes; 0 means none. */
  defaultMaxBodyBytes: number;
  sharedDictBytes: number;
  regexCacheEntries: number;
  regexMatchLimit: number;
  regexMatchesPerRequest: number;
  exposeRouteId: boolean;
  requestMetrics: boolean;
  /** Absent when requests are not counted, or counted as ingress-nginx does by default. */
  requestCounting?: RequestCounting;
  localAuthPeers: boolean;
  /** Absent when not given, so that the hash of a configuration without them is what it was. */
  authPeerRules?: AuthPeerRules;
  /**
   * Sorted; absent when none, as is `streamServices` (so that the hash of a configuration
   * without them is what it was before they existed).
   */
  proxyProtocolPorts?: number[];
  /** Sorted by protocol and port; endpoints sorted, proxy protocol flags always present. */
  streamServices?: CheckedStreamService[];
  /** Absent without stream services or without an access log. */
  streamAccessLog?: StreamAccessLogSettings;
  /** Absent without stream services or when no streamProxy option is given. */
  streamProxy?: StreamProxySettings;
  /** Absent when not configured; networks in the order given. */
  realIp?: RealIpSettings;
  // The settings below are absent at their defaults, for the same reason.
  gzip?: GzipSettings;
  serverTokens?: true;
  /** Absent: 75. */
  clientKeepaliveTimeoutSeconds?: number;
  /** Absent: nginx's default. */
  clientKeepaliveRequests?: number;
  /** In TLS version order; absent: TLSv1.2 and TLSv1.3. */
  sslProtocols?: string[];
  sslCiphers?: string;
  /** Absent when no http option is set. */
  http?: HttpSettings;
  /** Absent: `auto`. */
  sslEcdhCurve?: string;
  sslDhParam?: DhParamSettings;
  proxyProtocol?: true;
  upstreamHeaders?: UpstreamHeaderSettings;
  /** The operator's upstream settings nginx.conf takes (see RenderOptions.upstreamDefaults); absent: none. */
  upstreamDefaults?: UpstreamSettings;
}

/** gzip compression of responses. */
export interface GzipSettings {
  level: number;
  minLength: number;
  /** MIME types, or `*`; deduplicated, in the order given. */
  types: string[];
}

/** The TLS versions nginx may serve, in order. */
export const TLS_VERSIONS: readonly string[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

/** A MIME type as gzip_types takes it: TYPE/SUBTYPE of letters, digits and ! & . + - _, or `*`. */
export const GZIP_TYPE = /^(?:\*|[A-Za-z0-9][A-Za-z0-9!&.+_-]{0,63}\/[A-Za-z0-9][A-Za-z0-9!&.+_-]{0,63})$/;

/** An OpenSSL cipher list: letters, digits and + : _ ! - @ . =, at most 2048 characters. */
export const SSL_CIPHER_LIST = /^[A-Za-z0-9+:_!@.=-]{1,2048}$/;

function checkGzip(gzip: RenderOptions['gzip']): GzipSettings | undefined {
  if (gzip === undefined || gzip === false) return undefined;
  const types = [...new Set(gzip.types ?? DEFAULT_GZIP_TYPES)];
  if (types.length === 0 || types.length > 100)
    throw new InvalidRenderOptionsError('gzip.types', 'must hold from 1 to 100 MIME types');
  for (const type of types)
    if (typeof type !== 'string' || !GZIP_TYPE.test(type))
      throw new InvalidRenderOptionsError(
        'gzip.types',
        `must hold MIME types TYPE/SUBTYPE or "*" (got ${JSON.stringify(type)})`,
      );
  return {
    level: checkInteger('gzip.level', gzip.level ?? 1, 1, 9),
    minLength: checkInteger('gzip.minLength', gzip.minLength ?? 256, 0, 1_000_000_000),
    types,
  };
}

function checkSslProtocols(protocols: readonly string[] | undefined): string[] | undefined {
  if (protocols === undefined) return undefined;
  for (const protocol of protocols)
    if (!TLS_VERSIONS.includes(protocol))
      throw new InvalidRenderOptionsError(
        'sslProtocols',
        `must hold ${TLS_VERSIONS.join(', ')} (got ${JSON.stringify(protocol)})`,
      );
  const checked = TLS_VERSIONS.filter((version) => protocols.includes(version));
  if (checked.length === 0) throw new InvalidRenderOptionsError('sslProtocols', 'must name a TLS version');
  return checked.join(' ') === 'TLSv1.2 TLSv1.3' ? undefined : checked;
}

function checkSslCiphers(ciphers: unknown): string | undefined {
  if (ciphers === undefined) return undefined;
  if (typeof ciphers !== 'string' || !SSL_CIPHER_LIST.test(ciphers))
    throw new InvalidRenderOptionsError(
      'sslCiphers',
      `must be an OpenSSL cipher list of A-Z a-z 0-9 + : _ ! - @ . = (got ${JSON.stringify(ciphers)})`,
    );
  return ciphers;
}

const SAFE_PATH = /^[A-Za-z0-9._~\-/+@:]+$/;

function checkPath(option: string, value: unknown): string {
  if (typeof value !== 'string' || !SAFE_PATH.test(value) || value.includes('//')) {
    throw new InvalidRenderOptionsError(
      option,
      `must be a path of A-Z a-z 0-9 . _ ~ - / + @ : (got ${JSON.stringify(value)})`,
    );
  }
  return value.length > 1 ? value.replace(/\/$/, '') : value;
}

function checkAbsolutePath(option: string, value: unknown): string {
  const path = checkPath(option, value);
  if (!path.startsWith('/')) {
    throw new InvalidRenderOptionsError(option, `must be an absolute path (got ${JSON.stringify(value)})`);
  }
  return path;
}

function checkInteger(option: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidRenderOptionsError(
      option,
      `must be an integer from ${min} to ${max} (got ${String(value)})`,
    );
  }
  return value;
}

const SIZE = /^(0|[1-9][0-9]{0,9})([kKmMgG]?)$/;
const UNIT: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** Largest size accepted anywhere (1 TiB): far beyond real bodies, exact in JSON and Lua numbers. */
export const MAX_SIZE_BYTES = 2 ** 40;

/** Whether `value` is a body limit nginx can take: an integer number of bytes from 0 to 1 TiB. */
export function isValidMaxBodyBytes(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_SIZE_BYTES;
}

function checkSize(option: string, value: unknown, min: number): number {
  const match = typeof value === 'string' ? SIZE.exec(value) : null;
  const bytes = match === null ? NaN : Number(match[1]) * UNIT[match[2]!.toLowerCase()]!;
  if (!(bytes >= min) || bytes > MAX_SIZE_BYTES) {
    throw new InvalidRenderOptionsError(
      option,
      `must be a size such as 512k or 64m${min > 0 ? ` of at least ${min} bytes` : ''} (got ${JSON.stringify(value)})`,
    );
  }
  return bytes;
}

/**
 * Bytes of the shared dict the `sharedDictSize` option gives (64m when undefined); throws an
 * InvalidRenderOptionsError for a size nginx would not take or below 1 MiB.
 */
export function sharedDictBytesOf(size: string | undefined): number {
  return checkSize('sharedDictSize', size ?? '64m', 1024 ** 2);
}

function checkResolver(value: unknown): string {
  const match =
    typeof value === 'string' ? /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+))(?::(\d{1,5}))?$/.exec(value) : null;
  const address = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? undefined : Number(match[3]);
  if (address === undefined || isIP(address) === 0 || (port !== undefined && (port < 1 || port > 65535))) {
    throw new InvalidRenderOptionsError(
      'resolvers',
      `must hold IP or IP:port values (got ${JSON.stringify(value)})`,
    );
  }
  return value as string;
}

function checkStreamServices(services: readonly StreamService[]): CheckedStreamService[] {
  const seen = new Set<string>();
  const checked = services.map((service, index): CheckedStreamService => {
    const option = `streamServices[${index}]`;
    if (service?.protocol !== 'TCP' && service?.protocol !== 'UDP')
      throw new InvalidRenderOptionsError(
        option,
        `protocol must be TCP or UDP (got ${JSON.stringify(service?.protocol)})`,
      );
    const port = checkInteger(`${option}.port`, service.port, 1, 65535);
    const key = `${service.protocol}/${port}`;
    if (seen.has(key)) throw new InvalidRenderOptionsError(option, `${key} is given twice`);
    seen.add(key);
    const decode = service.decodeProxyProtocol === true;
    const encode = service.encodeProxyProtocol === true;
    if (service.protocol === 'UDP' && (decode || encode))
      throw new InvalidRenderOptionsError(option, 'the PROXY protocol is for TCP only');
    const endpoints = (service.endpoints ?? []).map((endpoint, at) => {
      if (typeof endpoint?.address !== 'string' || isIP(endpoint.address) === 0)
        throw new InvalidRenderOptionsError(
          `${option}.endpoints[${at}]`,
          `must have an IP address (got ${JSON.stringify(endpoint?.address)})`,
        );
      return {
        address: endpoint.address,
        port: checkInteger(`${option}.endpoints[${at}].port`, endpoint.port, 1, 65535),
      };
    });
    endpoints.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : a.port - b.port));
    return {
      protocol: service.protocol,
      port,
      endpoints,
      decodeProxyProtocol: decode,
      encodeProxyProtocol: encode,
      ...(service.source === undefined
        ? {}
        : { source: checkStreamServiceSource(`${option}.source`, service.source) }),
    };
  });
  return checked.sort((a, b) =>
    a.protocol < b.protocol ? -1 : a.protocol > b.protocol ? 1 : a.port - b.port,
  );
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit'] as const;

// sockaddr_un holds 108 bytes with the terminating NUL.
const MAX_SOCKET_PATH = 107;

/**
 * The socket the router asks external auth services through: `ik-auth.sock` in the directory
 * above the control socket's (the prefix, for `<prefix>/control/ingresskit.sock`). nginx's
 * workers connect to it, so it cannot sit in the control directory, which only nginx's master
 * user may enter; nginx makes the socket itself writable for everyone.
 */
export function authSocketPathOf(controlSocketPath: string): string {
  return `${workerSocketDirectoryOf(controlSocketPath)}/ik-auth.sock`;
}

/**
 * The socket of the hop server (custom error pages, see nginx-conf-template.ts): `ik-hop.sock`
 * beside the auth socket, for the same reason.
 */
export function hopSocketPathOf(controlSocketPath: string): string {
  return `${workerSocketDirectoryOf(controlSocketPath)}/ik-hop.sock`;
}

function workerSocketDirectoryOf(controlSocketPath: string): string {
  return controlSocketPath.replace(/\/[^/]*$/, '').replace(/\/[^/]*$/, '');
}

/** The counting of `options` when requests are counted and not as by default. */
function withRequestCounting(options: RenderOptions): { requestCounting?: RequestCounting } {
  if (options.requestMetrics === false) return {};
  const requestCounting = resolveRequestCounting(options.requestCounting);
  return requestCounting === undefined ? {} : { requestCounting };
}

/** Checks `options` and fills in the defaults; throws InvalidRenderOptionsError naming a bad option. */
export function resolveSettings(options: RenderOptions): Settings {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidRenderOptionsError('controlSocketPath', 'is required (no options were given)');
  }
  const controlSocketPath = checkAbsolutePath('controlSocketPath', options.controlSocketPath);
  if (controlSocketPath.length > MAX_SOCKET_PATH) {
    throw new InvalidRenderOptionsError('controlSocketPath', `must be at most ${MAX_SOCKET_PATH} bytes long`);
  }
  if (authSocketPathOf(controlSocketPath).length > MAX_SOCKET_PATH) {
    throw new InvalidRenderOptionsError(
      'controlSocketPath',
      `must leave room for ik-auth.sock in the directory above it (at most ${MAX_SOCKET_PATH} bytes)`,
    );
  }
  const listenAddresses = (options.listenAddresses ?? []).map((address) => {
    if (typeof address !== 'string' || isIP(address) === 0) {
      throw new InvalidRenderOptionsError(
        'listenAddresses',
        `must hold IP addresses (got ${JSON.stringify(address)})`,
      );
    }
    return address;
  });
  const listenPorts: Record<string, number> = {};
  for (const key of Object.keys(options.listenPorts ?? {}).sort((a, b) => Number(a) - Number(b))) {
    const port = checkInteger('listenPorts', Number(key), 1, 65535);
    listenPorts[String(port)] = checkInteger(`listenPorts.${key}`, options.listenPorts![port], 1, 65535);
  }
  const keepalive = options.upstreamKeepalive;
  const errorLogLevel = options.errorLogLevel ?? 'notice';
  if (!LOG_LEVELS.includes(errorLogLevel)) {
    throw new InvalidRenderOptionsError(
      'errorLogLevel',
      `must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(errorLogLevel)})`,
    );
  }
  const modulesDir = checkAbsolutePath('modulesDir', options.modulesDir ?? '/usr/lib/nginx/modules');
  const workerProcesses = options.workerProcesses ?? 'auto';
  const streamServices = checkStreamServices(options.streamServices ?? []);
  const streamProxy = streamServices.length === 0 ? undefined : checkStreamProxyOptions(options.streamProxy);
  const gzip = checkGzip(options.gzip);
  const accessLog = checkAccessLogOptions(options.accessLog);
  const streamAccessLog =
    streamServices.length === 0
      ? undefined
      : checkStreamAccessLogOptions(
          options.streamAccessLog,
          options.accessLogPath === false ? false : (options.accessLogPath ?? 'access.log'),
          checkPath,
        );
  const clientKeepaliveTimeoutSeconds = checkInteger(
    'clientKeepalive.timeoutSeconds',
    options.clientKeepalive?.timeoutSeconds ?? 75,
    0,
    86400,
  );
  const sslProtocols = checkSslProtocols(options.sslProtocols);
  const sslCiphers = checkSslCiphers(options.sslCiphers);
  const http = checkHttpOptions(options.http);
  const upstreamHeaders = checkUpstreamHeaders(options.upstreamHeaders);
  const upstreamDefaults = checkUpstreamDefaults(options.upstreamDefaults);
  const proxyProtocolPorts = [
    ...new Set(
      (options.proxyProtocolPorts ?? []).map((port) => checkInteger('proxyProtocolPorts', port, 1, 65535)),
    ),
  ].sort((a, b) => a - b);
  return {
    controlSocketPath,
    defaultCertificatePath: checkPath(
      'defaultCertificatePath',
      options.defaultCertificatePath ?? 'certs/default.pem',
    ),
    listenAddresses,
    listenPorts,
    workerProcesses:
      workerProcesses === 'auto' ? 'auto' : checkInteger('workerProcesses', workerProcesses, 1, 1024),
    workerConnections: checkInteger('workerConnections', options.workerConnections ?? 16384, 16, 1_000_000),
    workerShutdownTimeoutSeconds: checkInteger(
      'workerShutdownTimeoutSeconds',
      options.workerShutdownTimeoutSeconds ?? 240,
      1,
      86400,
    ),
    luaDir: checkPath('luaDir', options.luaDir ?? 'lua'),
    luaSystemDir: checkPath('luaSystemDir', options.luaSystemDir ?? '/usr/share/lua/5.1'),
    modules: [
      ...(options.loadLuaModule === false
        ? []
        : [`${modulesDir}/ndk_http_module.so`, `${modulesDir}/ngx_http_lua_module.so`]),
      // Loaded only when used: Debian ships it apart (libnginx-mod-stream).
      ...(streamServices.length > 0 ? [`${modulesDir}/ngx_stream_module.so`] : []),
      ...listHttpModules(http).map((module) => `${modulesDir}/${module}`),
    ],
    pidPath: checkPath('pidPath', options.pidPath ?? 'nginx.pid'),
    errorLogPath: checkPath('errorLogPath', options.errorLogPath ?? 'error.log'),
    errorLogLevel,
    accessLogPath:
      options.accessLogPath === false
        ? false
        : checkPath('accessLogPath', options.accessLogPath ?? 'access.log'),
    tempDir: options.tempDir === undefined ? '' : checkPath('tempDir', options.tempDir),
    upstreamKeepalive:
      keepalive === false
        ? false
        : {
            connections: checkInteger(
              'upstreamKeepalive.connections',
              keepalive?.connections ?? 320,
              1,
              1_000_000,
            ),
            timeoutSeconds: checkInteger(
              'upstreamKeepalive.timeoutSeconds',
              keepalive?.timeoutSeconds ?? 60,
              1,
              86400,
            ),
            requests: checkInteger(
              'upstreamKeepalive.requests',
              keepalive?.requests ?? 10000,
              1,
              100_000_000,
            ),
            ...(keepalive?.timeSeconds === undefined
              ? {}
              : {
                  timeSeconds: checkInteger('upstreamKeepalive.timeSeconds', keepalive.timeSeconds, 1, 86400),
                }),
          },
    resolvers: (options.resolvers ?? []).map(checkResolver),
    proxyConnectTimeoutSeconds: checkInteger(
      'proxyConnectTimeoutSeconds',
      options.proxyConnectTimeoutSeconds ?? 5,
      1,
      86400,
    ),
    proxyReadTimeoutSeconds: checkInteger(
      'proxyReadTimeoutSeconds',
      options.proxyReadTimeoutSeconds ?? 60,
      1,
      86400,
    ),
    proxySendTimeoutSeconds: checkInteger(
      'proxySendTimeoutSeconds',
      options.proxySendTimeoutSeconds ?? 60,
      1,
      86400,
    ),
    defaultMaxBodyBytes: checkSize('proxyBodySize', options.proxyBodySize ?? '1m', 0),
    // Below a megabyte a single full push of a small table would not fit.
    sharedDictBytes: sharedDictBytesOf(options.sharedDictSize),
    regexCacheEntries: checkInteger('regexCacheEntries', options.regexCacheEntries ?? 16384, 0, 10_000_000),
    regexMatchLimit: checkInteger('regexMatchLimit', options.regexMatchLimit ?? 100_000, 1_000, 10_000_000),
    regexMatchesPerRequest: checkInteger(
      'regexMatchesPerRequest',
      options.regexMatchesPerRequest ?? DEFAULT_REGEX_MATCHES_PER_REQUEST,
      1,
      100_000,
    ),
    exposeRouteId: options.exposeRouteId === true,
    requestMetrics: options.requestMetrics !== false,
    ...withRequestCounting(options),
    localAuthPeers: options.localAuthPeers === true,
    ...(options.authPeerRules === undefined
      ? {}
      : { authPeerRules: checkAuthPeerRules(options.authPeerRules) }),
    ...(proxyProtocolPorts.length === 0 ? {} : { proxyProtocolPorts }),
    ...(streamServices.length === 0 ? {} : { streamServices }),
    ...(streamAccessLog === undefined ? {} : { streamAccessLog }),
    ...(streamProxy === undefined ? {} : { streamProxy }),
    ...(options.realIp === undefined ? {} : { realIp: checkRealIp(options.realIp) }),
    ...(gzip === undefined ? {} : { gzip }),
    ...(accessLog === undefined ? {} : { accessLog }),
    ...(options.serverTokens === true ? { serverTokens: true as const } : {}),
    ...(clientKeepaliveTimeoutSeconds === 75 ? {} : { clientKeepaliveTimeoutSeconds }),
    ...(options.clientKeepalive?.requests === undefined
      ? {}
      : {
          clientKeepaliveRequests: checkInteger(
            'clientKeepalive.requests',
            options.clientKeepalive.requests,
            1,
            100_000_000,
          ),
        }),
    ...(sslProtocols === undefined ? {} : { sslProtocols }),
    ...(sslCiphers === undefined ? {} : { sslCiphers }),
    ...(http === undefined ? {} : { http }),
    ...(upstreamHeaders === undefined ? {} : { upstreamHeaders }),
    ...(upstreamDefaults === undefined ? {} : { upstreamDefaults }),
    ...checkConnectionOptions(options),
  };
}

/** The connection and TLS options, absent at their defaults (see connection-settings.ts). */
function checkConnectionOptions(
  options: RenderOptions,
): Pick<Settings, 'sslEcdhCurve' | 'sslDhParam' | 'proxyProtocol'> {
  const sslEcdhCurve = checkSslEcdhCurve(options.sslEcdhCurve);
  const sslDhParam = checkSslDhParam(options.sslDhParamPem);
  return {
    ...(sslEcdhCurve === undefined ? {} : { sslEcdhCurve }),
    ...(sslDhParam === undefined ? {} : { sslDhParam }),
    ...(options.proxyProtocol === true ? { proxyProtocol: true as const } : {}),
  };
}

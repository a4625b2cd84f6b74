/**
 * Configuration → nginx.conf text, through the handlebars template. The size of the output
 * depends on the listeners and profiles only, never on the number of hosts or routes.
 */
import Handlebars from 'handlebars';
import { isIP } from 'node:net';
import { computeConfigurationHash, type Configuration } from './build-configuration.js';
import { UnsafeValueError } from './errors.js';
import {
  HTTP_SETTINGS_PARTIAL,
  NGINX_CONF_TEMPLATE,
  PROFILE_PARTIAL,
  SERVER_PARTIAL,
} from './nginx-conf-template.js';
import type { Profile } from './profiles.js';
import { viewUpstreamDirectives } from './upstream-directives.js';
import {
  authSocketPathOf,
  isCidr,
  REAL_IP_HEADER,
  type RealIpSettings,
  GZIP_TYPE,
  SSL_CIPHER_LIST,
  TLS_VERSIONS,
  type GzipSettings,
  type CheckedStreamService,
} from './settings.js';
import { quoteNginxLiteral, quoteNginxString } from './quote.js';
import { viewRequestCounting } from './request-counting.js';
import { viewAccessLog } from './access-log.js';
import { viewHttpSettings } from './http-settings.js';
import { DH_PARAM_FILE, ECDH_CURVE_LIST } from './connection-settings.js';
import { viewStreamAccessLog } from './stream-access-log.js';
import { streamUpstreamName, viewStreamProxy } from './stream-proxy.js';
import { viewUpstreamHeaders } from './upstream-headers.js';

const PROFILE_NAME =
  /^ik_(?:http|https|grpc|grpcs)_(?:d|b(?:0|[1-9][0-9]{0,12}))(?:_(?:rq|rs|v|bs|bn|bb|cb|tf|nu|nt)[0-9]{1,13})*(?:_t[0-9a-f]{12})?(?:_e[45][0-9]{2})*(?:_p)?$/;

function unsafe(what: string, value: unknown, reason: string): never {
  throw new UnsafeValueError(
    `${what} ${JSON.stringify(value)} ${reason}; render only what buildConfiguration made`,
  );
}

function checkInteger(what: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    unsafe(what, value, 'is not a whole number');
  return value;
}

function checkErrorStatus(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 400 || value > 599)
    unsafe('error status', value, 'is not a status from 400 to 599');
  return value;
}

/** Every status some profile intercepts, ascending: each gets its error location in every server. */
function listErrorStatuses(profiles: readonly Profile[]): number[] {
  const statuses = new Set<number>();
  for (const profile of profiles) for (const status of profile.errorStatuses ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b).map((status) => checkErrorStatus(status));
}

function formatListen(address: string | undefined, port: number): string {
  if (address === undefined) return String(port);
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * A listener behind the ssl-passthrough proxy is bound on loopback only, with the PROXY protocol;
 * with `proxyProtocol` (use-proxy-protocol) every listener takes it.
 */
function listenView(
  passthrough: boolean,
  proxyProtocol: boolean,
  addresses: (string | undefined)[],
  bindPort: number,
) {
  return passthrough
    ? { passthrough, proxyProtocol: true, listen: [formatListen('127.0.0.1', bindPort)] }
    : { passthrough, proxyProtocol, listen: addresses.map((address) => formatListen(address, bindPort)) };
}

function viewStreamService(service: CheckedStreamService, addresses: (string | undefined)[]) {
  if (service.protocol !== 'TCP' && service.protocol !== 'UDP')
    unsafe('stream protocol', service.protocol, 'is not TCP or UDP');
  const port = checkInteger('stream port', service.port);
  const udp = service.protocol === 'UDP';
  return {
    upstream: `ik_${udp ? 'udp' : 'tcp'}_${port}`,
    udp,
    decode: service.decodeProxyProtocol === true,
    encode: service.encodeProxyProtocol === true,
    upstreamName: streamUpstreamName(service.protocol, service.source),
    listen: addresses.map((address) => formatListen(address, port)),
    servers: service.endpoints.map((endpoint) => {
      if (isIP(endpoint.address) === 0) unsafe('stream endpoint', endpoint.address, 'is not an IP address');
      return formatListen(endpoint.address, checkInteger('stream endpoint port', endpoint.port));
    }),
  };
}

/** The real IP settings as rendered: the header name and the networks checked again. */
function viewRealIp(realIp: RealIpSettings, proxyProtocol: boolean) {
  if (!REAL_IP_HEADER.test(realIp.header)) unsafe('real IP header', realIp.header, 'is no header name');
  for (const network of realIp.trustedNetworks)
    if (!isCidr(network)) unsafe('real IP network', network, 'is no CIDR');
  // With the PROXY protocol on every listener the client address is the one its line carries.
  return {
    header: proxyProtocol ? 'proxy_protocol' : realIp.header,
    trustedNetworks: realIp.trustedNetworks,
  };
}

function viewProfile(profile: Profile, defaultMaxBody: number) {
  if (!PROFILE_NAME.test(profile.name)) unsafe('profile', profile.name, 'is not a profile name');
  const scheme = profile.protocol.toLowerCase();
  return {
    bodySize: checkInteger('body size', profile.maxBodyBytes ?? defaultMaxBody),
    isGrpc: profile.protocol === 'GRPC' || profile.protocol === 'GRPCS',
    isTls: profile.protocol === 'HTTPS' || profile.protocol === 'GRPCS',
    scheme,
    upstream: viewUpstreamDirectives(profile.upstream),
    errorStatuses: (profile.errorStatuses ?? []).map((status) => checkErrorStatus(status)),
    passBackendErrors: profile.passBackendErrors === true,
    variants: [
      { name: profile.name, external: false, filter: false },
      { name: `${profile.name}_h`, external: false, filter: true },
      { name: `${profile.name}_x`, external: true, filter: false },
      { name: `${profile.name}_xh`, external: true, filter: true },
      // Routes that mirror requests: a copy of each goes to /_ingresskit_mirror (see SERVER_PARTIAL).
      { name: `${profile.name}_m`, external: false, filter: true, mirror: true },
    ],
    name: profile.name,
  };
}

/**
 * The body limit of `location /`, where requests are proxied in place: the largest limit of any
 * profile (0 when one has none), so nginx never refuses a body a route would take. Lua checks
 * each route's own limit against Content-Length and sends bodies of unknown length whose route
 * has a smaller limit to the route's profile location, where nginx enforces it while reading.
 */
export function inPlaceMaxBodyBytes(configuration: Pick<Configuration, 'profiles' | 'settings'>): number {
  let largest = 0;
  for (const profile of configuration.profiles) {
    const limit = profile.maxBodyBytes ?? configuration.settings.defaultMaxBodyBytes;
    if (limit === 0) return 0;
    largest = Math.max(largest, limit);
  }
  return largest;
}

type Template = (context: unknown) => string;
let compiled: Template | undefined;

function quoteWith(quote: (value: string) => string | undefined, helper: string) {
  return (value: unknown): string => {
    if (typeof value !== 'string' && typeof value !== 'number') unsafe(helper, value, 'is not a string');
    const quoted = quote(String(value));
    if (quoted === undefined) unsafe(helper, value, 'cannot be quoted safely');
    return quoted;
  };
}

function getTemplate(): Template {
  if (compiled !== undefined) return compiled;
  const handlebars = Handlebars.create();
  handlebars.registerHelper('q', quoteWith(quoteNginxString, 'q'));
  handlebars.registerHelper('qLiteral', quoteWith(quoteNginxLiteral, 'qLiteral'));
  const compileOptions = {
    noEscape: true,
    preventIndent: true,
    strict: true,
    knownHelpers: { q: true, qLiteral: true },
  };
  handlebars.registerPartial('profile', handlebars.compile(PROFILE_PARTIAL, compileOptions));
  handlebars.registerPartial('server', handlebars.compile(SERVER_PARTIAL, compileOptions));
  handlebars.registerPartial('httpSettings', handlebars.compile(HTTP_SETTINGS_PARTIAL, compileOptions));
  compiled = handlebars.compile(NGINX_CONF_TEMPLATE, compileOptions);
  return compiled;
}

function viewGzip(gzip: GzipSettings | undefined) {
  if (gzip === undefined) return undefined;
  for (const type of gzip.types) if (!GZIP_TYPE.test(type)) unsafe('gzip type', type, 'is not a MIME type');
  return {
    level: checkInteger('gzip level', gzip.level),
    minLength: checkInteger('gzip min length', gzip.minLength),
    types: gzip.types,
  };
}

function viewSslProtocols(protocols: readonly string[] | undefined): string {
  const checked = protocols ?? ['TLSv1.2', 'TLSv1.3'];
  for (const protocol of checked)
    if (!TLS_VERSIONS.includes(protocol)) unsafe('ssl protocol', protocol, 'is not a TLS version');
  return checked.join(' ');
}

/** ssl_ecdh_curve and ssl_dhparam, checked again. */
function viewConnectionSettings(settings: Configuration['settings']) {
  const { sslEcdhCurve, sslDhParam } = settings;
  if (sslEcdhCurve !== undefined && !ECDH_CURVE_LIST.test(sslEcdhCurve))
    unsafe('ssl ecdh curve', sslEcdhCurve, 'is not a curve list');
  if (sslDhParam !== undefined && !DH_PARAM_FILE.test(sslDhParam.path))
    unsafe('ssl dhparam', sslDhParam.path, 'is not a DH parameters file name');
  return { sslEcdhCurve, sslDhParam: sslDhParam?.path };
}

function viewSslCiphers(ciphers: string | undefined): string | undefined {
  if (ciphers !== undefined && !SSL_CIPHER_LIST.test(ciphers))
    unsafe('ssl ciphers', ciphers, 'is not an OpenSSL cipher list');
  return ciphers;
}

/**
 * Renders nginx.conf. Pure and deterministic: equal configurations give identical bytes. Throws
 * UnsafeValueError for a Configuration buildConfiguration did not make (its hash no longer
 * matches, or a value is out of shape). Run nginx as `nginx -p <prefix> -c <prefix>/nginx.conf`.
 */
export function renderNginxConf(configuration: Configuration): string {
  const { settings, listeners, profiles } = configuration;
  if (computeConfigurationHash({ settings, listeners, profiles }) !== configuration.configHash) {
    unsafe('configHash', configuration.configHash, 'does not match the configuration');
  }
  const addresses = settings.listenAddresses.length === 0 ? [undefined] : settings.listenAddresses;
  const defaultMaxBody = checkInteger('defaultMaxBodyBytes', settings.defaultMaxBodyBytes);
  const tempDir = settings.tempDir === '' ? '' : `${settings.tempDir}/`;
  const view = {
    configHash: configuration.configHash,
    modules: settings.modules,
    pid: settings.pidPath,
    errorLog: settings.errorLogPath,
    errorLogLevel: settings.errorLogLevel,
    workerProcesses:
      settings.workerProcesses === 'auto'
        ? 'auto'
        : checkInteger('workerProcesses', settings.workerProcesses),
    workerShutdownTimeout: checkInteger(
      'workerShutdownTimeoutSeconds',
      settings.workerShutdownTimeoutSeconds,
    ),
    workerConnections: checkInteger('workerConnections', settings.workerConnections),
    tempPaths: {
      clientBody: `${tempDir}client_body_temp`,
      proxy: `${tempDir}proxy_temp`,
      fastcgi: `${tempDir}fastcgi_temp`,
      uwsgi: `${tempDir}uwsgi_temp`,
      scgi: `${tempDir}scgi_temp`,
    },
    accessLog: settings.accessLogPath,
    ...viewAccessLog(settings.accessLog),
    ...viewStreamAccessLog(settings.streamAccessLog, viewAccessLog(settings.accessLog).accessLogParams),
    ...viewStreamProxy(settings.streamProxy),
    connectTimeout: checkInteger('proxyConnectTimeoutSeconds', settings.proxyConnectTimeoutSeconds),
    readTimeout: checkInteger('proxyReadTimeoutSeconds', settings.proxyReadTimeoutSeconds),
    sendTimeout: checkInteger('proxySendTimeoutSeconds', settings.proxySendTimeoutSeconds),
    resolvers: settings.resolvers,
    gzip: viewGzip(settings.gzip),
    serverTokens: settings.serverTokens === true ? 'on' : 'off',
    clientKeepaliveTimeout: checkInteger(
      'clientKeepaliveTimeoutSeconds',
      settings.clientKeepaliveTimeoutSeconds ?? 75,
    ),
    clientKeepaliveRequests:
      settings.clientKeepaliveRequests === undefined
        ? undefined
        : checkInteger('clientKeepaliveRequests', settings.clientKeepaliveRequests),
    sslProtocols: viewSslProtocols(settings.sslProtocols),
    sslCiphers: viewSslCiphers(settings.sslCiphers),
    http: viewHttpSettings(settings.http),
    ...viewConnectionSettings(settings),
    upstreamHeaders: viewUpstreamHeaders(settings.upstreamHeaders),
    // `$prefix` is expanded by the Lua module to nginx's -p directory.
    luaPackagePath: `${settings.luaDir.startsWith('/') ? settings.luaDir : `$prefix/${settings.luaDir}`}/?.lua;${settings.luaSystemDir}/?.lua;;`,
    sharedDictSize: checkInteger('sharedDictBytes', settings.sharedDictBytes),
    regexCacheEntries: checkInteger('regexCacheEntries', settings.regexCacheEntries),
    regexMatchLimit: checkInteger('regexMatchLimit', settings.regexMatchLimit),
    keepalive:
      settings.upstreamKeepalive === false
        ? undefined
        : {
            connections: checkInteger('keepalive connections', settings.upstreamKeepalive.connections),
            timeoutSeconds: checkInteger('keepalive timeout', settings.upstreamKeepalive.timeoutSeconds),
            requests: checkInteger('keepalive requests', settings.upstreamKeepalive.requests),
            timeSeconds:
              settings.upstreamKeepalive.timeSeconds === undefined
                ? undefined
                : checkInteger('keepalive time', settings.upstreamKeepalive.timeSeconds),
          },
    controlListen: `unix:${settings.controlSocketPath}`,
    authListen: `unix:${authSocketPathOf(settings.controlSocketPath)}`,
    defaultCertificate: settings.defaultCertificatePath,
    exposeRouteId: settings.exposeRouteId,
    requestMetrics: settings.requestMetrics,
    requestCounting:
      settings.requestMetrics && settings.requestCounting !== undefined
        ? viewRequestCounting(settings.requestCounting)
        : undefined,
    localAuthPeers: settings.localAuthPeers,
    defaultMaxBody,
    inPlaceBodySize: checkInteger('in-place body size', inPlaceMaxBodyBytes(configuration)),
    listeners: listeners.map((listener) => {
      if (listener.protocol !== 'HTTP' && listener.protocol !== 'HTTPS')
        unsafe('listener protocol', listener.protocol, 'is not HTTP or HTTPS');
      const bindPort = checkInteger('listener bind port', listener.bindPort);
      return {
        port: checkInteger('listener port', listener.port),
        bindPort,
        protocol: listener.protocol,
        ssl: listener.protocol === 'HTTPS',
        ...listenView(
          settings.proxyProtocolPorts?.includes(listener.port) === true,
          settings.proxyProtocol === true,
          addresses,
          bindPort,
        ),
      };
    }),
    anyProxyProtocol: (settings.proxyProtocolPorts ?? []).length > 0 || settings.proxyProtocol === true,
    realIp:
      settings.realIp === undefined ? false : viewRealIp(settings.realIp, settings.proxyProtocol === true),
    // The peer compute-full-forwarded-for appends: the PROXY line's source, as ingress-nginx.
    forwardedPeer: settings.proxyProtocol === true ? '$proxy_protocol_addr' : '$realip_remote_addr',
    forwardedHeaders: settings.realIp?.forwardedHeaders === true,
    fullForwardedFor: settings.realIp?.fullForwardedFor === true,
    streams: (settings.streamServices ?? []).map((service) => viewStreamService(service, addresses)),
    profiles: profiles.map((profile) => viewProfile(profile, defaultMaxBody)),
    errorStatuses: listErrorStatuses(profiles),
  };
  return getTemplate()(view);
}

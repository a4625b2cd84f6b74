/**
 * Configuration → nginx.conf text, through the handlebars template. The size of the output
 * depends on the listeners and profiles only, never on the number of hosts or routes.
 */
import Handlebars from 'handlebars';
import { isIP } from 'node:net';
import { computeConfigurationHash, type Configuration } from './build-configuration.js';
import { UnsafeValueError } from './errors.js';
import {
  BODY_READER_PARTIAL,
  ERROR_PAGES_PARTIAL,
  HOP_LOCATION_PARTIAL,
  HOP_SERVER_PARTIAL,
  HTTP_SETTINGS_PARTIAL,
  NGINX_CONF_TEMPLATE,
  PROFILE_PARTIAL,
  SERVER_PARTIAL,
  UPSTREAM_HEADERS_PARTIAL,
} from './nginx-conf-template.js';
import {
  INTERCEPTABLE_STATUSES,
  retryConditionsOf,
  type Profile,
  type ProfileCatalogue,
} from './profiles.js';
import {
  createUpstreamDefaults,
  viewProfileDirectives,
  viewUpstreamDefaults,
} from './upstream-directives.js';
import { BODY_READER_EXPONENTS, HOP_HEADERS } from './hop.js';
import {
  authSocketPathOf,
  hopSocketPathOf,
  isCidr,
  REAL_IP_HEADER,
  type RealIpSettings,
  GZIP_TYPE,
  SSL_CIPHER_LIST,
  TLS_VERSIONS,
  type GzipSettings,
  type CheckedStreamService,
  type Settings,
} from './settings.js';
import { parseCidr } from './cidr.js';
import { quoteNginxLiteral, quoteNginxString } from './quote.js';
import { viewRequestCounting } from './request-counting.js';
import { viewAccessLog } from './access-log.js';
import { viewHttpSettings } from './http-settings.js';
import { DH_PARAM_FILE, ECDH_CURVE_LIST } from './connection-settings.js';
import { viewStreamAccessLog } from './stream-access-log.js';
import { streamUpstreamName, viewStreamProxy } from './stream-proxy.js';
import { viewUpstreamHeaders } from './upstream-headers.js';

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

/**
 * A catalogue profile's location as the template writes it; `hop` for the hop server's copy, whose
 * Lua hands back the answers the route does not replace (see HOP_LOCATION_PARTIAL).
 */
function viewProfile(profile: Profile, variant: { mirror?: boolean; hop?: boolean } = {}) {
  return {
    name: variant.mirror === true ? `${profile.name}_m` : profile.name,
    module: profile.family === 'grpc' ? 'grpc' : 'proxy',
    directives: viewProfileDirectives(profile),
    mirror: variant.mirror === true,
    filter: variant.hop === true ? 'ingresskit_hop_filter' : 'ingresskit_filter_response',
    after: variant.hop === true ? 'ingresskit_hop_after' : 'ingresskit_after_request',
  };
}

/** Every profile location a server has: the catalogue, and mirroring copies of the defaults. */
function viewProfiles(catalogue: ProfileCatalogue, hop: boolean) {
  const profiles = hop
    ? catalogue.profiles.filter((profile) => profile.family === 'proxy')
    : catalogue.profiles;
  const mirrored = hop ? [catalogue.defaults.proxy] : [catalogue.defaults.proxy, catalogue.defaults.grpc];
  return [
    ...profiles.map((profile) => viewProfile(profile, { hop })),
    ...mirrored.map((profile) => viewProfile(profile, { mirror: true, hop })),
  ];
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
  handlebars.registerPartial('bodyReader', handlebars.compile(BODY_READER_PARTIAL, compileOptions));
  handlebars.registerPartial('errorPages', handlebars.compile(ERROR_PAGES_PARTIAL, compileOptions));
  handlebars.registerPartial('hopLocation', handlebars.compile(HOP_LOCATION_PARTIAL, compileOptions));
  handlebars.registerPartial('hopServer', handlebars.compile(HOP_SERVER_PARTIAL, compileOptions));
  handlebars.registerPartial('upstreamHeaders', handlebars.compile(UPSTREAM_HEADERS_PARTIAL, compileOptions));
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
  const { settings, listeners } = configuration;
  if (computeConfigurationHash({ settings, listeners }) !== configuration.configHash) {
    unsafe('configHash', configuration.configHash, 'does not match the configuration');
  }
  const addresses = settings.listenAddresses.length === 0 ? [undefined] : settings.listenAddresses;
  const { catalogue } = createUpstreamDefaults(settings.upstreamDefaults);
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
    regexMatchesPerRequest: checkInteger('regexMatchesPerRequest', settings.regexMatchesPerRequest),
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
    hopListen: `unix:${hopSocketPathOf(settings.controlSocketPath)}`,
    defaultCertificate: settings.defaultCertificatePath,
    exposeRouteId: settings.exposeRouteId,
    requestMetrics: settings.requestMetrics,
    requestCounting:
      settings.requestMetrics && settings.requestCounting !== undefined
        ? viewRequestCounting(settings.requestCounting)
        : undefined,
    localAuthPeers: settings.localAuthPeers,
    authPeerRules: viewAuthPeerRules(settings),
    defaultMaxBody,
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
    profiles: viewProfiles(catalogue, false),
    hopProfiles: viewProfiles(catalogue, true),
    upstreamDefaults: viewUpstreamDefaults(settings.upstreamDefaults ?? {}),
    // What the workers check pushed routes against: the profiles nginx.conf has.
    profileClasses: {
      headerBuffers: catalogue.headerBuffers,
      retrySets: catalogue.retrySets,
      defaults: [catalogue.defaults.proxy.name, catalogue.defaults.grpc.name],
    },
    // location / proxies the routes that keep the operator's directives.
    inPlaceRetry: retryConditionsOf(catalogue.defaults.proxy.retry).join(' '),
    bodyReaders: BODY_READER_EXPONENTS.map((exponent) => ({ exponent, size: 2 ** exponent })),
    errorStatuses: INTERCEPTABLE_STATUSES,
    hopHeaders: HOP_HEADERS,
  };
  return getTemplate()(view);
}

/**
 * The auth peer rules as Lua data: networks as hex bytes and prefix length (parsed here once, as
 * the allowlists are), and the own ports with the stream services' listeners, which are nginx's
 * own too.
 */
function viewAuthPeerRules(settings: Settings) {
  const rules = settings.authPeerRules;
  if (rules === undefined) return undefined;
  const toNetwork = (text: string) => {
    const parsed = parseCidr(text);
    if (parsed === undefined) unsafe('auth peer network', text, 'is not a CIDR');
    return { hex: parsed.hex, bits: checkInteger('auth peer prefix', parsed.bits) };
  };
  const streamPorts = (settings.streamServices ?? []).map((service) => service.port);
  return {
    refused: rules.refusedNetworks.map(toNetwork),
    own: rules.ownAddresses.map(toNetwork),
    ownPorts: [...new Set([...rules.ownPorts, ...streamPorts])]
      .sort((a, b) => a - b)
      .map((port) => checkInteger('own port', port)),
  };
}

/**
 * Configuration → nginx.conf text, through the handlebars template. The renderer re-checks every
 * value of the model against the same grammars buildConfiguration used, so a hand-made or altered
 * model fails loudly instead of reaching nginx, and every value is quoted by a template helper.
 */
import Handlebars from 'handlebars';
import { isIP } from 'node:net';
import { InvalidRenderOptionsError, UnsafeValueError } from './errors.js';
import {
  checkDnsSubdomain,
  checkHost,
  checkHostWithPort,
  checkLiteralPath,
  checkRegexPath,
  isPortNumber,
  parseCidr,
} from './grammar.js';
import { LOCATION_PARTIAL, NGINX_CONF_TEMPLATE, SERVER_PARTIAL } from './nginx-conf-template.js';
import { quoteNginxLiteral, quoteNginxReplacement, quoteNginxString } from './quote.js';
import type { Backend, Configuration, Location, Server } from './types.js';

/** Options of renderNginxConf. Relative paths are resolved by nginx against its `-p` prefix. */
export interface RenderOptions {
  /** Port of plain-HTTP servers; default 80. */
  httpPort?: number;
  /** Port of TLS servers; default 443. */
  httpsPort?: number;
  /** Port of the local configuration endpoint (127.0.0.1 only); default 10246. */
  statusPort?: number;
  /** Addresses to listen on (IPv4 or IPv6); default: all IPv4 addresses. */
  listenAddresses?: string[];
  /** Port in the Location of ssl-redirect responses; default httpsPort (omitted when 443). */
  redirectHttpsPort?: number;
  /** `auto` or a count; default `auto`. */
  workerProcesses?: number | 'auto';
  /** Default 16384. */
  workerConnections?: number;
  /** Seconds old workers may take to finish after a reload; default 240. */
  workerShutdownTimeoutSeconds?: number;
  /**
   * Directory of the certificate files (Configuration.certificates, by fileName); default
   * `certs`. A relative path is resolved by nginx against the directory of nginx.conf.
   */
  sslCertificateDir?: string;
  /** Directory holding `ingresskit/*.lua` (see luaFiles); default `lua`, relative to the prefix. */
  luaDir?: string;
  /** Directory of lua-resty-core and other system Lua modules; default `/usr/share/lua/5.1`. */
  luaSystemDir?: string;
  /** Render `load_module` lines for the Lua module (Debian's dynamic modules); default true. */
  loadLuaModule?: boolean;
  /** Where ndk_http_module.so and ngx_http_lua_module.so live; default `/usr/lib/nginx/modules`. */
  modulesDir?: string;
  /** Default `nginx.pid`. */
  pidPath?: string;
  /** Default `error.log`. */
  errorLogPath?: string;
  /** Default `notice`. */
  errorLogLevel?: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit';
  /** Access log path, or false for none; default `access.log`. */
  accessLogPath?: string | false;
  /** Directory of nginx's temp directories (client bodies, proxy buffers); default the prefix. */
  tempDir?: string;
  /** Upstream keepalive to backends; false turns it off. Default 320 connections, 60 s, 10000 requests. */
  upstreamKeepalive?: false | { connections?: number; timeoutSeconds?: number; requests?: number };
  /** DNS servers for ExternalName backends (IP or IP:port); none by default. */
  resolvers?: string[];
  /** Default client_max_body_size; default `1m`. */
  proxyBodySize?: string;
  /** Defaults for the proxy timeouts, in seconds: 5, 60, 60. */
  proxyConnectTimeoutSeconds?: number;
  proxyReadTimeoutSeconds?: number;
  proxySendTimeoutSeconds?: number;
  /** Size of the shared dict holding the backends payload (also the POST limit); default `20m`. */
  backendsSharedDictSize?: string;
}

const SAFE_OPTION_PATH = /^[A-Za-z0-9._~\-/+@:]+$/;

function checkOptionPath(option: string, value: string): string {
  if (!SAFE_OPTION_PATH.test(value) || value.includes('//')) {
    throw new InvalidRenderOptionsError(
      option,
      `must be a path of A-Z a-z 0-9 . _ ~ - / + @ : (got ${JSON.stringify(value)})`,
    );
  }
  return value.replace(/\/$/, '');
}

function checkInteger(option: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidRenderOptionsError(
      option,
      `must be an integer from ${min} to ${max} (got ${String(value)})`,
    );
  }
  return value;
}

const SIZE = /^(?:0|[1-9][0-9]{0,8}[kKmMgG]?)$/;

function checkSize(option: string, value: string): string {
  if (!SIZE.test(value)) {
    throw new InvalidRenderOptionsError(
      option,
      `must be a size such as 512k or 20m (got ${JSON.stringify(value)})`,
    );
  }
  return value.toLowerCase();
}

function formatAddress(address: string | undefined, port: number): string {
  if (address === undefined) return String(port);
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

function nextPowerOfTwo(value: number): number {
  let power = 1;
  while (power < value) power *= 2;
  return power;
}

interface ListenView {
  address: string;
  ssl: boolean;
  defaultServer: boolean;
}

interface LocationView {
  modifier: string;
  isRegex: boolean;
  path: string;
  source?: string;
  backend?: string;
  external?: string;
  upstreamVhost?: string;
  sslRedirect: boolean;
  rewrite?: { pattern: string; replacement: string };
  allow: string[];
  bodySize?: string;
  connectTimeout?: number;
  readTimeout?: number;
  sendTimeout?: number;
  timeoutPrefix: 'proxy' | 'grpc';
  status?: number;
  isGrpc: boolean;
  scheme: 'http' | 'https';
}

interface ServerView {
  listen: ListenView[];
  serverName: string;
  isRegexName: boolean;
  rejectHandshake: boolean;
  certificate?: string;
  locations: LocationView[];
}

function unsafe(what: string, value: unknown, reason: string): never {
  throw new UnsafeValueError(
    `${what} ${JSON.stringify(value)} ${reason}; render only models made by buildConfiguration`,
  );
}

function checkName(what: string, value: string): void {
  // Backend names are `namespace/service:port`; sources `namespace/name`.
  for (const part of value.split(/[/:]/)) {
    if (checkDnsSubdomain(part) !== undefined) unsafe(what, value, 'is not made of DNS names');
  }
}

function checkSeconds(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > 86400)
    unsafe('timeout', value, 'is not 1-86400 seconds');
  return value;
}

function viewLocation(location: Location, backends: ReadonlyMap<string, Backend>): LocationView {
  const isRegex = location.match === 'regex';
  const pathProblem = isRegex
    ? location.path.startsWith('^')
      ? checkRegexPath(location.path.slice(1))
      : 'must start with ^'
    : checkLiteralPath(location.path);
  if (pathProblem !== undefined) unsafe('location path', location.path, pathProblem);
  const protocol = location.proxy.protocol;
  const view: LocationView = {
    modifier: location.match === 'exact' ? '=' : isRegex ? '~*' : '',
    isRegex,
    path: location.path,
    sslRedirect: location.sslRedirect === true,
    allow: location.allowSourceRanges.map(
      (range) => parseCidr(range) ?? unsafe('source range', range, 'is not a CIDR'),
    ),
    timeoutPrefix: protocol === 'GRPC' ? 'grpc' : 'proxy',
    isGrpc: protocol === 'GRPC',
    scheme: protocol === 'HTTPS' ? 'https' : 'http',
  };
  if (location.source !== undefined) {
    const source = `${location.source.ingress.namespace}/${location.source.ingress.name}`;
    checkName('source', source);
    view.source = `ingress ${source}`;
  }
  if (location.target.kind === 'status') {
    view.status = location.target.status === 503 ? 503 : 404;
  } else {
    const backend = backends.get(location.target.backend);
    if (backend === undefined) unsafe('backend', location.target.backend, 'is not in configuration.backends');
    checkName('backend', backend.name);
    if (backend.externalName !== undefined) {
      if (checkDnsSubdomain(backend.externalName) !== undefined || !isPortNumber(backend.port)) {
        unsafe('externalName', backend.externalName, 'is not a host name with a port');
      }
      view.external = `${backend.externalName}:${backend.port}`;
    } else {
      view.backend = backend.name;
    }
  }
  if (location.rewrite !== undefined) {
    const { pattern, replacement } = location.rewrite;
    const unanchored = pattern.replace(/^\(\?i\)/, '');
    if (!unanchored.startsWith('^') || checkRegexPath(unanchored.slice(1)) !== undefined) {
      unsafe('rewrite pattern', pattern, 'is not a path regex');
    }
    if (!/^\/(?:[A-Za-z0-9._~\-/]|\$[1-9])*$/.test(replacement))
      unsafe('rewrite replacement', replacement, 'is not a path');
    view.rewrite = { pattern, replacement };
  }
  const proxy = location.proxy;
  if (proxy.upstreamVhost !== undefined) {
    if (checkHostWithPort(proxy.upstreamVhost) !== undefined)
      unsafe('upstream vhost', proxy.upstreamVhost, 'is not host[:port]');
    view.upstreamVhost = proxy.upstreamVhost;
  }
  if (proxy.bodySize !== undefined) {
    if (!SIZE.test(proxy.bodySize)) unsafe('body size', proxy.bodySize, 'is not a size');
    view.bodySize = proxy.bodySize;
  }
  view.connectTimeout = checkSeconds(proxy.connectTimeoutSeconds);
  view.readTimeout = checkSeconds(proxy.readTimeoutSeconds);
  view.sendTimeout = checkSeconds(proxy.sendTimeoutSeconds);
  return view;
}

interface ResolvedOptions {
  httpPort: number;
  httpsPort: number;
  listenAddresses: (string | undefined)[];
  certificateDir: string;
}

function viewServer(
  server: Server,
  isDefault: boolean,
  options: ResolvedOptions,
  backends: ReadonlyMap<string, Backend>,
): ServerView {
  if (!isDefault) {
    const hostProblem = checkHost(server.host);
    if (hostProblem !== undefined) unsafe('host', server.host, hostProblem);
  }
  const hasTls = server.tls !== undefined;
  const listen: ListenView[] = [];
  for (const address of options.listenAddresses) {
    listen.push({ address: formatAddress(address, options.httpPort), ssl: false, defaultServer: isDefault });
  }
  if (hasTls || isDefault) {
    for (const address of options.listenAddresses) {
      listen.push({
        address: formatAddress(address, options.httpsPort),
        ssl: true,
        defaultServer: isDefault,
      });
    }
  }
  const isWildcard = !isDefault && server.host.startsWith('*.');
  const view: ServerView = {
    listen,
    // One-label wildcards, as Ingress defines them; nginx's own `*.` would match any depth.
    serverName: isDefault
      ? '_'
      : isWildcard
        ? `~^[^.]+${server.host.slice(1).replace(/\./g, '\\.')}$`
        : server.host,
    isRegexName: isWildcard,
    // The catch-all has no certificate: unknown TLS names are refused during the handshake.
    rejectHandshake: isDefault,
    locations: server.locations.map((location) => viewLocation(location, backends)),
  };
  if (server.tls !== undefined) {
    if (!/^[0-9a-f]{32}\.pem$/.test(server.tls.certificate)) {
      unsafe('certificate file', server.tls.certificate, 'is not a file name made by buildConfiguration');
    }
    view.certificate = `${options.certificateDir}/${server.tls.certificate}`;
  }
  return view;
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
  handlebars.registerHelper('qReplacement', quoteWith(quoteNginxReplacement, 'qReplacement'));
  const compileOptions = {
    noEscape: true,
    preventIndent: true,
    knownHelpers: { q: true, qLiteral: true, qReplacement: true },
  };
  handlebars.registerPartial('location', handlebars.compile(LOCATION_PARTIAL, compileOptions));
  handlebars.registerPartial('server', handlebars.compile(SERVER_PARTIAL, compileOptions));
  compiled = handlebars.compile(NGINX_CONF_TEMPLATE, compileOptions);
  return compiled;
}

/**
 * Renders nginx.conf for a configuration. Pure and deterministic: equal configurations and
 * options give identical bytes. Throws InvalidRenderOptionsError for bad options and
 * UnsafeValueError for a model whose values fail the grammars (never for buildConfiguration's).
 * Run nginx as `nginx -p <prefix> -c <prefix>/nginx.conf` so relative paths land in the prefix.
 */
export function renderNginxConf(configuration: Configuration, options: RenderOptions = {}): string {
  const httpPort = checkInteger('httpPort', options.httpPort ?? 80, 1, 65535);
  const httpsPort = checkInteger('httpsPort', options.httpsPort ?? 443, 1, 65535);
  const statusPort = checkInteger('statusPort', options.statusPort ?? 10246, 1, 65535);
  const redirectPort = checkInteger('redirectHttpsPort', options.redirectHttpsPort ?? httpsPort, 1, 65535);
  const listenAddresses = (options.listenAddresses ?? []).map((address) => {
    if (isIP(address) === 0)
      throw new InvalidRenderOptionsError(
        'listenAddresses',
        `must hold IP addresses (got ${JSON.stringify(address)})`,
      );
    return address;
  });
  const workerProcesses =
    options.workerProcesses === undefined || options.workerProcesses === 'auto'
      ? 'auto'
      : checkInteger('workerProcesses', options.workerProcesses, 1, 1024);
  const keepalive =
    options.upstreamKeepalive === false
      ? undefined
      : {
          connections: checkInteger(
            'upstreamKeepalive.connections',
            options.upstreamKeepalive?.connections ?? 320,
            1,
            1_000_000,
          ),
          timeout: checkInteger(
            'upstreamKeepalive.timeoutSeconds',
            options.upstreamKeepalive?.timeoutSeconds ?? 60,
            1,
            86400,
          ),
          requests: checkInteger(
            'upstreamKeepalive.requests',
            options.upstreamKeepalive?.requests ?? 10000,
            1,
            100_000_000,
          ),
        };
  const resolvers = (options.resolvers ?? []).map((resolver) => {
    const match = /^(?:\[([0-9a-fA-F:]+)\]|([0-9.]+))(?::(\d{1,5}))?$/.exec(resolver);
    const address = match?.[1] ?? match?.[2];
    if (
      address === undefined ||
      isIP(address) === 0 ||
      (match?.[3] !== undefined && !isPortNumber(Number(match[3])))
    ) {
      throw new InvalidRenderOptionsError(
        'resolvers',
        `must hold IP or IP:port values (got ${JSON.stringify(resolver)})`,
      );
    }
    return resolver;
  });
  const luaDir = checkOptionPath('luaDir', options.luaDir ?? 'lua');
  const luaSystemDir = checkOptionPath('luaSystemDir', options.luaSystemDir ?? '/usr/share/lua/5.1');
  const modulesDir = checkOptionPath('modulesDir', options.modulesDir ?? '/usr/lib/nginx/modules');
  const tempDir = options.tempDir === undefined ? '' : `${checkOptionPath('tempDir', options.tempDir)}/`;
  const accessLog =
    options.accessLogPath === false
      ? undefined
      : checkOptionPath('accessLogPath', options.accessLogPath ?? 'access.log');
  const errorLogLevel = options.errorLogLevel ?? 'notice';
  if (!['debug', 'info', 'notice', 'warn', 'error', 'crit'].includes(errorLogLevel)) {
    throw new InvalidRenderOptionsError(
      'errorLogLevel',
      `must be a log level (got ${JSON.stringify(errorLogLevel)})`,
    );
  }
  if (!/^[0-9a-f]{64}$/.test(configuration.checksum))
    unsafe('checksum', configuration.checksum, 'is not a SHA-256 hex digest');

  const resolved: ResolvedOptions = {
    httpPort,
    httpsPort,
    listenAddresses: listenAddresses.length === 0 ? [undefined] : listenAddresses,
    certificateDir: checkOptionPath('sslCertificateDir', options.sslCertificateDir ?? 'certs'),
  };
  const backends = new Map(configuration.backends.map((backend) => [backend.name, backend]));
  const longestHost = configuration.servers.reduce(
    (longest, server) => Math.max(longest, server.host.length),
    0,
  );
  const view = {
    checksum: configuration.checksum,
    modules:
      options.loadLuaModule === false
        ? []
        : [`${modulesDir}/ndk_http_module.so`, `${modulesDir}/ngx_http_lua_module.so`],
    pid: checkOptionPath('pidPath', options.pidPath ?? 'nginx.pid'),
    errorLog: checkOptionPath('errorLogPath', options.errorLogPath ?? 'error.log'),
    errorLogLevel,
    workerProcesses,
    workerConnections: checkInteger('workerConnections', options.workerConnections ?? 16384, 16, 1_000_000),
    workerShutdownTimeout: checkInteger(
      'workerShutdownTimeoutSeconds',
      options.workerShutdownTimeoutSeconds ?? 240,
      1,
      86400,
    ),
    // A bucket must hold the longest exact name plus two pointers; with fewer than a few names per
    // bucket nginx cannot build the hash within max_size and warns on every start (seen at 1,000).
    serverNamesHashBucketSize: nextPowerOfTwo(Math.max(128, longestHost + 18)),
    serverNamesHashMaxSize: nextPowerOfTwo(Math.max(1024, configuration.servers.length * 2)),
    tempPaths: {
      clientBody: `${tempDir}client_body_temp`,
      proxy: `${tempDir}proxy_temp`,
      fastcgi: `${tempDir}fastcgi_temp`,
      uwsgi: `${tempDir}uwsgi_temp`,
      scgi: `${tempDir}scgi_temp`,
    },
    accessLog,
    bodySize: checkSize('proxyBodySize', options.proxyBodySize ?? '1m'),
    connectTimeout: checkInteger(
      'proxyConnectTimeoutSeconds',
      options.proxyConnectTimeoutSeconds ?? 5,
      1,
      86400,
    ),
    readTimeout: checkInteger('proxyReadTimeoutSeconds', options.proxyReadTimeoutSeconds ?? 60, 1, 86400),
    sendTimeout: checkInteger('proxySendTimeoutSeconds', options.proxySendTimeoutSeconds ?? 60, 1, 86400),
    resolvers,
    // `$prefix` is expanded by the Lua module to nginx's -p directory.
    luaPackagePath: `${luaDir.startsWith('/') ? luaDir : `$prefix/${luaDir}`}/?.lua;${luaSystemDir}/?.lua;;`,
    sharedDictSize: checkSize('backendsSharedDictSize', options.backendsSharedDictSize ?? '20m'),
    keepalive,
    statusListen: `127.0.0.1:${statusPort}`,
    redirectPort: redirectPort === 443 ? undefined : redirectPort,
    defaultServer: viewServer(configuration.defaultServer, true, resolved, backends),
    servers: configuration.servers.map((server) => viewServer(server, false, resolved, backends)),
  };
  return getTemplate()(view);
}

/**
 * The nginx.conf options of the nginx the controller runs: where things live in its prefix, the
 * listeners of an Ingress controller, and the controller ConfigMap's settings as render options.
 */
import { join } from 'node:path';
import type { RenderOptions } from '@ingresskit/nginx-template';
import type { Listener } from '@ingresskit/route-model';
import type { ConfigMapNginxSettings } from '@ingresskit/ingress-routes';
import type { ControllerConfig } from './config.js';
import { renderOptionsOfHttpSettings } from './configmap-http-render-options.js';

/** How nginx runs in its prefix, as far as nginx.conf says it. */
export interface NginxPrefixOptions {
  /** Addresses nginx listens on for traffic; all IPv4 addresses when empty. */
  listenAddresses?: string[];
  workerProcesses?: number | 'auto';
  /** Write an access log into the prefix (`access.log`); off by default. */
  accessLog?: boolean;
}

/** The listeners of an Ingress controller: plain HTTP and HTTPS on the configured ports. */
export function listenersOf(config: Pick<ControllerConfig, 'httpPort' | 'httpsPort'>): Listener[] {
  return [
    { name: 'http', port: config.httpPort, protocol: 'HTTP' },
    { name: 'https', port: config.httpsPort, protocol: 'HTTPS' },
  ];
}

/**
 * nginx.conf options for the HTTPS listener behind the ssl-passthrough proxy: nginx binds
 * `internalPort` on loopback with the PROXY protocol instead of `httpsPort`, which the proxy owns.
 */
export function sslPassthroughRenderOptions(httpsPort: number, internalPort: number): Partial<RenderOptions> {
  return { listenPorts: { [httpsPort]: internalPort }, proxyProtocolPorts: [httpsPort] };
}

/** The path of nginx's control socket in `prefix`; only the controller's user may enter its directory. */
export function controlSocketPathOf(prefix: string): string {
  return join(prefix, 'control', 'ingresskit.sock');
}

/** The path of the nginx.conf nginx runs in `prefix`. */
export function confPathOf(prefix: string): string {
  return join(prefix, 'nginx.conf');
}

/** The path of the default certificate (certificate and key, PEM) in `prefix`. */
export function defaultCertificatePathOf(prefix: string): string {
  return join(prefix, 'certs', 'default.pem');
}

/**
 * The controller ConfigMap's nginx.conf settings as render options (paths in `prefix`), over the
 * addresses nginx listens on without it (`listenAddresses`).
 */
export function renderOptionsOfConfigMap(
  settings: ConfigMapNginxSettings,
  prefix: string,
  listenAddresses?: readonly string[],
): Partial<RenderOptions> {
  const {
    accessLog,
    accessLogSettings,
    upstreamKeepalive,
    useForwardedHeaders,
    enableRealIp,
    computeFullForwardedFor,
    forwardedForHeader,
    proxyRealIpCidr,
    gzip,
    gzipLevel,
    gzipMinLength,
    gzipTypes,
    keepaliveTimeoutSeconds,
    keepaliveRequests,
    http,
    useProxyProtocol,
    upstreamKeepaliveTimeSeconds,
    // The ssl-passthrough proxy's, not nginx's (see L4Services).
    proxyProtocolHeaderTimeoutMs: _proxyHeaderTimeout,
    ...same
  } = settings;
  const options: Partial<RenderOptions> = { ...same };
  if (http !== undefined) Object.assign(options, renderOptionsOfHttpSettings(http, listenAddresses));
  if (gzip === true) options.gzip = { level: gzipLevel, minLength: gzipMinLength, types: gzipTypes };
  if (keepaliveTimeoutSeconds !== undefined || keepaliveRequests !== undefined)
    options.clientKeepalive = { timeoutSeconds: keepaliveTimeoutSeconds, requests: keepaliveRequests };
  const { path: accessLogPath, streamPath, streamFormat, ...accessLogOptions } = accessLogSettings ?? {};
  if (accessLog !== undefined)
    options.accessLogPath = accessLog ? (accessLogPath ?? join(prefix, 'access.log')) : false;
  if (Object.keys(accessLogOptions).length > 0) options.accessLog = accessLogOptions;
  // The stream log's path is stream-access-log-path or access-log-path, never http-access-log-path.
  if (accessLog === true && accessLogSettings !== undefined)
    options.streamAccessLog = {
      path: streamPath ?? join(prefix, 'access.log'),
      ...(streamFormat === undefined ? {} : { format: streamFormat }),
    };
  if (upstreamKeepalive !== undefined || upstreamKeepaliveTimeSeconds !== undefined)
    options.upstreamKeepalive =
      upstreamKeepalive?.connections === 0
        ? false
        : { ...upstreamKeepalive, timeSeconds: upstreamKeepaliveTimeSeconds };
  if (useProxyProtocol === true) options.proxyProtocol = true;
  // As ingress-nginx: the realip module only with use-forwarded-headers, enable-real-ip or
  // use-proxy-protocol (nginx-template then reads the client address from the PROXY line).
  if (useForwardedHeaders === true || enableRealIp === true || useProxyProtocol === true)
    options.realIp = {
      header: forwardedForHeader ?? 'X-Forwarded-For',
      trustedNetworks: proxyRealIpCidr ?? ['0.0.0.0/0'],
      forwardedHeaders: useForwardedHeaders === true,
      fullForwardedFor: useForwardedHeaders === true && computeFullForwardedFor === true,
    };
  return options;
}

/**
 * nginx.conf options for an nginx running in `prefix`: the control socket and the default
 * certificate inside it, the error log on stderr (the controller reads it line by line; opening
 * /dev/stderr fails when that descriptor is a socket, as with Node child processes).
 */
export function nginxRenderOptions(prefix: string, options: NginxPrefixOptions): RenderOptions {
  return {
    controlSocketPath: controlSocketPathOf(prefix),
    defaultCertificatePath: defaultCertificatePathOf(prefix),
    ...(options.listenAddresses === undefined ? {} : { listenAddresses: options.listenAddresses }),
    workerProcesses: options.workerProcesses ?? 'auto',
    luaDir: join(prefix, 'lua'),
    pidPath: join(prefix, 'nginx.pid'),
    errorLogPath: 'stderr',
    accessLogPath: options.accessLog === true ? join(prefix, 'access.log') : false,
  };
}

/**
 * The TCP and UDP ports this controller and its nginx listen on. A backend on one of them at a
 * local address (loopback, the pod's own) would aim a route at the controller itself: its health,
 * metrics and explain server, the webhook, or nginx (a loop, or the loopback listener behind the
 * ssl-passthrough proxy that believes the PROXY header a client sends through a stream service).
 * The backend address policy refuses them even where local backends are allowed (development).
 */
import type { ControllerConfig } from './config.js';

/** What the controller's config says of the ports it listens on. */
export type OwnPortsConfig = Pick<
  ControllerConfig,
  'httpPort' | 'httpsPort' | 'healthzPort' | 'admissionWebhook' | 'sslPassthrough' | 'sslPassthroughProxyPort'
>;

/**
 * The ports of `config`: nginx's HTTP and HTTPS listeners, the health and metrics server, the
 * webhook, and with `--enable-ssl-passthrough` nginx's HTTPS listener behind the proxy; then
 * `streamPorts`, the listeners of the TCP and UDP services ConfigMaps, which change at run time.
 */
export function listOwnPorts(config: OwnPortsConfig, streamPorts: Iterable<number> = []): Set<number> {
  const ports = new Set([config.httpPort, config.httpsPort, config.healthzPort, ...streamPorts]);
  if (config.admissionWebhook !== undefined) ports.add(config.admissionWebhook.port);
  if (config.sslPassthrough) ports.add(config.sslPassthroughProxyPort);
  // Port 0 asks the system for a free port when listening (tests): no port a backend could name.
  ports.delete(0);
  return ports;
}

/** Whether two sets of ports are the same. */
export function isSamePorts(a: ReadonlySet<number> | undefined, b: ReadonlySet<number>): boolean {
  return a !== undefined && a.size === b.size && [...a].every((port) => b.has(port));
}

export { MAX_CLIENT_HELLO_BYTES, parseClientHello, type ClientHelloParse } from './client-hello.js';
export { TlsRelayError } from './errors.js';
export type { L4ClusterView } from './l4-cluster-view.js';
export { silentLogger, type Logger } from './logger.js';
export {
  createPeerMatcher,
  parseProxyProtocolHeader,
  type ProxyAddress,
  type ProxyHeaderParse,
} from './proxy-protocol-header.js';
export {
  resolvePassthroughHosts,
  type PassthroughHostsOptions,
  type PassthroughHostsResolution,
} from './ssl-passthrough-hosts.js';
export {
  findPassthroughEndpoints,
  formatProxyProtocolV1,
  SslPassthroughProxy,
  type PassthroughCounters,
  type PassthroughEndpoint,
  type PassthroughHosts,
  type PassthroughProxyProtocol,
  type SslPassthroughProxyOptions,
} from './ssl-passthrough-proxy.js';
export {
  listStreamPorts,
  parseStreamServiceEntry,
  resolveStreamServices,
  type StreamServiceEntry,
  type StreamServiceProblem,
  type StreamServicesResolution,
  type StreamServicesSource,
} from './stream-services.js';
export { relayDirectoryOf, TlsRelay, type TlsRelayOptions } from './tls-relay.js';
export { RelayPlan, type RelaySocket } from './tls-relay-plan.js';
export { runTlsRelayWorker } from './tls-relay-worker.js';

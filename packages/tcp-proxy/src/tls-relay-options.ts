/**
 * A backend TLS relay's settings (nginx-template's BackendTlsRelay) → how the relay opens TLS to
 * an endpoint, as plain data a worker thread can receive, with the meaning nginx's proxy_ssl_*
 * directives give each setting (ingress-nginx's proxy-ssl-* annotations are rendered as those):
 * - proxy_ssl_ciphers sets OpenSSL's TLSv1.2 cipher list only; TLSv1.3 keeps OpenSSL's suites,
 *   and OpenSSL skips names it does not know (TLSv1.3 suite names among them). Node would read a
 *   `TLS_` name as a TLSv1.3 suite, so those are left out here.
 * - proxy_ssl_protocols: the lowest and highest version listed (only TLSv1.2 and TLSv1.3 exist).
 * - proxy_ssl_name is the name verified; proxy_ssl_server_name sends it as SNI (never an
 *   address, which SNI cannot carry).
 * - proxy_ssl_verify_depth: at most that many intermediate certificates (OpenSSL's verify depth).
 * - grpc_ssl offers ALPN h2; proxy_ssl offers no ALPN.
 */
import { isIP } from 'node:net';
import type { BackendTlsRelay } from '@ingresskit/nginx-template';

/** A TLS version as Node names it. */
export type TlsVersion = 'TLSv1.2' | 'TLSv1.3';

/** How the relay connects for one relay id; structured-cloneable. */
export interface RelayConnectOptions {
  /** tls.createSecureContext options. */
  context: {
    ca?: string;
    cert?: string;
    key?: string;
    ciphers: string;
    minVersion: TlsVersion;
    maxVersion: TlsVersion;
  };
  /** The SNI sent; absent: none. */
  servername?: string;
  ALPNProtocols?: string[];
  /** With verification: the name the backend's certificate must hold and the most intermediates. */
  verify?: { name: string; depth: number };
  /** TCP connection and TLS handshake; absent: the relay's default (the data plane's connect timeout). */
  connectTimeoutMs?: number;
}

/** The connect options of `relay`, or why they cannot be made. */
export function relayConnectOptionsOf(
  relay: BackendTlsRelay,
): { options: RelayConnectOptions } | { problem: string } {
  const ciphers = relay.ciphers
    .split(':')
    .filter((name) => name !== '' && !name.startsWith('TLS_'))
    .join(':');
  // Node would take an empty list as its own default; nginx -t fails on one that selects nothing.
  if (ciphers === '') return { problem: `cipher list ${relay.ciphers} names no TLSv1.2 cipher` };
  const versions = [...relay.protocols].sort();
  const context: RelayConnectOptions['context'] = {
    ciphers,
    minVersion: versions[0]!,
    maxVersion: versions[versions.length - 1]!,
  };
  if (relay.caCertificatesPem !== undefined) context.ca = relay.caCertificatesPem;
  if (relay.clientCertificate !== undefined) {
    context.cert = relay.clientCertificate.certificatePem;
    context.key = relay.clientCertificate.privateKeyPem;
  }
  const options: RelayConnectOptions = { context };
  const name = relay.serverName;
  if (relay.sendServerName && name !== undefined && isIP(name) === 0) options.servername = name;
  if (relay.alpn !== undefined) options.ALPNProtocols = [relay.alpn];
  if (relay.verify) {
    // compileBackendTlsRelay closes a verifying policy without a name; this never verifies nothing.
    if (name === undefined || relay.caCertificatesPem === undefined)
      return { problem: 'verification needs CA certificates and a name' };
    options.verify = { name, depth: relay.depth };
  }
  if (relay.connectTimeoutMs !== undefined) options.connectTimeoutMs = relay.connectTimeoutMs;
  return { options };
}

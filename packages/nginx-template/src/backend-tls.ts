/**
 * BackendTlsPolicy → the TLS relay that serves it. nginx 1.22 reads a backend's CA certificates,
 * verification, depth, protocols, ciphers and SNI on/off only when nginx.conf loads, so serving
 * them from nginx.conf made a tenant's new CA or cipher list a reload (and a list OpenSSL refuses
 * an `nginx -t` failure). Instead nginx speaks plain text to a unix socket of the controller's
 * TLS relay (HTTP/1.1, or h2c for gRPC), one socket per relay and endpoint, and the relay opens
 * TLS to the endpoint with exactly these settings. A route carries only its relay's id;
 * nginx.conf holds nothing of it. A policy that cannot be served as written closes the route
 * (503), never falls back to unverified TLS.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { BackendTlsPolicy, Route } from '@ingresskit/route-model';
import { isBackendProtocol, isTlsProtocol } from './profiles.js';

/**
 * What the TLS relay needs to open TLS towards the endpoints of the routes of one policy: a
 * backend TLS policy as served, with the name to verify and send made definite (see
 * {@link compileBackendTlsRelay}).
 */
export interface BackendTlsRelay {
  /** 20 hex digits of a SHA-256 over every setting below: two relays with one id are the same. */
  id: string;
  verify: boolean;
  /**
   * Most intermediate certificates between the backend's own and a trusted one, 1 to 100:
   * nginx's proxy_ssl_verify_depth (OpenSSL's verify depth).
   */
  depth: number;
  /** With `verify`: the trusted CA certificates, canonical PEM. */
  caCertificatesPem?: string;
  /** Sorted, at least one. */
  protocols: ('TLSv1.2' | 'TLSv1.3')[];
  /** The OpenSSL cipher list of TLSv1.2, as nginx's proxy_ssl_ciphers (TLSv1.3 keeps OpenSSL's suites). */
  ciphers: string;
  /** The name the backend's certificate must hold (with `verify`) and the SNI sent (with `sendServerName`). */
  serverName?: string;
  sendServerName: boolean;
  /** Presented to the backend: a chain (leaf first) and its key, PEM. */
  clientCertificate?: { certificatePem: string; privateKeyPem: string };
  /** The ALPN protocol offered: `h2` towards gRPC backends; none towards HTTPS ones, as nginx. */
  alpn?: 'h2';
  /** The route's connect timeout (TCP connection and TLS handshake); absent: the data plane's. */
  connectTimeoutMs?: number;
}

/** The directory of the relay's sockets, relative to the nginx prefix, where the Lua balancer finds them. */
export const RELAY_SOCKET_DIRECTORY = 'relay';

/**
 * The file name of the relay socket of relay `relayId` towards `address`:`port`, as the Lua
 * balancer makes it (relay.lua): neither the id, an address with `-` for `:` nor a port holds
 * `_`, so two sockets never share a name; and nginx reads a `:` in a unix socket path as the
 * start of the URI. At most 72 bytes.
 */
export function relaySocketName(relayId: string, address: string, port: number): string {
  return `${relayId}_${address.replaceAll(':', '-')}_${port}`;
}

const PROTOCOLS: ReadonlySet<string> = new Set(['TLSv1.2', 'TLSv1.3']);
// ingress-nginx's proxySSLCiphersRegex, not empty.
const CIPHERS = /^[A-Za-z0-9+:_!-]{1,1024}$/;
const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
// A DNS name: what a TLS server name may be.
const SERVER_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The CA certificates in canonical PEM, or undefined when one does not parse or there is none. */
function canonicalCertificates(pem: string): string | undefined {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return undefined;
  try {
    return blocks.map((block) => new X509Certificate(block).toString().trim() + '\n').join('');
  } catch {
    return undefined;
  }
}

type Settings = Omit<BackendTlsRelay, 'id' | 'serverName' | 'alpn' | 'connectTimeoutMs'>;

/** Checked once per policy object: policies are frozen and shared by the routes of an Ingress. */
const settingsByPolicy = new WeakMap<BackendTlsPolicy, Settings | 'closed'>();
/** The relays made of each policy, by what the route adds to it. */
const relaysByPolicy = new WeakMap<BackendTlsPolicy, Map<string, BackendTlsRelay>>();

/**
 * The settings of `policy`, or `closed` when it cannot be served as written: verification without
 * usable CA certificates, an unknown protocol, a cipher list outside the grammar, a depth out of
 * range or a client certificate without its key.
 */
function settingsOf(policy: BackendTlsPolicy): Settings | 'closed' {
  const known = settingsByPolicy.get(policy);
  if (known !== undefined) return known;
  const settings = checkSettings(policy);
  settingsByPolicy.set(policy, settings);
  return settings;
}

function checkSettings(policy: BackendTlsPolicy): Settings | 'closed' {
  const protocols = Array.isArray(policy.protocols) ? [...new Set(policy.protocols)].sort() : [];
  if (
    protocols.length === 0 ||
    !protocols.every((protocol) => PROTOCOLS.has(protocol)) ||
    typeof policy.ciphers !== 'string' ||
    !CIPHERS.test(policy.ciphers) ||
    !Number.isInteger(policy.depth) ||
    policy.depth < 1 ||
    policy.depth > 100 ||
    (policy.clientCertificate !== undefined &&
      (typeof policy.clientCertificate.certificatePem !== 'string' ||
        typeof policy.clientCertificate.privateKeyPem !== 'string'))
  ) {
    return 'closed';
  }
  const settings: Settings = {
    verify: policy.verify === true,
    depth: policy.depth,
    protocols,
    ciphers: policy.ciphers,
    sendServerName: policy.sendServerName === true,
  };
  if (settings.verify) {
    const pem =
      typeof policy.caCertificatesPem === 'string'
        ? canonicalCertificates(policy.caCertificatesPem)
        : undefined;
    if (pem === undefined) return 'closed';
    settings.caCertificatesPem = pem;
  }
  if (policy.clientCertificate !== undefined) {
    settings.clientCertificate = {
      certificatePem: policy.clientCertificate.certificatePem,
      privateKeyPem: policy.clientCertificate.privateKeyPem,
    };
  }
  return settings;
}

/**
 * The name a route's backend is verified against and reached by: the policy's serverName, else
 * the Host the backend gets when that is fixed (the route's upstreamHost, or `hostname` when it is
 * exact); undefined on a wildcard or catch-all host that sets neither.
 */
function serverNameOf(
  policy: BackendTlsPolicy,
  route: Route,
  hostname: string | undefined,
): string | undefined {
  if (policy.serverName !== undefined) {
    return typeof policy.serverName === 'string' && SERVER_NAME.test(policy.serverName)
      ? policy.serverName
      : undefined;
  }
  // The Host header's port is no part of the name.
  const upstreamHost =
    typeof route.policy.upstreamHost === 'string'
      ? route.policy.upstreamHost.replace(/:[0-9]+$/, '')
      : undefined;
  for (const name of [upstreamHost, hostname]) {
    if (typeof name === 'string' && SERVER_NAME.test(name)) return name.toLowerCase();
  }
  return undefined;
}

/**
 * The relay of a route that forwards to HTTPS or gRPCS backends with a backend TLS policy (its
 * virtual host's `hostname`, as `*.example.com` or `*`, decides the name it verifies when nothing
 * else does); undefined for other routes. `closed` when the route must answer 503 instead: the
 * policy cannot be served as written, its serverName is no DNS name, or it verifies without a
 * name to verify. Equal settings give the same object, so the same id.
 */
export function compileBackendTlsRelay(
  route: Route,
  hostname: string | undefined,
): BackendTlsRelay | 'closed' | undefined {
  const policy = route.policy.backendTls;
  const protocol = route.policy.backendProtocol;
  if (policy === undefined || route.action.type !== 'forward') return undefined;
  if (!isBackendProtocol(protocol) || !isTlsProtocol(protocol)) return undefined;
  const settings = settingsOf(policy);
  if (settings === 'closed') return 'closed';
  const serverName = serverNameOf(policy, route, hostname);
  if (policy.serverName !== undefined && serverName === undefined) return 'closed';
  if (settings.verify && serverName === undefined) return 'closed';
  const connectMs = route.policy.timeouts?.connectMs;
  // What the Lua data takes for a timeout: up to a day.
  const connectTimeoutMs =
    typeof connectMs === 'number' && Number.isInteger(connectMs) && connectMs > 0 && connectMs <= 86_400_000
      ? connectMs
      : undefined;
  const alpn = protocol === 'GRPCS' ? 'h2' : undefined;
  const key = `${serverName ?? ''}|${alpn ?? ''}|${connectTimeoutMs ?? ''}`;
  let relays = relaysByPolicy.get(policy);
  const known = relays?.get(key);
  if (known !== undefined) return known;
  const unnamed: Omit<BackendTlsRelay, 'id'> = { ...settings };
  if (serverName !== undefined) unnamed.serverName = serverName;
  if (alpn !== undefined) unnamed.alpn = alpn;
  if (connectTimeoutMs !== undefined) unnamed.connectTimeoutMs = connectTimeoutMs;
  const id = createHash('sha256').update(JSON.stringify(unnamed)).digest('hex').slice(0, 20);
  const relay: BackendTlsRelay = Object.freeze({ id, ...unnamed });
  if (relays === undefined) relaysByPolicy.set(policy, (relays = new Map<string, BackendTlsRelay>()));
  relays.set(key, relay);
  return relay;
}

/**
 * The controller ConfigMap keys of client connections and TLS that nginx takes from nginx.conf
 * (use-proxy-protocol, proxy-protocol-header-timeout, ssl-ecdh-curve, ssl-dh-param,
 * upstream-keepalive-time): their catalogue rows and parsers, kept apart from the big key table.
 */
import { createSecureContext } from 'node:tls';
import { checkDnsSubdomain, checkDnsLabel } from '@ingresskit/kube-objects';
import { parseGoDuration } from './go-duration.js';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';

/** The settings these keys make, part of ConfigMapNginxSettings. */
export interface ConnectionKeySettings {
  /** use-proxy-protocol: the HTTP and HTTPS listeners take the PROXY protocol. */
  useProxyProtocol?: boolean;
  /** proxy-protocol-header-timeout: how long the ssl-passthrough proxy waits for the PROXY header. */
  proxyProtocolHeaderTimeoutMs?: number;
  /** ssl-ecdh-curve: curve names separated by colons, or `auto`. */
  sslEcdhCurve?: string;
  /** ssl-dh-param: the `dhparam.pem` of the Secret it names (a DH PARAMETERS PEM). */
  sslDhParamPem?: string;
  /** upstream-keepalive-time: seconds a kept connection to a backend may serve requests. */
  upstreamKeepaliveTimeSeconds?: number;
}

/** How ssl-dh-param finds the `data` of a Secret (base64 values, as the API gives them). */
export type SecretDataLookup = (
  namespace: string,
  name: string,
) => Readonly<Record<string, string>> | undefined;

/** The `data` of Secrets by `namespace/name`. */
export type SecretData = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The key of the DH parameters in the Secret ssl-dh-param names, as ingress-nginx reads it. */
export const DH_PARAM_SECRET_KEY = 'dhparam.pem';

const CURVE_LIST = /^[A-Za-z0-9_-]{1,64}(?::[A-Za-z0-9_-]{1,64}){0,31}$/;
const DH_PARAMETERS_PEM =
  /^\s*-----BEGIN DH PARAMETERS-----\r?\n[A-Za-z0-9+/=\r\n]{100,4096}-----END DH PARAMETERS-----\s*$/;
/** Most seconds a duration key takes: a day, far above any sensible value. */
const MAX_SECONDS = 86_400;

/** The rows of the keys, for the catalogue. */
export const CONNECTION_KEY_ROWS = [
  {
    name: 'use-proxy-protocol',
    applied: 'reload',
    difference:
      'the HTTP and HTTPS listeners take the PROXY protocol (v1 or v2) and refuse a connection without it; the client address is the one it carries when the peer is in proxy-real-ip-cidr, and a PROXY line to port 443 makes the request https (X-Forwarded-Proto, no redirect to HTTPS), as ingress-nginx. With use-forwarded-headers too the client address stays the PROXY one: the X-Forwarded-For of the proxy it names is not followed (forwarded-for-proxy-protocol-header). With --enable-ssl-passthrough the passthrough proxy reads the header (proxy-protocol-header-timeout) and believes it on the same terms (ingress-nginx believes any peer there); a connection without it is closed, where ingress-nginx passes it on with the address of the peer',
  },
  {
    name: 'proxy-protocol-header-timeout',
    applied: 'live',
    difference:
      "a Go duration up to 24h (default 5s): how long the ssl-passthrough proxy waits for a client's PROXY header with use-proxy-protocol",
  },
  {
    name: 'ssl-ecdh-curve',
    applied: 'reload',
    difference:
      'curve names separated by colons (at most 32), each one OpenSSL knows, or "auto" (the default); a name nginx\'s OpenSSL refuses keeps the running nginx.conf',
  },
  {
    name: 'ssl-dh-param',
    applied: 'reload',
    difference: `a Secret NAMESPACE/NAME whose ${DH_PARAM_SECRET_KEY} holds DH PARAMETERS (PEM, at least 2048 bits), written beside nginx.conf; a missing Secret or bad PEM is an error and the last valid value stays`,
  },
  {
    name: 'forwarded-for-proxy-protocol-header',
    unsupported: {
      severity: 'warning',
      reason:
        "with use-proxy-protocol and use-forwarded-headers the client address is the PROXY protocol's (see use-proxy-protocol), so there is no header to name",
    },
  },
  {
    name: 'upstream-keepalive-time',
    applied: 'reload',
    difference: "an nginx time (1h, 30m, 90s; up to 24h); the default is nginx's 1h, as ingress-nginx",
  },
] as const;

/** Seconds of an nginx time (`1h`, `90s`, `1h30m`, `60`) or Go duration; why not, or the seconds. */
function readSeconds(value: string): number | string {
  const seconds = /^[0-9]{1,7}$/.test(value) ? Number(value) : parseGoDuration(value);
  if (seconds === undefined || seconds < 1 || seconds > MAX_SECONDS || !Number.isInteger(seconds))
    return `must be a whole number of seconds from 1s to 24h, such as 1h or 90s`;
  return seconds;
}

/** Checks an ssl-ecdh-curve value; why it is invalid, or undefined. */
export function checkEcdhCurve(value: string): string | undefined {
  if (!CURVE_LIST.test(value))
    return 'must be curve names of A-Z a-z 0-9 _ - separated by colons (at most 32), or "auto"';
  if (value === 'auto') return undefined;
  // The OpenSSL call nginx makes (SSL_CTX_set1_curves_list), one name at a time so that the
  // message names the one it does not know.
  for (const curve of value.split(':')) {
    try {
      createSecureContext({ ecdhCurve: curve });
    } catch {
      return `names "${curve}", which is not a curve OpenSSL knows`;
    }
  }
  return undefined;
}

/** Checks DH parameters in PEM; why they are not usable, or undefined. */
export function checkDhParamPem(pem: string): string | undefined {
  if (!DH_PARAMETERS_PEM.test(pem)) return 'is not a DH PARAMETERS PEM block';
  try {
    // OpenSSL reads them as nginx would, and refuses parameters below 1024 bits.
    createSecureContext({ dhparam: pem });
  } catch (error) {
    return `holds DH parameters OpenSSL refuses (${(error as Error).message})`;
  }
  // OpenSSL 3 at its default security level refuses DH below 2048 bits in a handshake.
  const der = Buffer.from(pem.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
  if (der.length < 256) return 'holds DH parameters of fewer than 2048 bits';
  return undefined;
}

/** Reads ssl-dh-param: the PEM of the Secret it names; why not, or the PEM. */
function readDhParam(value: string, secret: SecretDataLookup): { pem: string } | string {
  const [namespace, name, ...rest] = value.split('/');
  if (
    namespace === undefined ||
    name === undefined ||
    rest.length > 0 ||
    checkDnsLabel(namespace) !== undefined ||
    checkDnsSubdomain(name) !== undefined
  )
    return 'must name a Secret as NAMESPACE/NAME';
  const data = secret(namespace, name);
  if (data === undefined) return `names Secret ${value}, which is not found`;
  const encoded = data[DH_PARAM_SECRET_KEY];
  if (encoded === undefined) return `names Secret ${value}, which has no ${DH_PARAM_SECRET_KEY}`;
  const pem = Buffer.from(encoded, 'base64').toString('utf8');
  const problem = checkDhParamPem(pem);
  if (problem !== undefined) return `names Secret ${value}, whose ${DH_PARAM_SECRET_KEY} ${problem}`;
  return { pem };
}

/** How each key is read into `into`: the reason it is invalid, or undefined. */
function createConnectionKeyParsers(
  secret: SecretDataLookup,
): Readonly<Record<string, (value: string, into: ConnectionKeySettings) => string | undefined>> {
  return {
    'use-proxy-protocol': (value, into) => {
      const on = readBoolean(value);
      if (on === undefined) return BOOLEAN_PROBLEM;
      into.useProxyProtocol = on;
      return undefined;
    },
    'proxy-protocol-header-timeout': (value, into) => {
      const seconds = parseGoDuration(value);
      if (seconds === undefined || seconds <= 0 || seconds > MAX_SECONDS)
        return 'must be a Go duration above 0 and at most 24h, such as 5s or 500ms';
      into.proxyProtocolHeaderTimeoutMs = Math.max(1, Math.round(seconds * 1000));
      return undefined;
    },
    'ssl-ecdh-curve': (value, into) => {
      const problem = checkEcdhCurve(value);
      if (problem === undefined && value !== 'auto') into.sslEcdhCurve = value;
      return problem;
    },
    'ssl-dh-param': (value, into) => {
      const read = readDhParam(value, secret);
      if (typeof read === 'string') return read;
      into.sslDhParamPem = read.pem;
      return undefined;
    },
    'upstream-keepalive-time': (value, into) => {
      const seconds = readSeconds(value);
      if (typeof seconds === 'string') return seconds;
      into.upstreamKeepaliveTimeSeconds = seconds;
      return undefined;
    },
  };
}

/** The connection keys of one parse, with the Secrets they read. */
export interface ConnectionKeyReader {
  /** Whether `name` is one of these keys. */
  has(name: string): boolean;
  /**
   * Applies key `name`: the reason it is invalid, or undefined. With `asBefore` (re-applying the
   * last valid value) its Secrets read as they were when that value was applied, so that a Secret
   * that turned bad keeps its last good content rather than the default.
   */
  apply(name: string, value: string, into: ConnectionKeySettings, asBefore: boolean): string | undefined;
  /** `namespace/name` of every Secret read, found or not, sorted. */
  secretsRead(): string[];
  /** The data of the Secrets whose content was applied: the next parse's `asBefore`. */
  secretsApplied(): SecretData;
}

/** The connection keys' reader for one parse; `previous` is the last parse's secretsApplied. */
export function createConnectionKeyReader(
  secret: SecretDataLookup,
  previous: SecretData,
): ConnectionKeyReader {
  const read = new Set<string>();
  const applied: Record<string, Readonly<Record<string, string>>> = {};
  let asBefore = false;
  let found: [string, Readonly<Record<string, string>>] | undefined;
  const parsers = createConnectionKeyParsers((namespace, name) => {
    const key = `${namespace}/${name}`;
    read.add(key);
    const data = asBefore ? previous[key] : secret(namespace, name);
    found = data === undefined ? undefined : [key, data];
    return data;
  });
  return {
    has: (name) => Object.hasOwn(parsers, name),
    apply(name, value, into, again) {
      asBefore = again;
      found = undefined;
      const reason = parsers[name]!(value, into);
      asBefore = false;
      if (reason === undefined && found !== undefined) applied[found[0]] = found[1];
      return reason;
    },
    secretsRead: () => [...read].sort(),
    secretsApplied: () => applied,
  };
}

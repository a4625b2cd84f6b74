/**
 * ingress-nginx's backend certificate annotations: proxy-ssl-secret (`name` or `namespace/name`,
 * here only of the Ingress's own namespace), proxy-ssl-verify, proxy-ssl-verify-depth,
 * proxy-ssl-protocols, proxy-ssl-ciphers, proxy-ssl-name and proxy-ssl-server-name, with
 * ingress-nginx's defaults. The Secret itself is read by backend-tls-secret.ts.
 */
import { createSecureContext } from 'node:tls';
import type { BackendTlsPolicy } from '@ingresskit/route-model';
import { annotationField } from './annotation-field.js';
import { parseSecretAnnotation, warnWithout } from './auth-annotations.js';
import { checkHost } from './grammar.js';
import {
  type AnnotationParser,
  type AnnotationProblem,
  type IngressAnnotations,
} from './annotation-types.js';
import type { BackendTlsAnnotations, BackendTlsRequest } from './annotation-parts.js';

// ingress-nginx's defaults.
const DEFAULT_PROTOCOLS: BackendTlsPolicy['protocols'] = ['TLSv1.2'];
const DEFAULT_CIPHERS = 'DEFAULT';
const MAX_DEPTH = 100;
// ingress-nginx's proxySSLCiphersRegex, not empty.
const CIPHERS = /^[A-Za-z0-9+:_!-]{1,1024}$/;

/**
 * Whether OpenSSL selects a cipher from `list` as proxy_ssl_ciphers reads it: the TLSv1.2 list
 * (TLSv1.3 suites, named `TLS_...`, are OpenSSL's own whatever it says). One that selects none
 * is refused here, with an Event, rather than by every connection to the backend.
 */
function selectsTls12Cipher(list: string): boolean {
  const tls12 = list
    .split(':')
    .filter((name) => name !== '' && !name.startsWith('TLS_'))
    .join(':');
  if (tls12 === '') return false;
  try {
    createSecureContext({ ciphers: tls12 });
    return true;
  } catch {
    return false;
  }
}

function backendTlsOf(into: IngressAnnotations): BackendTlsAnnotations {
  return (into.backendTlsAnnotations ??= {});
}

function parseOnOff(set: (annotations: BackendTlsAnnotations, on: boolean) => void): AnnotationParser {
  return (value, into) => {
    if (value !== 'on' && value !== 'off') return 'must be "on" or "off"';
    set(backendTlsOf(into), value === 'on');
    return undefined;
  };
}

/** The parsers of the backend certificate annotations. */
export const BACKEND_TLS_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'proxy-ssl-secret': parseSecretAnnotation(backendTlsOf),
  'proxy-ssl-verify': parseOnOff((annotations, on) => (annotations.verify = on)),
  'proxy-ssl-server-name': parseOnOff((annotations, on) => (annotations.sendServerName = on)),
  'proxy-ssl-verify-depth': (value, into) => {
    if (!/^[0-9]{1,3}$/.test(value) || Number(value) > MAX_DEPTH)
      return `must be a whole number up to ${MAX_DEPTH}`;
    // ingress-nginx reads 0 as its default, 1.
    backendTlsOf(into).depth = Number(value) === 0 ? 1 : Number(value);
    return undefined;
  },
  'proxy-ssl-protocols': (value, into) => {
    const protocols = value.split(' ').filter((protocol) => protocol !== '');
    if (
      protocols.length === 0 ||
      !protocols.every((protocol) => protocol === 'TLSv1.2' || protocol === 'TLSv1.3')
    ) {
      return 'must list TLSv1.2 and/or TLSv1.3, separated by spaces';
    }
    backendTlsOf(into).protocols = [...new Set(protocols)].sort();
    return undefined;
  },
  'proxy-ssl-ciphers': (value, into) => {
    if (!CIPHERS.test(value)) return 'must be an OpenSSL cipher list: letters, digits and +:_-!';
    if (!selectsTls12Cipher(value)) return 'must name a TLSv1.2 cipher OpenSSL knows';
    backendTlsOf(into).ciphers = value;
    return undefined;
  },
  'proxy-ssl-name': (value, into) => {
    const reason = checkHost(value);
    if (reason !== undefined || value.startsWith('*')) return 'must be a host name';
    backendTlsOf(into).serverName = value;
    return undefined;
  },
};

/**
 * What backend TLS asks for, or undefined without proxy-ssl-secret (warnings for proxy-ssl-*
 * without it, and for proxy-ssl-secret with a backend protocol that is not TLS).
 */
export function combineBackendTls(
  annotations: BackendTlsAnnotations | undefined,
  backendProtocol: IngressAnnotations['backendProtocol'],
  withPrefix: string,
  problems: AnnotationProblem[],
): BackendTlsRequest | undefined {
  if (annotations === undefined) return undefined;
  if (annotations.secretName === undefined) {
    const set: [string, unknown][] = [
      ['proxy-ssl-verify', annotations.verify],
      ['proxy-ssl-verify-depth', annotations.depth],
      ['proxy-ssl-protocols', annotations.protocols],
      ['proxy-ssl-ciphers', annotations.ciphers],
      ['proxy-ssl-name', annotations.serverName],
      ['proxy-ssl-server-name', annotations.sendServerName],
    ];
    warnWithout(set, 'proxy-ssl-secret', withPrefix, problems);
    return undefined;
  }
  const field = annotationField(`${withPrefix}proxy-ssl-secret`);
  if (backendProtocol !== 'HTTPS' && backendProtocol !== 'GRPCS') {
    problems.push({
      field,
      message: 'annotation "proxy-ssl-secret" has no effect without backend-protocol HTTPS or GRPCS',
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
  const policy: BackendTlsRequest['policy'] = {
    verify: annotations.verify ?? false,
    depth: annotations.depth ?? 1,
    protocols: [...(annotations.protocols ?? DEFAULT_PROTOCOLS)],
    ciphers: annotations.ciphers ?? DEFAULT_CIPHERS,
    sendServerName: annotations.sendServerName ?? false,
  };
  if (annotations.serverName !== undefined) policy.serverName = annotations.serverName;
  const request: BackendTlsRequest = { name: annotations.secretName, policy, field };
  if (annotations.secretNamespace !== undefined) request.namespace = annotations.secretNamespace;
  return request;
}

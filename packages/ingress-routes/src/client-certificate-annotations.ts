/**
 * ingress-nginx's client certificate annotations: auth-tls-secret (`name` or `namespace/name`, here
 * only of the Ingress's own namespace), auth-tls-verify-client, auth-tls-verify-depth,
 * auth-tls-error-page, auth-tls-pass-certificate-to-upstream and auth-tls-match-cn. The CA Secret
 * itself is read by client-certificate-secret.ts.
 */
import { annotationField } from './annotation-field.js';
import { parseSecretAnnotation, warnWithout } from './auth-annotations.js';
import { BOOLEAN_PROBLEM, readBoolean } from './grammar.js';
import {
  type AnnotationParser,
  type AnnotationProblem,
  type IngressAnnotations,
} from './annotation-types.js';
import type { ClientCertificateAnnotations, ClientCertificateRequest } from './annotation-parts.js';

const VERIFY_MODES: ReadonlySet<string> = new Set(['on', 'off', 'optional', 'optional_no_ca']);
/** ingress-nginx's default auth-tls-verify-depth, which 0 also stands for. */
const DEFAULT_DEPTH = 1;
const MAX_DEPTH = 100;
// ingress-nginx's redirectRegex, narrowed to what a redirect can name: an http(s) URL or a path
// (no bare host, no named location).
const ERROR_PAGE =
  /^(?:https?:\/\/[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:\/[A-Za-z0-9._-]+)*\/?|(?:\/[A-Za-z0-9._-]+)+\/?|\/)$/;
const MAX_MATCH_CN = 1024;

function clientCertificateOf(into: IngressAnnotations): ClientCertificateAnnotations {
  return (into.clientCertificate ??= {});
}

/** The parsers of the client certificate annotations. */
export const CLIENT_CERTIFICATE_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'auth-tls-secret': parseSecretAnnotation(clientCertificateOf),
  'auth-tls-verify-client': (value, into) => {
    if (!VERIFY_MODES.has(value)) return 'must be "on", "off", "optional" or "optional_no_ca"';
    clientCertificateOf(into).verify = value as ClientCertificateAnnotations['verify'];
    return undefined;
  },
  'auth-tls-verify-depth': (value, into) => {
    if (!/^[0-9]{1,3}$/.test(value) || Number(value) > MAX_DEPTH)
      return `must be a whole number up to ${MAX_DEPTH}`;
    // ingress-nginx reads 0 as its default.
    clientCertificateOf(into).depth = Number(value) === 0 ? DEFAULT_DEPTH : Number(value);
    return undefined;
  },
  'auth-tls-error-page': (value, into) => {
    if (!ERROR_PAGE.test(value)) return 'must be an http or https URL, or a path starting with "/"';
    clientCertificateOf(into).errorPage = value;
    return undefined;
  },
  'auth-tls-pass-certificate-to-upstream': (value, into) => {
    const on = readBoolean(value);
    if (on === undefined) return BOOLEAN_PROBLEM;
    clientCertificateOf(into).passCertificate = on;
    return undefined;
  },
  'auth-tls-match-cn': (value, into) => {
    // ingress-nginx's CommonNameAnnotationValidator: a regex that starts with CN=.
    if (!value.startsWith('CN=') || value.length > MAX_MATCH_CN) {
      return `must be a regular expression starting with "CN=", at most ${MAX_MATCH_CN} characters`;
    }
    try {
      new RegExp(value, 'u');
    } catch {
      return 'must be a valid regular expression';
    }
    clientCertificateOf(into).matchCn = value;
    return undefined;
  },
};

/**
 * What client certificate authentication asks for, or undefined without auth-tls-secret or with
 * auth-tls-verify-client "off"; warnings for auth-tls-* without auth-tls-secret.
 */
export function combineClientCertificate(
  annotations: ClientCertificateAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
): ClientCertificateRequest | undefined {
  if (annotations === undefined) return undefined;
  if (annotations.secretName === undefined) {
    const set: [string, unknown][] = [
      ['auth-tls-verify-client', annotations.verify],
      ['auth-tls-verify-depth', annotations.depth],
      ['auth-tls-error-page', annotations.errorPage],
      ['auth-tls-pass-certificate-to-upstream', annotations.passCertificate],
      ['auth-tls-match-cn', annotations.matchCn],
    ];
    warnWithout(set, 'auth-tls-secret', withPrefix, problems);
    return undefined;
  }
  // "off": no certificate is asked for, as with ingress-nginx's ssl_verify_client off.
  if (annotations.verify === 'off') return undefined;
  const policy: ClientCertificateRequest['policy'] = {
    verify: annotations.verify ?? 'on',
    depth: annotations.depth ?? DEFAULT_DEPTH,
  };
  if (annotations.errorPage !== undefined) policy.errorPage = annotations.errorPage;
  if (annotations.passCertificate === true) policy.passCertificate = true;
  if (annotations.matchCn !== undefined) policy.subjectPattern = annotations.matchCn;
  const request: ClientCertificateRequest = {
    name: annotations.secretName,
    policy,
    field: annotationField(`${withPrefix}auth-tls-secret`),
  };
  if (annotations.secretNamespace !== undefined) request.namespace = annotations.secretNamespace;
  return request;
}

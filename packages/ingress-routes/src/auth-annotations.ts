/**
 * ingress-nginx's basic and digest authentication annotations: auth-type (basic or digest),
 * auth-secret (`name` or `namespace/name`, here only of the Ingress's own namespace),
 * auth-secret-type (auth-file: an htpasswd or htdigest file in key `auth`; auth-map: a key per
 * user) and auth-realm. The Secret itself is read by basic-auth-secret.ts and digest-auth-secret.ts.
 */
import { checkDnsSubdomain } from '@ingresskit/kube-objects';
import { annotationField } from './annotation-field.js';
import {
  type AnnotationProblem,
  type IngressAnnotations,
  type AnnotationParser,
} from './annotation-types.js';
import type { AuthAnnotations, BasicAuthRequest } from './annotation-parts.js';

// Goes into WWW-Authenticate inside quotes: printable ASCII without `"` and `\`.
const REALM = /^[\x20-\x21\x23-\x5b\x5d-\x7e]{0,256}$/;

/**
 * A Secret an annotation names, `name` or `namespace/name`; undefined when either part is not a
 * DNS subdomain.
 */
export function parseSecretReference(value: string): { namespace?: string; name: string } | undefined {
  const slash = value.indexOf('/');
  const name = slash === -1 ? value : value.slice(slash + 1);
  const namespace = slash === -1 ? undefined : value.slice(0, slash);
  if (
    checkDnsSubdomain(name) !== undefined ||
    (namespace !== undefined && checkDnsSubdomain(namespace) !== undefined)
  ) {
    return undefined;
  }
  return namespace === undefined ? { name } : { namespace, name };
}

/**
 * The parser of an annotation naming a Secret (`name` or `namespace/name`), which sets the
 * `secretName` and `secretNamespace` of `of(into)`.
 */
export function parseSecretAnnotation(
  of: (into: IngressAnnotations) => { secretName?: string; secretNamespace?: string },
): AnnotationParser {
  return (value, into) => {
    const reference = parseSecretReference(value);
    if (reference === undefined) return 'must be a Secret name, or namespace/name';
    const annotations = of(into);
    annotations.secretName = reference.name;
    if (reference.namespace !== undefined) annotations.secretNamespace = reference.namespace;
    return undefined;
  };
}

/** A warning for each annotation of `set` ([name, value]) that is set but does nothing without `without`. */
export function warnWithout(
  set: readonly [string, unknown][],
  without: string,
  withPrefix: string,
  problems: AnnotationProblem[],
): void {
  for (const [name, value] of set) {
    if (value === undefined) continue;
    problems.push({
      field: annotationField(`${withPrefix}${name}`),
      message: `annotation "${name}" has no effect without ${without}`,
      code: 'annotation-without-effect',
      severity: 'warning',
    });
  }
}

function authOf(into: IngressAnnotations): AuthAnnotations {
  return (into.auth ??= {});
}

/** The parsers of the basic and digest authentication annotations. */
export const AUTH_PARSERS: Readonly<Record<string, AnnotationParser>> = {
  'auth-type': (value, into) => {
    if (value !== 'basic' && value !== 'digest') return 'must be "basic" or "digest"';
    authOf(into).type = value;
    return undefined;
  },
  'auth-secret': parseSecretAnnotation(authOf),
  'auth-secret-type': (value, into) => {
    if (value !== 'auth-file' && value !== 'auth-map') return 'must be "auth-file" or "auth-map"';
    authOf(into).secretType = value;
    return undefined;
  },
  'auth-realm': (value, into) => {
    if (!REALM.test(value)) return 'must be at most 256 printable characters without " and \\';
    authOf(into).realm = value;
    return undefined;
  },
};

/**
 * What basic or digest authentication asks for, or undefined without auth-type; an error for auth-type
 * without auth-secret, warnings for auth-* without auth-type.
 */
export function combineAuth(
  auth: AuthAnnotations | undefined,
  withPrefix: string,
  problems: AnnotationProblem[],
): BasicAuthRequest | undefined {
  if (auth === undefined) return undefined;
  const field = (name: string) => annotationField(`${withPrefix}${name}`);
  if (auth.type === undefined) {
    const set: [string, unknown][] = [
      ['auth-secret', auth.secretName],
      ['auth-secret-type', auth.secretType],
      ['auth-realm', auth.realm],
    ];
    warnWithout(set, 'auth-type', withPrefix, problems);
    return undefined;
  }
  if (auth.secretName === undefined) {
    problems.push({
      field: field('auth-type'),
      message: 'annotation "auth-type" needs auth-secret',
      code: 'invalid-annotation',
      severity: 'error',
    });
    return undefined;
  }
  const request: BasicAuthRequest = {
    type: auth.type,
    name: auth.secretName,
    secretType: auth.secretType ?? 'auth-file',
    realm: auth.realm ?? '',
    field: field('auth-secret'),
  };
  if (auth.secretNamespace !== undefined) request.namespace = auth.secretNamespace;
  return request;
}

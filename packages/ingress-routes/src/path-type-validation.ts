/**
 * strict-validate-path-type: with it (ingress-nginx's default), an Exact or Prefix path holds only
 * letters, digits and `. _ - /` after its leading `/`. ingress-nginx's admission webhook denies an
 * Ingress with another; here the path is left out (and the webhook denies the Ingress).
 * Regex-like paths need ImplementationSpecific.
 */

// ingress-nginx's inspector: `^/[[:alnum:]._\-/]*$`, ASCII letters and digits (RE2's [:alnum:]).
const STRICT_PATH = /^\/[A-Za-z0-9._\-/]*$/;

/**
 * Why strict-validate-path-type refuses the path `path` of type `pathType`, or undefined. Only a
 * non-empty string of an Exact or Prefix path is judged (an empty path is served as `/`, as
 * ingress-nginx skips it); anything else is left to the path grammar.
 */
export function checkStrictPathType(path: unknown, pathType: unknown, strict: boolean): string | undefined {
  if (!strict || (pathType !== 'Exact' && pathType !== 'Prefix')) return undefined;
  if (typeof path !== 'string' || path === '' || STRICT_PATH.test(path)) return undefined;
  return `cannot be used with pathType ${pathType}: with the controller ConfigMap's strict-validate-path-type (on by default) an Exact or Prefix path starts with "/" and holds only A-Z a-z 0-9 . _ - / (use ImplementationSpecific, or set the key "false"); the path is not served`;
}

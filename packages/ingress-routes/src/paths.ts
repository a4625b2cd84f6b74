/**
 * Ingress paths as route-model path conditions, and the rewrite-target annotation as the path
 * rewrite of each.
 */
import type { PathMatch, PathRewrite } from '@ingresskit/route-model';

/** Ingress v1 path types. */
export type PathType = 'Exact' | 'Prefix' | 'ImplementationSpecific';

/** Whether `value` is an Ingress v1 path type. */
export function isPathType(value: unknown): value is PathType {
  return value === 'Exact' || value === 'Prefix' || value === 'ImplementationSpecific';
}

/** Whether a path of this type is a regular expression: ImplementationSpecific with use-regex. */
export function isRegexPath(pathType: PathType, useRegex: boolean): boolean {
  // Exact and Prefix stay literal even with use-regex: their meaning is fixed by the Ingress spec.
  return pathType === 'ImplementationSpecific' && useRegex;
}

/**
 * The condition of a validated path. Prefix matches element-wise (`/foo` serves `/foo` and
 * `/foo/bar`, never `/foobar`). ImplementationSpecific does too: ingress-nginx's store turns it into
 * Prefix (`SetDefaultNGINXPathType`). A regex path is anchored at the start and case-insensitive,
 * as ingress-nginx's `location ~*` is.
 */
export function pathMatchOf(path: string, pathType: PathType, useRegex: boolean): PathMatch {
  if (isRegexPath(pathType, useRegex))
    return { type: 'RegularExpression', value: `^${path}`, ignoreCase: true };
  if (pathType === 'Exact') return { type: 'Exact', value: path };
  return { type: 'PathPrefix', value: path };
}

/**
 * The rewrite of a route with condition `match` for rewrite-target `target`: a regex route
 * substitutes what its regex matched (captures `$1`-`$9` allowed); an Exact route replaces the
 * whole path; a prefix route replaces the matched prefix (`/api` with target `/` turns `/api/x`
 * into `/x`). A string is why the target cannot apply: capture references on a literal path.
 */
export function rewriteOf(match: PathMatch, target: string): PathRewrite | string {
  if (match.type === 'RegularExpression') {
    return {
      type: 'RegexReplace',
      pattern: match.value,
      replacement: target,
      ignoreCase: match.ignoreCase === true,
    };
  }
  if (target.includes('$')) {
    return `rewrite-target ${target} uses capture references, which only a regex path has (ImplementationSpecific with use-regex); the path is not served`;
  }
  return match.type === 'Exact'
    ? { type: 'ReplaceFullPath', value: target }
    : { type: 'ReplacePrefixMatch', value: target };
}

/**
 * Path changes → the path change entries the Lua router applies: a route's rewrite, and the path
 * of a redirect. A path or pattern that could not be applied as written makes the route answer 500.
 */
import { normalizePrefix, type PathModifier, type Route } from '@ingresskit/route-model';
import type { PathChangeEntry } from './data-entries.js';

/** What compiling reports: a fatal error, or a warning, by field. */
export interface PathChangeIssues {
  error(field: string, message: string, value?: unknown): undefined;
  warn(field: string, message: string, value?: unknown): void;
}

// eslint-disable-next-line no-control-regex -- a path or replacement with these could split a request
const CONTROL = /[\u0000-\u001f\u007f]/;

function isPath(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith('/') && value.length <= 8192 && !CONTROL.test(value);
}

function prefixOf(route: Route): string {
  return route.match.path.type === 'PathPrefix' ? normalizePrefix(route.match.path.value) : '/';
}

/** Compiles a path modifier of `route` at `field`; undefined after an error reported through `out`. */
export function compilePathModifier(
  modifier: PathModifier,
  route: Route,
  field: string,
  out: PathChangeIssues,
): Extract<PathChangeEntry, { type: 'full' | 'prefix' }> | undefined {
  if (modifier.type === 'ReplaceFullPath') {
    if (!isPath(modifier.value))
      return out.error(
        `${field}.value`,
        'must be a path starting with "/" without control characters',
        modifier.value,
      );
    return { type: 'full', value: modifier.value };
  }
  if (modifier.type === 'ReplacePrefixMatch') {
    if (!isPath(modifier.value))
      return out.error(
        `${field}.value`,
        'must be a path starting with "/" without control characters',
        modifier.value,
      );
    if (route.match.path.type !== 'PathPrefix') {
      out.warn(
        `${field}.type`,
        'ReplacePrefixMatch needs a PathPrefix route; the whole path counts as unmatched',
        modifier.type,
      );
    }
    // route-model's modifyPath: the matched prefix (not `/`) is cut off and the value put first.
    const prefix = prefixOf(route);
    const base = normalizePrefix(modifier.value);
    return { type: 'prefix', strip: prefix === '/' ? 0 : prefix.length, value: base === '/' ? '' : base };
  }
  return out.error(`${field}.type`, 'is not a path modifier', (modifier as { type?: unknown }).type);
}

/** `$1`–`$9` become `${1}`–`${9}` (so `$10` stays `$1` then `0`); every other `$` is literal. */
function toSubstitutionTemplate(replacement: string): string {
  return replacement.replace(/\$([1-9])?/g, (_, digit: string | undefined) =>
    digit === undefined ? '$$' : `\${${digit}}`,
  );
}

/** Compiles `policy.rewrite` (which must be set); undefined after an error reported through `out`. */
export function compileRewrite(route: Route, out: PathChangeIssues): PathChangeEntry | undefined {
  const rewrite = route.policy.rewrite!;
  if (rewrite.type === 'RegexReplace') {
    if (typeof rewrite.pattern !== 'string' || rewrite.pattern === '') {
      return out.error('policy.rewrite.pattern', 'must be a non-empty pattern', rewrite.pattern);
    }
    if (typeof rewrite.replacement !== 'string' || CONTROL.test(rewrite.replacement)) {
      return out.error(
        'policy.rewrite.replacement',
        'must be text without control characters',
        rewrite.replacement,
      );
    }
    return {
      type: 'regex',
      pattern: rewrite.pattern,
      replacement: toSubstitutionTemplate(rewrite.replacement),
    };
  }
  return compilePathModifier(rewrite, route, 'policy.rewrite', out);
}

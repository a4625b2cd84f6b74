/**
 * Compiling a policy value once for every route that has it. The routes of an Ingress share their
 * policy values by reference (route-model objects are never changed once made), so a value
 * compiled for one route is the value for all of them: a 256-network allow-list is parsed once,
 * not once per path. The issues compiling reported are kept with the result and reported again to
 * each route, whose problems must still name them.
 */
import type { PolicyIssues } from './policy-issues.js';

type Issue = ['error' | 'strict' | 'warn', string, string, unknown];

/** A cache of one compile step, by the route-model value it read. */
export type CompileCache<T> = WeakMap<object, { value: T; issues: Issue[] }>;

/** An empty cache; entries go with the route-model values they were made from. */
export function createCompileCache<T>(): CompileCache<T> {
  return new WeakMap();
}

/**
 * `compile(out)`'s result for `source`, compiled the first time only; the issues it reported are
 * reported to `out` every time. The result is shared: callers must not change it.
 */
export function compileOnce<T>(
  cache: CompileCache<T>,
  source: object,
  out: PolicyIssues,
  compile: (out: PolicyIssues) => T,
): T {
  let hit = cache.get(source);
  if (hit === undefined) {
    const issues: Issue[] = [];
    const recorder: PolicyIssues = {
      error: (field, message, value) => {
        issues.push(['error', field, message, value]);
        return undefined;
      },
      strict: (field, message, value) => void issues.push(['strict', field, message, value]),
      warn: (field, message, value) => void issues.push(['warn', field, message, value]),
    };
    hit = { value: compile(recorder), issues };
    cache.set(source, hit);
  }
  for (const [kind, field, message, value] of hit.issues) out[kind](field, message, value);
  return hit.value;
}

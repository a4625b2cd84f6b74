/**
 * `--max-regex-matches-per-request` as the route table's host limit. nginx's router runs at most
 * that many regex matches for one request, each bounded by lua_regex_match_limit steps, so that
 * no tenant's regexes can hold the workers every tenant shares (1,000 regex paths tried one by
 * one once cost half a second per request). A host whose routes could need more (nginx-template's
 * measureRegexWork: a match per group of regex paths and per regex condition, and the chosen
 * route's own) would lose routes silently at that bound; instead its oldest sources are served up
 * to it, and the one that would pass it is left out of the host with a problem naming the host.
 */
import { measureRegexWork } from '@ingresskit/nginx-template';
import type { HostLimit } from '@ingresskit/route-model';

/** The host limit of at most `maxMatches` regex matches per request. */
export function createRegexBudget(maxMatches: number): HostLimit {
  return (virtualHost) => {
    const work = measureRegexWork(virtualHost);
    const needed = work.routing + work.chosen;
    if (needed <= maxMatches) return undefined;
    return (
      `its regex paths and conditions would need up to ${needed} regex matches per request ` +
      `(${work.routing} to choose a route, ${work.chosen} for the chosen one), more than the ${maxMatches} ` +
      'this controller runs (--max-regex-matches-per-request; regex paths without other conditions share one match per group)'
    );
  };
}

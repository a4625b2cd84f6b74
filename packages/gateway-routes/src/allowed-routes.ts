/**
 * A listener's `allowedRoutes` → which namespaces and which route kinds may attach to it. What
 * cannot be read is logged and allows nothing, so a typo never opens a listener to everyone.
 */
import { describeValue } from '@ingresskit/route-model';
import { arrayOr, objectOr } from './grammar.js';
import { parseLabelSelector } from './label-selector.js';
import { GATEWAY_GROUP } from './reference-grants.js';
import type { RouteGroupKind } from './types.js';
import type { GatewayApiProblemLog } from './problem-codes.js';

/** The route kind this package serves. */
export const HTTP_ROUTE_KIND = 'HTTPRoute';

/** Which namespaces may attach routes to a listener. */
export type NamespacePolicy =
  | { from: 'Same' }
  | { from: 'All' }
  | { from: 'Selector'; matches: (labels: Readonly<Record<string, string>>) => boolean; key: string }
  | { from: 'None' };

/** Reads `allowedRoutes.namespaces` at `field` (default Same); `problem` says why no route may attach. */
export function readNamespaces(
  raw: unknown,
  field: string,
  log: GatewayApiProblemLog,
): { policy: NamespacePolicy; problem?: string } {
  const namespaces = objectOr<{ from: unknown; selector: unknown }>(raw);
  const from = namespaces.from ?? 'Same';
  switch (from) {
    case 'Same':
    case 'All':
      return { policy: { from: from as 'Same' | 'All' } };
    case 'Selector': {
      const parsed = parseLabelSelector(namespaces.selector);
      if (!parsed.ok) {
        log.error(
          'invalid-allowed-routes',
          `${field}.selector`,
          `${parsed.message}; no route may attach`,
          namespaces.selector,
        );
        return { policy: { from: 'None' }, problem: `${field}.selector: ${parsed.message}` };
      }
      return {
        policy: { from: 'Selector', matches: parsed.matches, key: describeValue(namespaces.selector) ?? '' },
      };
    }
    default:
      log.error(
        'invalid-allowed-routes',
        `${field}.from`,
        'must be All, Same or Selector; no route may attach',
        from,
      );
      return { policy: { from: 'None' }, problem: `${field}.from: unsupported value` };
  }
}

/** Reads `allowedRoutes.kinds` at `field` (default HTTPRoute); `invalid` names the kinds not supported. */
export function readKinds(
  raw: unknown,
  field: string,
  log: GatewayApiProblemLog,
): { kinds: RouteGroupKind[]; invalid: string[] } {
  if (raw === undefined || raw === null)
    return { kinds: [{ group: GATEWAY_GROUP, kind: HTTP_ROUTE_KIND }], invalid: [] };
  const kinds: RouteGroupKind[] = [];
  const invalid: string[] = [];
  for (const [index, entry] of arrayOr(raw).entries()) {
    const kind = objectOr<{ group: unknown; kind: unknown }>(entry);
    const group = kind.group ?? GATEWAY_GROUP;
    if (group === GATEWAY_GROUP && kind.kind === HTTP_ROUTE_KIND) {
      if (!kinds.some((known) => known.kind === HTTP_ROUTE_KIND))
        kinds.push({ group, kind: HTTP_ROUTE_KIND });
    } else {
      const name = `${describeValue(group)}/${describeValue(kind.kind)}`;
      invalid.push(name);
      log.error(
        'unsupported-route-kind',
        `${field}[${index}]`,
        'is not a supported route kind (only gateway.networking.k8s.io/HTTPRoute)',
        name,
      );
    }
  }
  return { kinds, invalid };
}

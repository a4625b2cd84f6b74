/** ReferenceGrant: whether an object may refer to an object in another namespace. */
import { GATEWAY_API_GROUP } from '@ingresskit/kube-objects';
import { arrayOr, objectOr } from './grammar.js';
import type { ReferenceGrantLike } from './types.js';

/** The Gateway API group (kube-objects' `GATEWAY_API_GROUP`), under this package's public name. */
export const GATEWAY_GROUP = GATEWAY_API_GROUP;

/** The object that refers: its group, kind and namespace. */
export interface ReferenceFrom {
  group: string;
  kind: string;
  namespace: string;
}

/** The object referred to: its group (`''` for core), kind, namespace and name. */
export interface ReferenceTo {
  group: string;
  kind: string;
  namespace: string;
  name: string;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Whether a reference from `from` to `to` is allowed: always within one namespace; across
 * namespaces only when some ReferenceGrant of `grants` (those in `to.namespace`) lists `from` in
 * its `from` and `to` (all names of its kind, or exactly `to.name`) in its `to`.
 */
export function isReferenceAllowed(
  from: ReferenceFrom,
  to: ReferenceTo,
  grants: readonly ReferenceGrantLike[],
): boolean {
  if (from.namespace === to.namespace) return true;
  return grants.some((grant) => {
    const metadata = objectOr<{ namespace: unknown }>(objectOr<{ metadata: unknown }>(grant).metadata);
    // A grant speaks only for its own namespace, whatever list the caller passed.
    if (metadata.namespace !== to.namespace) return false;
    const spec = objectOr<{ from: unknown; to: unknown }>(objectOr<{ spec: unknown }>(grant).spec);
    const fromMatches = arrayOr(spec.from).some((raw) => {
      const entry = objectOr<{ group: unknown; kind: unknown; namespace: unknown }>(raw);
      return (
        text(entry.group) === from.group && entry.kind === from.kind && entry.namespace === from.namespace
      );
    });
    if (!fromMatches) return false;
    return arrayOr(spec.to).some((raw) => {
      const entry = objectOr<{ group: unknown; kind: unknown; name: unknown }>(raw);
      if (text(entry.group) !== to.group || entry.kind !== to.kind) return false;
      return entry.name === undefined || entry.name === null || entry.name === '' || entry.name === to.name;
    });
  });
}

/**
 * An HTTPRoute's parentRefs → the Gateway references this controller answers for; a parentRef to
 * anything else (a mesh Service, another kind) is left to the controller that owns it.
 */
import { isPortNumber, objectOr, optionalString } from './grammar.js';
import { GATEWAY_GROUP } from './reference-grants.js';
import type { ParentReference } from './types.js';

/** Reads one raw parentRef, defaulting its namespace to the route's; undefined when it names no Gateway. */
export function readParentRef(raw: unknown, routeNamespace: string): ParentReference | undefined {
  const ref = objectOr<{
    group: unknown;
    kind: unknown;
    namespace: unknown;
    name: unknown;
    sectionName: unknown;
    port: unknown;
  }>(raw);
  const group = ref.group ?? GATEWAY_GROUP;
  const kind = ref.kind ?? 'Gateway';
  // A parentRef to anything else (a Service of a mesh, another kind) belongs to another controller.
  if (group !== GATEWAY_GROUP || kind !== 'Gateway' || typeof ref.name !== 'string') return undefined;
  const parent: ParentReference = {
    group,
    kind,
    namespace: optionalString(ref.namespace) ?? routeNamespace,
    name: ref.name,
  };
  const sectionName = optionalString(ref.sectionName);
  if (sectionName !== undefined) parent.sectionName = sectionName;
  if (isPortNumber(ref.port)) parent.port = ref.port;
  return parent;
}

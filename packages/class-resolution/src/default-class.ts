/** The default IngressClass, picked as the API server's DefaultIngressClass admission picks it. */
import { DEFAULT_INGRESS_CLASS_ANNOTATION } from './annotations.js';
import { compareNewestFirst, parseTimestamp, type Instant } from './timestamp.js';
import type { IngressClassLike } from './types.js';

/** True when `ingressClass` carries `ingressclass.kubernetes.io/is-default-class: "true"` (exactly that string). */
export function isDefaultIngressClass(ingressClass: IngressClassLike): boolean {
  return ingressClass.metadata?.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] === 'true';
}

/**
 * The IngressClass the API server's DefaultIngressClass admission would assign: among classes marked
 * default, the newest creationTimestamp wins, ties go to the lower name, and a missing or invalid
 * timestamp counts as the oldest; undefined when no class is marked default.
 */
export function pickDefaultIngressClass<T extends IngressClassLike>(
  ingressClasses: readonly T[],
): T | undefined {
  let best: { ingressClass: T; name: string; created: Instant | undefined } | undefined;
  for (const ingressClass of ingressClasses) {
    const name = ingressClass.metadata?.name;
    // A class without a name cannot be referenced by spec.ingressClassName, so it cannot be the default.
    if (typeof name !== 'string' || name === '' || !isDefaultIngressClass(ingressClass)) continue;
    const created = parseTimestamp(ingressClass.metadata?.creationTimestamp);
    if (best === undefined) {
      best = { ingressClass, name, created };
      continue;
    }
    const order = compareNewestFirst(created, best.created);
    if (order < 0 || (order === 0 && name < best.name)) best = { ingressClass, name, created };
  }
  return best?.ingressClass;
}

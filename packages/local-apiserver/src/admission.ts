/**
 * Admission on the local server: an Ingress created without a class gets the default one, as
 * kube-apiserver's DefaultIngressClass plugin gives it.
 */
import { DEFAULT_INGRESS_CLASS_ANNOTATION, INGRESS_CLASS_ANNOTATION } from '@ingresskit/kube-objects';
import { isPlainObject, type KubeObject } from './objects.js';

/**
 * The DefaultIngressClass admission plugin, run only on Ingress CREATE: when the Ingress names no
 * class (neither `spec.ingressClassName` nor the legacy annotation), it gets the newest IngressClass
 * annotated as default (ties: the lower name). Returns a new object, or `ingress` unchanged.
 */
export function admitDefaultIngressClass(
  ingress: KubeObject,
  ingressClasses: Iterable<KubeObject>,
): KubeObject {
  const spec = isPlainObject(ingress.spec) ? ingress.spec : {};
  if (typeof spec.ingressClassName === 'string' && spec.ingressClassName !== '') return ingress;
  if (ingress.metadata.annotations?.[INGRESS_CLASS_ANNOTATION] !== undefined) return ingress;
  let chosen: KubeObject | undefined;
  for (const candidate of ingressClasses) {
    if (candidate.metadata.annotations?.[DEFAULT_INGRESS_CLASS_ANNOTATION] !== 'true') continue;
    if (chosen === undefined || isPreferred(candidate, chosen)) chosen = candidate;
  }
  if (chosen?.metadata.name === undefined) return ingress;
  return { ...ingress, spec: { ...spec, ingressClassName: chosen.metadata.name } };
}

function isPreferred(candidate: KubeObject, current: KubeObject): boolean {
  const a = Date.parse(candidate.metadata.creationTimestamp ?? '');
  const b = Date.parse(current.metadata.creationTimestamp ?? '');
  if (a !== b) return a > b;
  return (candidate.metadata.name ?? '') < (current.metadata.name ?? '');
}

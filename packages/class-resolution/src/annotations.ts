// Spelled once in kube-objects; re-exported because they were this package's public names.
export { DEFAULT_INGRESS_CLASS_ANNOTATION, INGRESS_CLASS_ANNOTATION } from '@ingresskit/kube-objects/pure';

/** The class name reported for Ingresses owned only because `watchIngressWithoutClass` is on. */
export const WITHOUT_CLASS_NAME = '_';

/** The legacy Ingress annotation that names a class directly (deprecated since Kubernetes 1.18). */
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** The IngressClass annotation that marks the cluster default; only the exact value `"true"` counts. */
export const DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** The class name reported for Ingresses owned only because `watchIngressWithoutClass` is on. */
export const WITHOUT_CLASS_NAME = '_';

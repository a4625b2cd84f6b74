/**
 * Label, annotation, type and API group names that Kubernetes (and the controllers IngressKit
 * stays compatible with) define, spelled once: every package that reads or writes one imports it
 * from here.
 */

/** The legacy Ingress annotation that names a class directly (deprecated since Kubernetes 1.18, still honoured). */
export const INGRESS_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';

/** The IngressClass annotation that marks the cluster default; only the exact value `"true"` counts. */
export const DEFAULT_INGRESS_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** The EndpointSlice label naming the Service (in the slice's namespace) the slice belongs to. */
export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** The Secret type of a certificate and its key (`tls.crt`, `tls.key`). */
export const TLS_SECRET_TYPE = 'kubernetes.io/tls';

/** The API group of Ingress and IngressClass. */
export const NETWORKING_API_GROUP = 'networking.k8s.io';

/** The API group of the Gateway API kinds (GatewayClass, Gateway, HTTPRoute, ReferenceGrant). */
export const GATEWAY_API_GROUP = 'gateway.networking.k8s.io';

/** The annotation on every Gateway API CRD that names the release bundle it came from. */
export const BUNDLE_VERSION_ANNOTATION = 'gateway.networking.k8s.io/bundle-version';

/** ingress-nginx's annotation prefix, which IngressKit reads by default so existing manifests keep working. */
export const INGRESS_NGINX_ANNOTATION_PREFIX = 'nginx.ingress.kubernetes.io';

/** The API group of Tengine-Ingress's IngressCheckSum and SecretCheckSum custom resources. */
export const TENGINE_API_GROUP = 'tengine.taobao.org';

/**
 * The few fields class resolution reads, typed structurally so callers can pass
 * `@kubernetes/client-node` models (timestamps as `Date`) or plain JSON (timestamps as strings).
 *
 * Each type also lists, as `unknown`, a field real objects always carry (`rules`, `controller`, ...):
 * TypeScript rejects a value sharing no property with an all-optional type ("weak type"), so without
 * them a plain `{ spec: { rules } }` Ingress with no class could not be passed.
 */

/** A creationTimestamp: a `Date` in client-node models, an RFC 3339 string in plain JSON. */
export type Timestamp = Date | string;

/** The metadata fields read here; client-node's `V1ObjectMeta` and plain JSON both fit. */
export interface ObjectMetaLike {
  readonly name?: string | null | undefined;
  readonly namespace?: string | null | undefined;
  readonly annotations?: { readonly [key: string]: string } | null | undefined;
  readonly creationTimestamp?: Timestamp | null | undefined;
  readonly uid?: unknown;
  readonly labels?: unknown;
}

/** An Ingress as far as class resolution is concerned; `V1Ingress` and plain JSON both fit. */
export interface IngressLike {
  readonly metadata?: ObjectMetaLike | null | undefined;
  readonly spec?:
    | {
        readonly ingressClassName?: string | null | undefined;
        readonly rules?: unknown;
        readonly defaultBackend?: unknown;
        readonly tls?: unknown;
      }
    | null
    | undefined;
}

/** An IngressClass as far as class resolution is concerned; `V1IngressClass` and plain JSON both fit. */
export interface IngressClassLike {
  readonly metadata?: ObjectMetaLike | null | undefined;
  readonly spec?:
    { readonly controller?: string | null | undefined; readonly parameters?: unknown } | null | undefined;
}

/** A Gateway API GatewayClass as far as ownership is concerned (plain JSON or a typed object). */
export interface GatewayClassLike {
  readonly metadata?: ObjectMetaLike | null | undefined;
  readonly spec?:
    | {
        readonly controllerName?: string | null | undefined;
        readonly parametersRef?: unknown;
        readonly description?: unknown;
      }
    | null
    | undefined;
}

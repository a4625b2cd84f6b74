/**
 * The shapes every reader of the controller ConfigMap shares: a key's catalogue row and a problem
 * said on the ConfigMap. A leaf, so the key readers and the parser that composes them need not
 * import each other.
 */

/** One key of ingress-nginx's ConfigMap. */
export interface IngressNginxConfigKey {
  name: string;
  /** How a key we apply takes effect: re-translation (live) or a new nginx.conf (reload). */
  applied?: 'live' | 'reload';
  /** For a key we apply differently from ingress-nginx: how. */
  difference?: string;
  /** For a key we do not apply: why, and how loudly it is reported. */
  unsupported?: { severity: 'error' | 'warning'; reason: string };
  /** Values (compared as saysValue does) with which not applying the key is what ingress-nginx does. */
  sameAs?: readonly string[];
}

/** A key that could not be applied, as said on the ConfigMap. */
export interface ConfigMapProblem {
  /** `data["key"]`. */
  field: string;
  message: string;
  severity: 'error' | 'warning';
  value?: string;
}

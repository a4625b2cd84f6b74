/** How an owned Ingress was matched, in the order the rules are tried. */
export type OwnedVia = 'ingressClassName' | 'annotation' | 'default-class' | 'without-class';

/**
 * Why an Ingress is not ours:
 * - `class-name-invalid`: spec.ingressClassName is empty or not a valid IngressClass name, so no class can match.
 * - `class-not-found`: spec.ingressClassName names an IngressClass that does not exist (deleted, or not created yet).
 * - `class-other-controller`: spec.ingressClassName names an IngressClass of another controller.
 * - `annotation-empty`: no spec.ingressClassName, and the legacy annotation is present but empty.
 * - `annotation-other-class`: no spec.ingressClassName, and the legacy annotation names another class.
 * - `no-class-no-default`: no class at all, and the cluster has no default IngressClass.
 * - `default-class-other-controller`: no class at all, and the cluster default IngressClass is another controller's.
 * - `default-class-not-honored`: no class at all; the default IngressClass is ours but `honorDefaultClass` is off.
 */
export type NotOwnedReason =
  | 'class-name-invalid'
  | 'class-not-found'
  | 'class-other-controller'
  | 'annotation-empty'
  | 'annotation-other-class'
  | 'no-class-no-default'
  | 'default-class-other-controller'
  | 'default-class-not-honored';

/** This controller serves the Ingress. */
export interface OwnedDecision {
  readonly owned: true;
  /** The class it is served as: an IngressClass name, the annotation value, or `_` for `without-class`. */
  readonly className: string;
  readonly via: OwnedVia;
  /** One sentence saying why it is ours, without naming the Ingress. */
  readonly message: string;
  /** One sentence about a likely conflict, e.g. another controller that may serve it too. */
  readonly warning?: string;
}

/** This controller ignores the Ingress; an expected outcome, not an error. */
export interface NotOwnedDecision {
  readonly owned: false;
  readonly reason: NotOwnedReason;
  /** One sentence saying why it is not ours, without naming the Ingress. */
  readonly message: string;
  /** One sentence with the concrete change that would make it ours. */
  readonly hint: string;
  /** The class involved (named by the Ingress, or the cluster default), when there is one. */
  readonly className?: string;
  /** The controller that owns `className`, when that class exists and is not ours. */
  readonly controller?: string;
}

/** The outcome of class resolution for one Ingress. Decisions are frozen and may be shared between Ingresses. */
export type ClassDecision = OwnedDecision | NotOwnedDecision;

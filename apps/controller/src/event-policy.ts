/** Which Ingresses the controller ignores are worth a Kubernetes Event on the Ingress itself. */
import type { NotOwnedReason } from '@ingresskit/class-resolution';

// A table over every reason, so a reason added to class-resolution cannot be forgotten here.
const reportedIgnoreReasons: Readonly<Record<NotOwnedReason, boolean>> = {
  // The named IngressClass does not exist: a typo, or the class is not created yet.
  'class-not-found': true,
  // A class is asked for, but no class can ever match it.
  'class-name-invalid': true,
  'annotation-empty': true,
  // No controller serves the Ingress at all.
  'no-class-no-default': true,
  // The cluster default class is ours, but --honor-default-class is off.
  'default-class-not-honored': true,
  // Another controller's: spec.ingressClassName, the legacy annotation (which controllers that
  // predate IngressClass still use) or the cluster default names a class that is not ours.
  'class-other-controller': false,
  'annotation-other-class': false,
  'default-class-other-controller': false,
};

/**
 * Whether an Ingress ignored for `reason` gets an `Ignored` Warning Event. True only where the
 * Ingress may have been meant for this controller, or is served by no controller at all: its class
 * does not exist (`class-not-found`), can never match (`class-name-invalid`, `annotation-empty`),
 * there is no class and no default (`no-class-no-default`), or the default class is ours but not
 * honoured (`default-class-not-honored`). False for the Ingresses of another controller
 * (`class-other-controller`, `annotation-other-class`, `default-class-other-controller`): in a
 * cluster with several controllers, Events there are noise on other teams' objects, and
 * ingress-nginx writes none for Ingresses it does not own. The `ingresskit_ignored_ingresses`
 * metric, `/explain` and `ingresskit explain` still cover every reason.
 */
export function isIgnoreReasonReported(reason: NotOwnedReason): boolean {
  return reportedIgnoreReasons[reason];
}

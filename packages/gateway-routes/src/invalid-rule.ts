/** A rule that cannot be served as written: thrown inside the translation of one rule. */
import type { RouteMatch } from '@ingresskit/route-model';

/** A rule left out: thrown inside the translation of one rule, caught by its caller. */
export class InvalidRule extends Error {
  /** The rule's matches, when they were valid and only what the rule does is not. */
  matches: RouteMatch[] | undefined;

  constructor(
    readonly field: string,
    message: string,
    readonly value?: unknown,
  ) {
    super(message);
  }
}

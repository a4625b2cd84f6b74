/** kube-objects' error classes. */

/** A label or field selector that does not parse; the message names the offending text. */
export class SelectorSyntaxError extends Error {
  override readonly name = 'SelectorSyntaxError';
  readonly code = 'ERR_SELECTOR_SYNTAX' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

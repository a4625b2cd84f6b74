/** Errors of @ingresskit/nginx-template. Bad user input never throws; these are for callers. */

/** A render option (a port, a path, a size) is invalid; the operator's configuration must change. */
export class InvalidRenderOptionsError extends Error {
  override readonly name = 'InvalidRenderOptionsError';
  readonly code = 'INVALID_RENDER_OPTIONS' as const;
  /** The option at fault, e.g. `httpPort`. */
  readonly option: string;

  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super(`render option ${option} ${message}`, options);
    this.option = option;
  }
}

/**
 * A value reached the template that cannot be quoted safely. The model's grammars make this
 * impossible for output of buildConfiguration, so it means a hand-made or altered model.
 */
export class UnsafeValueError extends Error {
  override readonly name = 'UnsafeValueError';
  readonly code = 'UNSAFE_VALUE' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

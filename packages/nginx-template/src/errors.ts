/** Errors of @ingresskit/nginx-template. Bad user input never throws; these are for callers. */

/** An option (a port, a path, a size) is invalid; the operator's configuration must change. */
export class InvalidRenderOptionsError extends Error {
  override readonly name = 'InvalidRenderOptionsError';
  readonly code = 'ERR_INVALID_RENDER_OPTIONS' as const;
  /** The option at fault, e.g. `controlSocketPath`. */
  readonly option: string;

  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super(`option ${option} ${message}`, options);
    this.option = option;
  }
}

/**
 * A value reached the template that is not what buildConfiguration makes (a hand-made or altered
 * Configuration). Nothing a route table holds can cause it: user text never reaches nginx.conf.
 */
export class UnsafeValueError extends Error {
  override readonly name = 'UnsafeValueError';
  readonly code = 'ERR_UNSAFE_VALUE' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

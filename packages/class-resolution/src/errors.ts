/** A class-resolution config that cannot work, e.g. an IngressClass name given as `controllerClass`. */
export class InvalidClassResolutionConfigError extends Error {
  override readonly name = 'InvalidClassResolutionConfigError';
  readonly code = 'ERR_INVALID_CLASS_RESOLUTION_CONFIG' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A class-resolution config that cannot work, e.g. an IngressClass name given as `controllerClass`. */
export class InvalidClassResolutionConfigError extends Error {
  override readonly name = 'InvalidClassResolutionConfigError';
  readonly code = 'INVALID_CLASS_RESOLUTION_CONFIG';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

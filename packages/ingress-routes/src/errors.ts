/** Errors of @ingresskit/ingress-routes. Bad Ingresses never throw; these are for callers' own input. */

/** A Service reference given by the caller (e.g. `--default-backend-service`) cannot name a Service port. */
export class InvalidServiceReferenceError extends Error {
  override readonly name = 'InvalidServiceReferenceError';
  readonly code = 'ERR_INVALID_SERVICE_REFERENCE' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Options that cannot work together, e.g. a renew deadline longer than the lease duration. */
export class InvalidStatusSyncOptionsError extends Error {
  override readonly name = 'InvalidStatusSyncOptionsError';
  readonly code = 'ERR_INVALID_STATUS_SYNC_OPTIONS' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A Lease request failed for a reason other than losing a race (409), e.g. the API server is down. */
export class LeaseRequestError extends Error {
  override readonly name = 'LeaseRequestError';
  readonly code = 'ERR_LEASE_REQUEST_FAILED' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A request took longer than allowed; its late result, if any, is ignored. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  readonly code = 'ERR_REQUEST_TIMEOUT' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The addresses to publish could not be determined (publish service missing, API error, no source). */
export class AddressResolutionError extends Error {
  override readonly name = 'AddressResolutionError';
  readonly code = 'ERR_ADDRESS_RESOLUTION_FAILED' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Writing one Ingress status failed (API error, or conflicts on every retry). */
export class StatusWriteError extends Error {
  override readonly name = 'StatusWriteError';
  readonly code = 'ERR_STATUS_WRITE_FAILED' as const;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Options that cannot work together, e.g. a renew deadline longer than the lease duration. */
export class InvalidStatusSyncOptionsError extends Error {
  override readonly name = 'InvalidStatusSyncOptionsError';
  readonly code = 'INVALID_STATUS_SYNC_OPTIONS';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A Lease request failed for a reason other than losing a race (409), e.g. the API server is down. */
export class LeaseRequestError extends Error {
  override readonly name = 'LeaseRequestError';
  readonly code = 'LEASE_REQUEST_FAILED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** A request took longer than allowed; its late result, if any, is ignored. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  readonly code = 'REQUEST_TIMEOUT';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The addresses to publish could not be determined (publish service missing, API error, no source). */
export class AddressResolutionError extends Error {
  override readonly name = 'AddressResolutionError';
  readonly code = 'ADDRESS_RESOLUTION_FAILED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** Writing one Ingress status failed (API error, or conflicts on every retry). */
export class StatusWriteError extends Error {
  override readonly name = 'StatusWriteError';
  readonly code = 'STATUS_WRITE_FAILED';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

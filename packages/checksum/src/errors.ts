/** Thrown when a caller passes something no checksum can be built from (an invalid date, no namespace). */
export class InvalidChecksumInputError extends Error {
  override readonly name = 'InvalidChecksumInputError';
  readonly code = 'ERR_CHECKSUM_INVALID_INPUT' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

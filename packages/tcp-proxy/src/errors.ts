/** The TLS relay's worker did not answer: it is not running, or it exited. */
export class TlsRelayError extends Error {
  override readonly name = 'TlsRelayError';
  readonly code = 'ERR_TLS_RELAY_FAILED' as const;

  constructor(message: string, options?: { cause?: unknown }) {
    super(`the TLS relay ${message}`, options);
  }
}

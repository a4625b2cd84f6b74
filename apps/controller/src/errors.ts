/** A command-line flag or argument the user must fix; the CLI exits with code 2. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
  readonly code = 'INVALID_FLAG';
}

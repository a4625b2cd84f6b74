/**
 * Where the proxy and the relay say what happened to a connection or a socket: pino's
 * `(fields, message)` calls, so a pino logger (or anything shaped like it) fits as it is.
 */

/** A structured logger: the fields of one line, then its message. */
export interface Logger {
  debug(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Logs nothing: the default when no logger is given. */
export const silentLogger: Logger = Object.freeze({
  debug: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/** Structured logs: pino, one JSON object per line. */
import { createWriteStream } from 'node:fs';
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/** Where and how much to log. */
export interface LoggerOptions {
  /** pino level name; `silent` logs nothing. */
  level?: string;
  /** Stream to write to; stderr by default. */
  destination?: DestinationStream | NodeJS.WritableStream;
  /** Fields added to every line, e.g. `{ replica: 'a' }`. */
  bindings?: Record<string, unknown>;
}

/** Creates the controller's logger. Errors are serialized with their name, code and cause. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const logger = pino(
    {
      level: options.level ?? 'info',
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.errWithCause, error: pino.stdSerializers.errWithCause },
    },
    options.destination ?? process.stderr,
  );
  return options.bindings === undefined ? logger : logger.child(options.bindings);
}

/** A logger that writes JSON lines to a new file at `path`, for the demo whose terminal shows a summary instead. */
export function createFileLogger(
  path: string,
  level = 'debug',
): { logger: Logger; close: () => Promise<void> } {
  const stream = createWriteStream(path, { flags: 'w' });
  return {
    logger: createLogger({ level, destination: stream }),
    close: () => new Promise((resolve) => stream.end(() => resolve())),
  };
}

/** What every ingresskit command is made of, and what it gets from the process. */
import type { CommandLineSpec, ParsedCommandLine } from '../flags.js';

/** The process edge as a command sees it; tests pass their own. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** Aborted on SIGINT or SIGTERM; long-running commands stop gracefully then. */
  signal: AbortSignal;
  cwd: string;
}

/** One command: its help and its action. */
export interface Command {
  /** The words after `ingresskit`, e.g. `checksum publish`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The usage line and a paragraph, without the flags. */
  usage: string;
  spec: CommandLineSpec;
  /** Runs the command; resolves to the exit code. Throws FlagError for usage errors. */
  run(commandLine: ParsedCommandLine, io: CommandIo): Promise<number>;
}

/** Exit codes of the ingresskit command. 2 is a usage error, as for most Unix tools. */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

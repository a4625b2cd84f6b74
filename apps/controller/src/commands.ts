/** Exit codes of the ingresskit command. 2 is a usage error, as for most Unix tools. */
export const ExitCode = { ok: 0, failure: 1, usage: 2 } as const;

/** What a command run produced: an exit code and the text for stdout and stderr. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const USAGE = `Usage: ingresskit <command> [flags]

Commands:
  help       print this help

Run 'ingresskit help' for this text.
`;

/** Runs the ingresskit command line with `argv` (without node and script) and returns its result. */
export function runCommand(argv: readonly string[]): CommandResult {
  const [command] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    return { exitCode: ExitCode.ok, stdout: USAGE, stderr: '' };
  }
  return {
    exitCode: ExitCode.usage,
    stdout: '',
    stderr: `ingresskit: unknown command ${JSON.stringify(command)}\n\n${USAGE}`,
  };
}

/** The ingresskit command line: picks the command, prints help, maps errors to exit codes. */
import { FlagError } from '../errors.js';
import { CONTROLLER_VERSION } from '../version.js';
import { formatFlagsHelp, parseCommandLine } from '../flags.js';
import { checksumCommand } from './checksum.js';
import { ExitCode, type Command, type CommandIo } from './command.js';
import { demoCommand } from './demo.js';
import { explainCommand } from './explain.js';
import { migrateCommand } from './migrate.js';
import { renderCommand } from './render.js';
import { runCommand } from './run.js';

/** Every command, in help order. */
export const commands: readonly Command[] = [
  runCommand,
  demoCommand,
  explainCommand,
  renderCommand,
  migrateCommand,
  checksumCommand,
];

/** The top-level help text. */
export function formatUsage(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  const list = commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n');
  return `Usage: ingresskit <command> [flags]

An nginx ingress controller for Kubernetes built from the IngressKit packages.

Commands:
${list}
  ${'help'.padEnd(width)}  print this text, or 'ingresskit help <command>' for a command's flags
  ${'version'.padEnd(width)}  print the version (also --version)

Every flag can also be set through an environment variable (--http-port: INGRESSKIT_HTTP_PORT).
Run 'ingresskit <command> --help' for the flags of a command.
`;
}

/** The help of one command: usage, then every flag with its default and environment variable. */
export function formatCommandHelp(command: Command): string {
  return `${command.usage}\n\n${formatFlagsHelp(command.spec.flags, command.spec.defaults)}`;
}

/**
 * Runs the command line `argv` (without node and script). Resolves to the exit code: 0 success,
 * 1 failure, 2 usage error (unknown command or flag, bad value), with a message on stderr.
 */
export async function runCli(argv: readonly string[], io: CommandIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'version' || first === '--version') {
    io.stdout(`ingresskit ${CONTROLLER_VERSION} (Node.js ${process.version})\n`);
    return ExitCode.ok;
  }
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') {
    const topic = first === 'help' ? rest.join(' ') : '';
    if (topic === '') {
      io.stdout(formatUsage());
      return ExitCode.ok;
    }
    const command = findCommand(rest).command;
    if (command === undefined) return usageError(io, `unknown command ${JSON.stringify(topic)}`);
    io.stdout(formatCommandHelp(command));
    return ExitCode.ok;
  }
  const { command, args } = findCommand(argv);
  if (command === undefined) {
    const message =
      first === 'checksum'
        ? `'ingresskit checksum' needs a subcommand: publish`
        : `unknown command ${JSON.stringify(first)}`;
    return usageError(io, message);
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(formatCommandHelp(command));
    return ExitCode.ok;
  }
  try {
    const commandLine = parseCommandLine(args, io.env, command.spec);
    return await command.run(commandLine, io);
  } catch (error) {
    if (error instanceof FlagError) return usageError(io, error.message, command);
    io.stderr(`ingresskit ${command.name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return ExitCode.failure;
  }
}

function findCommand(argv: readonly string[]): { command: Command | undefined; args: readonly string[] } {
  for (const command of commands) {
    const words = command.name.split(' ');
    if (words.every((word, index) => argv[index] === word))
      return { command, args: argv.slice(words.length) };
  }
  return { command: undefined, args: argv };
}

function usageError(io: CommandIo, message: string, command?: Command): number {
  const hint =
    command === undefined
      ? "Run 'ingresskit help' for the commands."
      : `Run 'ingresskit ${command.name} --help' for its flags.`;
  io.stderr(`ingresskit: ${message}\n${hint}\n`);
  return ExitCode.usage;
}

export { ExitCode, runCommand, type CommandResult } from './commands.js';

/** The ingresskit command line run in the test's own process, with what it prints captured. */
import { runCli } from '../src/commands/index.js';

/** What one command line printed, and its exit code. */
export interface CapturedRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs `argv` (without `ingresskit`) as the command line would, with `env` as its environment. */
export async function runCliCaptured(
  argv: readonly string[],
  options: { env?: Record<string, string>; cwd?: string } = {},
): Promise<CapturedRun> {
  let stdout = '';
  let stderr = '';
  const exitCode = await runCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env: options.env ?? {},
    signal: new AbortController().signal,
    cwd: options.cwd ?? process.cwd(),
  });
  return { exitCode, stdout, stderr };
}

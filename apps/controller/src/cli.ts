#!/usr/bin/env node
/**
 * The process edge of ingresskit: argv and environment in, exit code out. SIGINT and SIGTERM ask
 * the running command to stop gracefully; a second signal exits at once.
 */
import { runCli } from './commands/index.js';

const controller = new AbortController();
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) {
    process.stderr.write(`ingresskit: ${signal} again, exiting now\n`);
    process.exit(130);
  }
  controller.abort(signal);
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  signal: controller.signal,
  cwd: process.cwd(),
});
process.off('SIGINT', onSignal);
process.off('SIGTERM', onSignal);
process.exitCode = exitCode;

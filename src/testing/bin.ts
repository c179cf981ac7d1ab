#!/usr/bin/env node
/**
 * `merchant-stablecoin-sandbox`: serves the simulator over HTTP for any language's tests (see
 * `--help` and docs/sandbox-server.md). The work is in `cli/main.ts`; this file binds it to the
 * process.
 */
import { runCli } from './cli/main.js';

void runCli(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  exit: (code) => {
    process.exitCode = code;
    // Let stdout drain before the process ends.
    process.stdout.write('', () => process.exit(code));
  },
  onStop: (stop) => {
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  },
});

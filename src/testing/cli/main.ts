/**
 * The sandbox command: parses options, builds the sandbox (fixed credentials, seed file), serves
 * it, prints shell-pasteable lines, and stops cleanly on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { createSandbox } from '../sandbox.js';
import { checkSeed, type SandboxSeed } from '../seed-file.js';
import type { SandboxServer } from '../server.js';
import { parseArgs, USAGE, UsageError, type CliOptions } from './args.js';

/** Where the command writes, and how it ends (the process, or a test's fake). */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly exit: (code: number) => void;
  /** Registers the stop signal handlers. */
  readonly onStop: (stop: (signal: string) => void) => void;
}

/** A value quoted for POSIX shells when it holds anything but safe characters. */
function shellQuote(value: string): string {
  return /^[A-Za-z0-9_.:/@%+,=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function readSeed(file: string): SandboxSeed {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read seed file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { cause: e });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new Error(`seed file ${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  return checkSeed(parsed);
}

/** Lines printed on start: comments and `export` lines, so the whole block pastes into a shell. */
function banner(server: SandboxServer, credentials: { clientId: string; apiKey: string; signingKey: string }, seeded: string): string {
  return [
    `# Merchant Stablecoin sandbox listening on ${server.url}`,
    `# Inspector page and admin API: ${server.url}/__sandbox/`,
    `# OpenAPI document (generate a client from it): ${server.url}/__sandbox/openapi.json${seeded}`,
    `export MERCHANT_API_BASE_URL=${shellQuote(server.url)}`,
    `export MERCHANT_API_CLIENT_ID=${shellQuote(credentials.clientId)}`,
    `export MERCHANT_API_KEY=${shellQuote(credentials.apiKey)}`,
    `export MERCHANT_API_SIGNING_KEY=${shellQuote(credentials.signingKey)}`,
    '# sandbox-only credentials; Ctrl-C to stop',
    '',
  ].join('\n');
}

function listenError(e: unknown, o: CliOptions): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return `port ${o.port} on ${o.host} is already in use; pass --port (or PORT) with another port, or 0 for a free one`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on ${o.host}: no such local address (--host)`;
  if (code === 'EACCES') return `no permission to listen on port ${o.port} (ports under 1024 need privileges)`;
  return `cannot listen on ${o.host}:${o.port}: ${e instanceof Error ? e.message : String(e)}`;
}

async function serve(o: CliOptions, io: CliIo): Promise<void> {
  const seed = o.seedFile === undefined ? undefined : readSeed(o.seedFile);
  const sandbox = createSandbox({
    ...(o.clientId !== undefined ? { clientId: o.clientId } : {}),
    ...(o.apiKey !== undefined ? { apiKey: o.apiKey } : {}),
    ...(o.signingKey !== undefined ? { signingKey: o.signingKey } : {}),
    ...(seed !== undefined ? { seed } : {}),
  });
  let server: SandboxServer;
  try {
    server = await sandbox.listen({ port: o.port, host: o.host });
  } catch (e) {
    throw new Error(listenError(e, o), { cause: e });
  }
  const seeded = seed === undefined ? '' : `\n# Seeded from ${o.seedFile} (members: ${sandbox.state.members.length})`;
  io.out(banner(server, sandbox.credentials, seeded));
  io.onStop((signal) => {
    void server.close().then(() => {
      io.out(`# sandbox stopped (${signal})\n`);
      io.exit(0);
    });
  });
}

/** Runs the command: exit 0 after `--help` or a clean stop, 2 for a usage error, 1 for any other failure. */
export async function runCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, io: CliIo): Promise<void> {
  let options: CliOptions;
  try {
    options = parseArgs(argv, env);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`merchant-stablecoin-sandbox: ${e.message}\nRun merchant-stablecoin-sandbox --help for the options.\n`);
    io.exit(2);
    return;
  }
  if (options.help) {
    io.out(USAGE);
    io.exit(0);
    return;
  }
  try {
    await serve(options, io);
  } catch (e) {
    io.err(`merchant-stablecoin-sandbox: ${e instanceof Error ? e.message : String(e)}\n`);
    io.exit(1);
  }
}

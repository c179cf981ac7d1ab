/**
 * The sandbox command: parses options, builds the sandbox (fixed credentials and secrets, seed
 * file, signature skew), serves it (its admin API behind a token beyond loopback), prints
 * shell-pasteable lines with only the values it generated, and stops cleanly on SIGINT or SIGTERM.
 */
import { readFileSync } from 'node:fs';
import { ADMIN_TOKEN_HEADER } from '../admin/index.js';
import { createSandbox } from '../sandbox.js';
import type { Sandbox } from '../sandbox-types.js';
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

/** A variable the banner concerns: its name, its value, and whether the command generated it. */
interface Printed {
  readonly name: string;
  readonly value: string;
  readonly generated: boolean;
}

/**
 * Lines printed on start: comments and `export` lines, so the whole block pastes into a shell.
 * Only values the command generated are exported; a credential or secret it was given (flag or
 * environment) is named, never printed, so a CI job that holds real keys never logs them.
 */
function banner(server: SandboxServer, values: readonly Printed[], notes: readonly string[]): string {
  const given = values.filter((v) => !v.generated).map((v) => v.name);
  return [
    `# Merchant Stablecoin sandbox listening on ${server.url}`,
    `# Inspector page and admin API: ${server.url}/__sandbox/`,
    `# OpenAPI document (generate a client from it): ${server.url}/__sandbox/openapi.json`,
    // A rotation answers its new values to the caller, once; this output never repeats them.
    `# Rotate the key: POST ${server.url}/__sandbox/credentials/rotate {"overlap_ms": n}`,
    ...notes,
    `export MERCHANT_API_BASE_URL=${shellQuote(server.url)}`,
    ...values.filter((v) => v.generated).map((v) => `export ${v.name}=${shellQuote(v.value)}`),
    ...(given.length === 0 ? [] : [`# ${given.join(', ')}: as given, not printed`]),
    '# sandbox-only credentials; Ctrl-C to stop',
    '',
  ].join('\n');
}

/** The credentials and secrets of the banner, in order, each marked given or generated. */
function printedValues(o: CliOptions, sandbox: Sandbox, adminToken: string | undefined): Printed[] {
  const { clientId, apiKey, signingKey } = sandbox.credentials;
  const out: Printed[] = [
    { name: 'MERCHANT_API_CLIENT_ID', value: clientId, generated: o.clientId === undefined },
    { name: 'MERCHANT_API_KEY', value: apiKey, generated: o.apiKey === undefined },
    { name: 'MERCHANT_API_SIGNING_KEY', value: signingKey, generated: o.signingKey === undefined },
    { name: 'MERCHANT_WEBHOOK_SECRET', value: sandbox.webhooks.secret, generated: o.webhookSecret === undefined },
  ];
  if (adminToken !== undefined)
    out.push({ name: 'MERCHANT_SANDBOX_ADMIN_TOKEN', value: adminToken, generated: o.adminToken === undefined });
  return out;
}

/** Comment lines for the settings that change how the sandbox is called. */
function notesOf(o: CliOptions, seed: SandboxSeed | undefined, sandbox: Sandbox, adminToken: string | undefined): string[] {
  const notes: string[] = [];
  if (seed !== undefined) notes.push(`# Seeded from ${o.seedFile} (members: ${sandbox.state.members.length})`);
  if (adminToken !== undefined) notes.push(`# The admin API requires the header ${ADMIN_TOKEN_HEADER}: $MERCHANT_SANDBOX_ADMIN_TOKEN`);
  if (o.signatureSkewMs !== 0)
    notes.push(`# Signatures are checked against real time ${o.signatureSkewMs > 0 ? '+' : '-'} ${Math.abs(o.signatureSkewMs)} ms`);
  return notes;
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
    ...(o.webhookSecret !== undefined ? { webhookSecret: o.webhookSecret } : {}),
    ...(seed !== undefined ? { seed } : {}),
    signatureSkewMs: o.signatureSkewMs,
  });
  let server: SandboxServer;
  try {
    server = await sandbox.listen({ port: o.port, host: o.host, ...(o.adminToken !== undefined ? { adminToken: o.adminToken } : {}) });
  } catch (e) {
    throw new Error(listenError(e, o), { cause: e });
  }
  io.out(banner(server, printedValues(o, sandbox, server.adminToken), notesOf(o, seed, sandbox, server.adminToken)));
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

/**
 * The sandbox command's options: flags first, then the environment (the same
 * `MERCHANT_API_*` variables the client reads, `PORT`, `HOST`), then defaults.
 */

/** What the command was asked to do. */
export interface CliOptions {
  readonly help: boolean;
  readonly host: string;
  readonly port: number;
  readonly clientId: string | undefined;
  readonly apiKey: string | undefined;
  readonly signingKey: string | undefined;
  readonly seedFile: string | undefined;
}

/** A bad flag or value: the command prints it with a pointer to `--help` and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const USAGE = `Usage: merchant-stablecoin-sandbox [options]

Serves the Merchant Stablecoin Account API sandbox (a stateful simulator) over HTTP, with an
admin API and an inspector page under /__sandbox/. Prints export lines to paste into a shell.

Options:
  --host <address>        interface to listen on (env HOST; default 127.0.0.1)
  --port <number>         port, 0 for a free one (env PORT; default 4010)
  --client-id <id>        fixed client id (env MERCHANT_API_CLIENT_ID; default random)
  --api-key <key>         fixed api key (env MERCHANT_API_KEY; default random)
  --signing-key <key>     fixed signing key (env MERCHANT_API_SIGNING_KEY; default random)
  --seed <file.json>      seed data: {"members": [...], "cards": [...], "reports": [...]},
                          applied at start and after every POST /__sandbox/reset
  -h, --help              print this help and exit

Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.
Documentation: node_modules/merchant-stablecoin/docs/sandbox-server.md (in the project that
installed the package; docs/sandbox-server.md in a clone).
`;

const VALUE_FLAGS = {
  '--host': 'host',
  '--port': 'port',
  '--client-id': 'clientId',
  '--api-key': 'apiKey',
  '--signing-key': 'signingKey',
  '--seed': 'seedFile',
} as const;

type ValueName = (typeof VALUE_FLAGS)[keyof typeof VALUE_FLAGS];

function isValueFlag(flag: string): flag is keyof typeof VALUE_FLAGS {
  return Object.hasOwn(VALUE_FLAGS, flag);
}

/** Flags given, by name; `--flag=value` and `--flag value` both work. */
function readFlags(argv: readonly string[]): { help: boolean; values: Partial<Record<ValueName, string>> } {
  const values: Partial<Record<ValueName, string>> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!isValueFlag(flag)) throw new UsageError(arg.startsWith('-') ? `unknown option ${flag}` : `unexpected argument ${arg}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`);
    values[VALUE_FLAGS[flag]] = value;
  }
  return { help, values };
}

function portOf(raw: string, from: string): number {
  const port = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port > 65535) throw new UsageError(`${from} must be a port number from 0 to 65535, not ${raw}`);
  return port;
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/** Parses the command line and the environment. */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliOptions {
  const { help, values } = readFlags(argv);
  const portText = values.port ?? nonEmpty(env['PORT']);
  return {
    help,
    host: values.host ?? nonEmpty(env['HOST']) ?? '127.0.0.1',
    port: portText === undefined ? 4010 : portOf(portText, values.port !== undefined ? '--port' : 'PORT'),
    clientId: values.clientId ?? nonEmpty(env['MERCHANT_API_CLIENT_ID']),
    apiKey: values.apiKey ?? nonEmpty(env['MERCHANT_API_KEY']),
    signingKey: values.signingKey ?? nonEmpty(env['MERCHANT_API_SIGNING_KEY']),
    seedFile: values.seedFile,
  };
}

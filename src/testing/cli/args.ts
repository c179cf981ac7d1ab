/**
 * The sandbox command's options: flags first, then the environment (the same
 * `MERCHANT_API_*` variables the client reads, `MERCHANT_WEBHOOK_SECRET`,
 * `MERCHANT_SANDBOX_*`, `PORT`, `HOST`), then defaults.
 */

/** What the command was asked to do. */
export interface CliOptions {
  readonly help: boolean;
  readonly host: string;
  readonly port: number;
  readonly clientId: string | undefined;
  readonly apiKey: string | undefined;
  readonly signingKey: string | undefined;
  /** Key of the webhook signature (`--webhook-secret`, `MERCHANT_WEBHOOK_SECRET`); generated when absent. */
  readonly webhookSecret: string | undefined;
  /** Token of the admin API (`--admin-token`, `MERCHANT_SANDBOX_ADMIN_TOKEN`); generated beyond loopback when absent. */
  readonly adminToken: string | undefined;
  /** The signature clock's distance from real time, ms (`--signature-skew-ms`); 0 by default. */
  readonly signatureSkewMs: number;
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
  --webhook-secret <key>  key of the webhooks' z-signature (env MERCHANT_WEBHOOK_SECRET;
                          default random)
  --admin-token <token>   token the admin API requires in x-sandbox-admin-token (env
                          MERCHANT_SANDBOX_ADMIN_TOKEN; default: random when --host is not
                          loopback, none on loopback)
  --signature-skew-ms <n> set the clock signatures are checked against n ms from real time
                          (negative: behind), to test timestamp_out_of_range (env
                          MERCHANT_SANDBOX_SIGNATURE_SKEW_MS; default 0)
  --seed <file.json>      seed data, a JSON object of optional lists: {"products": [...],
                          "members": [...], "cards": [...], "reports": [...],
                          "qr_codes": [...]}, applied in that order at start and after
                          every POST /__sandbox/reset
  -h, --help              print this help and exit

Prints only the values it generated: a credential or secret given by flag or environment is
never printed. Stops cleanly on Ctrl-C (SIGINT) or SIGTERM.

Key rotation: POST /__sandbox/credentials/rotate with {"overlap_ms": n} gives the key a new api
key and signing key ("new_client_id": true for a new client id too); the old ones and their
tokens work for n ms of the sandbox clock (POST /__sandbox/clock steps it), then stop with no
grace. The answer carries the new generated values; this command's output never does.
Documentation: node_modules/merchant-stablecoin/docs/sandbox-server.md (in the project that
installed the package; docs/sandbox-server.md in a clone).
`;

const VALUE_FLAGS = {
  '--host': 'host',
  '--port': 'port',
  '--client-id': 'clientId',
  '--api-key': 'apiKey',
  '--signing-key': 'signingKey',
  '--webhook-secret': 'webhookSecret',
  '--admin-token': 'adminToken',
  '--signature-skew-ms': 'signatureSkewMs',
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

function skewOf(raw: string | undefined, from: string): number {
  if (raw === undefined) return 0;
  if (!/^-?\d{1,15}$/.test(raw)) throw new UsageError(`${from} must be a whole number of milliseconds (negative: behind), not ${raw}`);
  return Number(raw);
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v === '' ? undefined : v);

/** Parses the command line and the environment. */
export function parseArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): CliOptions {
  const { help, values } = readFlags(argv);
  const portText = values.port ?? nonEmpty(env['PORT']);
  const skewText = values.signatureSkewMs ?? nonEmpty(env['MERCHANT_SANDBOX_SIGNATURE_SKEW_MS']);
  return {
    help,
    host: values.host ?? nonEmpty(env['HOST']) ?? '127.0.0.1',
    port: portText === undefined ? 4010 : portOf(portText, values.port !== undefined ? '--port' : 'PORT'),
    clientId: values.clientId ?? nonEmpty(env['MERCHANT_API_CLIENT_ID']),
    apiKey: values.apiKey ?? nonEmpty(env['MERCHANT_API_KEY']),
    signingKey: values.signingKey ?? nonEmpty(env['MERCHANT_API_SIGNING_KEY']),
    webhookSecret: values.webhookSecret ?? nonEmpty(env['MERCHANT_WEBHOOK_SECRET']),
    adminToken: values.adminToken ?? nonEmpty(env['MERCHANT_SANDBOX_ADMIN_TOKEN']),
    signatureSkewMs: skewOf(skewText, values.signatureSkewMs !== undefined ? '--signature-skew-ms' : 'MERCHANT_SANDBOX_SIGNATURE_SKEW_MS'),
    seedFile: values.seedFile,
  };
}

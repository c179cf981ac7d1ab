/**
 * Secrets sweep (reliability issue): one run with a capturing logger on every client and
 * stdout, stderr and `console.*` teed into a buffer, across successes, every injected fault,
 * token revocation, clock skew, hostile responses, an abort, a rate-limited burst, webhooks and
 * configuration errors. Everything the SDK said or exposed (log lines, error messages, `String`,
 * `util.inspect`, `JSON.stringify` of errors, results, the client, the limiter and the token
 * store) is then scanned for the API key, the signing key, every token issued, every request
 * signature, the webhook secret and signatures, and the PINs, card details and OTP codes sent.
 *
 * Everything runs over real sockets: the simulator in server mode (`sandbox.listen()`), a
 * hostile proxy in front of it for the malformed responses, and a webhook receiver on loopback.
 *
 * Set SECRETS_SWEEP_REPORT=1 to print the counts of the run on stdout after the sweep.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { format, inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortError,
  AcceptedButUnreadableError,
  ApiError,
  ConnectionError,
  InvalidArgumentError,
  isApiError,
  MalformedResponseError,
  MemoryRateLimiter,
  MemoryTokenStore,
  MerchantClient,
  RedirectRefusedError,
  ResponseValidationError,
  TimeoutError,
  type LogFields,
  type Logger,
  type LogLevel,
  type MerchantClientOptions,
  type StoredToken,
} from '../../src/index.js';
import { createWebhookHandler, parseEvent, type WebhookHandler, type WebhookVerifier } from '../../src/webhooks/index.js';
import { createSandbox, type Fault, type InjectedFault, type Sandbox, type SandboxServer } from '../../src/testing/index.js';
import { hangDriver } from '../helpers/time.js';

// ---------------------------------------------------------------------------------------------
// Capture
// ---------------------------------------------------------------------------------------------

/** Every piece of text the run produced that a user could see, with where it came from. */
const captured: Array<{ source: string; text: string }> = [];
const record = (source: string, text: string): void => {
  captured.push({ source, text });
};

const logLines: Array<{ level: LogLevel; message: string }> = [];
/** The logger given to every client and to the webhook handler: records each level's message and fields. */
function captureLogger(owner: string): Logger {
  const at =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      logLines.push({ level, message });
      record(`log:${owner}:${level}`, `${message} ${safeJson(fields)} ${inspect(fields, { depth: 10 })}`);
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const restorers: Array<() => void> = [];

function teeStream(stream: NodeJS.WriteStream, label: string): void {
  const original = stream.write;
  const tee = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
    record(label, typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk).toString('utf8') : String(chunk));
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  };
  stream.write = tee;
  restorers.push(() => {
    stream.write = original;
  });
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace', 'dir'] as const;
function teeConsole(): void {
  for (const name of CONSOLE_METHODS) {
    const original = console[name] as (...args: unknown[]) => void;
    console[name] = ((...args: unknown[]) => {
      record(`console.${name}`, format(...args));
      original.apply(console, args);
    }) as (typeof console)[typeof name];
    restorers.push(() => {
      console[name] = original as (typeof console)[typeof name];
    });
  }
}

function teeWarnings(): void {
  const onWarning = (w: Error): void => record('process.warning', inspect(w, { depth: 10 }));
  process.on('warning', onWarning);
  restorers.push(() => process.off('warning', onWarning));
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch (err) {
    return `<JSON.stringify threw: ${(err as Error).message}>`;
  }
}

/** The ways an error (or any object) is usually printed. */
function renderings(value: unknown): string[] {
  const out = [
    String(value),
    safeJson(value),
    inspect(value, { depth: 10 }),
    inspect(value, { depth: 10, showHidden: true }),
    format('%s %o', value, value),
  ];
  if (value instanceof Error) out.push(value.message, value.stack ?? '');
  return out;
}

const errors: Array<{ label: string; error: unknown }> = [];
let callsMade = 0;
let callsSucceeded = 0;

function collectError(label: string, error: unknown): void {
  errors.push({ label, error });
  for (const text of renderings(error)) record(`error:${label}`, text);
}

function collectObject(label: string, value: unknown): void {
  for (const text of renderings(value)) record(`object:${label}`, text);
}

/** Runs one SDK interaction (sync throws included) and collects what came out of it. */
async function attempt<T>(label: string, fn: () => PromiseLike<T> | T): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  callsMade++;
  try {
    const value = await fn();
    callsSucceeded++;
    collectObject(`result:${label}`, value);
    return { ok: true, value };
  } catch (error) {
    collectError(label, error);
    return { ok: false, error };
  }
}

async function succeeds<T>(label: string, fn: () => PromiseLike<T> | T): Promise<T> {
  const r = await attempt(label, fn);
  if (!r.ok) throw new Error(`${label} was expected to succeed`, { cause: r.error });
  return r.value;
}

async function fails(label: string, fn: () => unknown): Promise<unknown> {
  const r = await attempt(label, fn);
  if (r.ok) throw new Error(`${label} was expected to fail`);
  return r.error;
}

// ---------------------------------------------------------------------------------------------
// Secrets and the scanner
// ---------------------------------------------------------------------------------------------

/** A value that must never be printed. `short` values are matched as whole words only. */
interface Secret {
  readonly name: string;
  readonly value: string;
  readonly short?: boolean;
}

/** Length of the windows a long secret is cut into: a truncated leak of 16 characters is still a leak. */
const WINDOW = 16;

interface Finding {
  readonly secret: string;
  readonly source: string;
  readonly excerpt: string;
}

/** The printable forms of a long secret a careless SDK could produce. */
function formsOf(s: Secret, encodings: boolean): string[] {
  const forms = [s.value];
  if (encodings) {
    const bytes = Buffer.from(s.value, 'utf8');
    forms.push(bytes.toString('base64'), bytes.toString('base64url'), bytes.toString('hex'), encodeURIComponent(s.value));
  }
  return forms;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Finds every secret (any 16-character window of any form of a long one; a short one as a word) in the texts. */
function scan(texts: ReadonlyArray<{ source: string; text: string }>, secrets: readonly Secret[], encoded: ReadonlySet<string>): Finding[] {
  const windows = new Map<string, string>();
  const shorts: Array<{ name: string; re: RegExp }> = [];
  for (const s of secrets) {
    if (s.short || s.value.length < WINDOW) {
      shorts.push({ name: s.name, re: new RegExp(`(?<![0-9A-Za-z])${escapeRegExp(s.value)}(?![0-9A-Za-z])`) });
      continue;
    }
    for (const form of formsOf(s, encoded.has(s.name))) {
      for (let i = 0; i + WINDOW <= form.length; i++) windows.set(form.slice(i, i + WINDOW), s.name);
    }
  }
  const findings: Finding[] = [];
  for (const { source, text } of texts) {
    for (let i = 0; i + WINDOW <= text.length; i++) {
      const hit = windows.get(text.slice(i, i + WINDOW));
      if (hit !== undefined) {
        findings.push({ secret: hit, source, excerpt: text.slice(Math.max(0, i - 80), i + WINDOW + 80) });
        break;
      }
    }
    for (const { name, re } of shorts) {
      const m = re.exec(text);
      if (m) findings.push({ secret: name, source, excerpt: text.slice(Math.max(0, m.index - 80), m.index + m[0].length + 80) });
    }
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// World: simulator, hostile proxy, clients
// ---------------------------------------------------------------------------------------------

const FAST_BACKOFF = { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 } as const;
/** Card details and OTP codes sent by the test (8 digits, so that no id or timestamp matches them). */
const PIN = '80417263';
const WRONG_PIN = '61950384';
const EXPIRY = '11/31';
const WRONG_EXPIRY = '10/32';
const OTPS = ['58203914', '47319285', '36028471', '92748316'] as const;

let sandbox: Sandbox;
let server: SandboxServer;
let proxyUrl: string;
let closeProxy: () => Promise<void>;
const clients: MerchantClient[] = [];
/** Every token any client stored (all tokens the simulator issued to this run's clients). */
const issuedTokens = new Set<string>();
/** Request headers the hostile proxy saw. */
const proxySeen: Array<Record<string, string>> = [];
const tokenStores: MemoryTokenStore[] = [];
const injected: InjectedFault[] = [];
let wrongApiKey = '';
const webhookSignaturesSent: string[] = [];

/** A token store that remembers every token it was given, outside itself. */
class RecordingTokenStore extends MemoryTokenStore {
  override set(key: string, token: StoredToken): void {
    issuedTokens.add(token.token);
    super.set(key, token);
  }
}

function newClient(owner: string, options: Partial<MerchantClientOptions> = {}): MerchantClient {
  const tokenStore = new RecordingTokenStore();
  tokenStores.push(tokenStore);
  const client = new MerchantClient({
    baseUrl: server.url,
    ...sandbox.credentials,
    backoff: FAST_BACKOFF,
    logger: captureLogger(owner),
    logLevel: 'debug',
    tokenStore,
    ...options,
  });
  clients.push(client);
  return client;
}

function inject(match: { method?: string; path: string }, fault: Fault, times = 1): InjectedFault {
  const f = sandbox.faults.inject(match, fault, { times });
  injected.push(f);
  return f;
}

/** A hostile reply the proxy gives instead of the simulator's (after forwarding the request). */
interface HostileRule {
  readonly method: string;
  readonly path: RegExp;
  remaining: number;
  readonly reply: (res: http.ServerResponse, upstream: { status: number; headers: http.IncomingHttpHeaders; body: Buffer }) => void;
}
const hostileRules: HostileRule[] = [];
let hostileReplies = 0;

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** A reverse proxy on loopback in front of the simulator that can replace answers with hostile ones. */
async function startHostileProxy(target: SandboxServer): Promise<{ url: string; close: () => Promise<void> }> {
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      proxySeen.push(flatHeaders(req.headers));
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const rule = hostileRules.find((r) => r.remaining > 0 && r.method === req.method && r.path.test(path));
      if (rule) rule.remaining--;
      const up = http.request(
        { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers, agent: false },
        (ur) => {
          const body: Buffer[] = [];
          ur.on('data', (c: Buffer) => body.push(c));
          ur.on('end', () => {
            const upstream = { status: ur.statusCode ?? 502, headers: ur.headers, body: Buffer.concat(body) };
            if (rule) {
              hostileReplies++;
              rule.reply(res, upstream);
              return;
            }
            res.writeHead(upstream.status, flatHeaders(ur.headers));
            res.end(upstream.body);
          });
          ur.on('error', () => res.destroy());
        },
      );
      up.on('error', () => res.destroy());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

/** Counts of the run, printed after the sweep when SECRETS_SWEEP_REPORT is set. */
let sweepReport: unknown;

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

describe('secrets sweep: one captured run across successes, faults, auth, skew, hostile answers, aborts, bursts, webhooks and config errors', () => {
  let client: MerchantClient;
  let memberRef: string;

  beforeAll(async () => {
    teeStream(process.stdout, 'stdout');
    teeStream(process.stderr, 'stderr');
    teeConsole();
    teeWarnings();
    sandbox = createSandbox({ quotas: { token: 1000 }, webhooks: { backoffMs: 1, attempts: 2 } });
    server = await sandbox.listen();
    const proxy = await startHostileProxy(server);
    proxyUrl = proxy.url;
    closeProxy = proxy.close;
    client = newClient('main');
    const m = sandbox.state.seedMember({
      external_member_id: 'sweep-1',
      balances: { USDT: { available: '100000' }, USDC: { available: '500' } },
    });
    memberRef = m.external_member_id;
    sandbox.state.setPrepaid('USDT', { available: '100000' });
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await closeProxy?.();
    await server?.close();
    for (const restore of restorers.splice(0).reverse()) restore();
  });

  it('captures stdout, stderr and console (self-check of the tee)', () => {
    process.stdout.write('sweep-probe stdout\n');
    process.stderr.write('sweep-probe stderr\n');
    console.log('sweep-probe console.log');
    console.error('sweep-probe console.error');
    const sources = new Set(captured.filter((c) => c.text.includes('sweep-probe')).map((c) => c.source));
    expect([...sources].sort()).toEqual(['console.error', 'console.log', 'stderr', 'stdout']);
  });

  it('successful calls across namespaces, card activation with a PIN, and a wrong-details activation', async () => {
    const member = client.member(memberRef);
    await succeeds('assets.list', () => client.assets.list().collect(50));
    await succeeds('balances.list', () => member.balances.list().withResponse());
    // The promises themselves, inspected while pending.
    const pending = member.balances.list();
    const pages = client.assets.list();
    collectObject('api promise', pending);
    collectObject('page promise', pages);
    await succeeds('pending balances', () => pending);
    await succeeds('pending pages', () => pages.collect(10));
    const w = await succeeds('withdrawals.create', () =>
      member.withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T-sweep' }).withResponse(),
    );
    await succeeds('withdrawals.confirm', () => member.withdrawals.confirm(w.data.id).withResponse());
    await succeeds('sandbox.faucet', () => client.sandbox.faucet({ asset: 'USDT', amount: '100' }).withResponse());
    await succeeds('merchant.conversions.create', () =>
      client.merchant.conversions
        .create({ from_asset: 'USDT', to_asset: 'USDC', from_amount: '100', min_to_amount: '99.9' })
        .withResponse(),
    );
    await succeeds('merchant.balances', () => client.merchant.balances().collect(20));
    await succeeds('members.create', () => client.members.create({ external_member_id: 'sweep-2' }).withResponse());
    await succeeds('deposits.declare', () =>
      client.member('sweep-2').deposits.declare({ asset: 'USDT', amount: '15.5', tx_hash: '0xfeed' }).withResponse(),
    );
    await succeeds('qrpay.quote', () => member.qrpay.quote({ code_value: 'sbxqr:Kopi Shop:SGD:13.50' }).withResponse());
    await succeeds('kyc.submitApplication', () =>
      member.kyc.submitApplication({ profile: { first_name: 'Ada', last_name: 'Lovelace', nationality: 'GB' } }).withResponse(),
    );
    await succeeds('reports.list', () => client.reports.list({ limit: 5 }));
    await succeeds('remittances.corridors', () => client.remittances.corridors().withResponse());
    await succeeds('request (raw)', () => client.request({ method: 'GET', path: '/v1/assets' }).withResponse());

    const m = sandbox.state.seedMember({ external_member_id: 'sweep-card' });
    const card = sandbox.state.seedCard({ member: m.id, form: 'physical', expiry: EXPIRY, pin: PIN, pending_initial_topup: '20' });
    const wrong = sandbox.state.seedCard({ member: m.id, form: 'physical', expiry: EXPIRY, pin: PIN });
    const cards = client.member('sweep-card').cards;
    // Rejected before sending: the PIN is never echoed.
    const badExpiry = await fails('cards.activate bad expiry', () => cards.activate(card.id, { expiry: '13/99', pin: PIN }));
    expect(badExpiry).toBeInstanceOf(InvalidArgumentError);
    const emptyPin = await fails('cards.activate empty pin', () => cards.activate(card.id, { expiry: EXPIRY, pin: '' }));
    expect(emptyPin).toBeInstanceOf(InvalidArgumentError);
    // Wrong details: 500 api_error, never retried.
    const mismatch = await fails('cards.activate wrong details', () =>
      cards.activate(wrong.id, { expiry: WRONG_EXPIRY, pin: WRONG_PIN }).withResponse(),
    );
    expect(isApiError(mismatch, 'api_error')).toBe(true);
    expect((mismatch as ApiError).attempts).toBe(1);
    const ok = await succeeds('cards.activate', () => cards.activate(card.id, { expiry: EXPIRY, pin: PIN }).withResponse());
    expect(ok.data).toEqual({ id: card.id, status: 'active' });
    await succeeds('cards.closeCheck', () => cards.closeCheck(card.id).withResponse());
    await succeeds('cards.retrieve', () => cards.retrieve(card.id).withResponse());
    // A typed error with extras: the wrong card, locked after three failures.
    await fails('cards.activate wrong details 2', () => cards.activate(wrong.id, { expiry: EXPIRY, pin: WRONG_PIN }));
    await fails('cards.activate wrong details 3', () => cards.activate(wrong.id, { expiry: EXPIRY, pin: WRONG_PIN }));
    const locked = await fails('cards.activate locked', () => cards.activate(wrong.id, { expiry: EXPIRY, pin: PIN }));
    expect(isApiError(locked, 'state_invalid')).toBe(true);
    // Plain API errors.
    expect(isApiError(await fails('request not_found', () => client.request({ method: 'GET', path: '/v1/nothing' })), 'not_found')).toBe(
      true,
    );
    expect(isApiError(await fails('member_not_found', () => client.member('nobody').balances.list()), 'member_not_found')).toBe(true);
  });

  it('retries through every injected fault, once (recovered) and persisting (raised)', async () => {
    const member = client.member(memberRef);
    // Client timeouts on fake time against held requests (see hangDriver): no race with the clock.
    // A second per attempt: the call's deadline (three of them) leaves room for the backoff after
    // 409 in progress; on fake time it costs nothing.
    const hang = hangDriver(1000, captureLogger('timeout'));
    const timeoutClient = newClient('timeout', {
      timeoutMs: 1000,
      backoff: { baseDelayMs: 1, inProgressDelayMs: 150, maxDelayMs: 1000 },
      logger: hang.logger,
    });
    const fetchClient = newClient('fetch', { transport: 'fetch' });
    const W = { method: 'POST', path: '/v1/withdrawals' };
    const faults: Array<[string, Fault]> = [
      ['500 before', { kind: 'status', status: 500, when: 'before' }],
      ['500 after', { kind: 'status', status: 500, when: 'after' }],
      ['502 before', { kind: 'status', status: 502, when: 'before' }],
      ['502 after', { kind: 'status', status: 502, when: 'after' }],
      ['504 before', { kind: 'status', status: 504, when: 'before' }],
      ['504 after', { kind: 'status', status: 504, when: 'after' }],
      ['409 in progress', { kind: 'in_progress' }],
      ['429 flat', { kind: 'rate_limited', retryAfter: 0, shape: 'flat' }],
      ['429 wrapped', { kind: 'rate_limited', retryAfter: 0, shape: 'wrapped' }],
      ['reset', { kind: 'reset' }],
      ['HTML 502', { kind: 'html', status: 502 }],
      ['unknown code', { kind: 'unknown_code' }],
      ['timestamp skew', { kind: 'timestamp_skew' }],
    ];
    const order = { asset: 'USDT', amount: '1', to_address: 'T-fault' } as const;
    for (const c of [client, fetchClient]) {
      const name = c === client ? 'undici' : 'fetch';
      const m = c.member(memberRef);
      for (const [label, fault] of faults) {
        const once = inject(W, fault, 1);
        const r = await succeeds(`${name} ${label} once`, () => m.withdrawals.create(order).withResponse());
        expect(once.hits).toBe(1);
        expect(r.response.attempts).toBeGreaterThanOrEqual(2);
        const persisting = inject(W, fault, Infinity);
        await fails(`${name} ${label} persisting`, () => m.withdrawals.create(order).withResponse());
        persisting.remove();
        expect(persisting.hits).toBeGreaterThanOrEqual(1);
      }
    }
    // Faults on reads too (no idempotency key, unsigned).
    inject({ method: 'GET', path: '/v1/balances' }, { kind: 'reset' }, 1);
    await succeeds('balances after reset', () => member.balances.list().withResponse());
    inject({ method: 'GET', path: '/v1/balances' }, { kind: 'status', status: 502, when: 'before' }, Infinity);
    await fails('balances persisting 502', () => member.balances.list());
    sandbox.faults.clear();

    // Client timeout: the simulator holds the attempt and the client gives up; the held run is
    // released when the client retries after 409 in progress (once), or after the call (persisting).
    const tm = timeoutClient.member(memberRef);
    await succeeds('timeout client warm-up', () => tm.balances.list());
    const once = inject(W, { kind: 'hang' }, 1);
    hang.start(once);
    try {
      const r = await succeeds('client timeout once', () => tm.withdrawals.create(order).withResponse());
      expect(r.response.attempts).toBe(3);
      expect(r.response.replayed).toBe(true);
    } finally {
      await hang.stop();
    }
    const persisting = inject(W, { kind: 'hang' }, Infinity);
    hang.start(persisting);
    let timedOut: unknown;
    try {
      timedOut = await fails('client timeout persisting', () => tm.withdrawals.create(order).withResponse());
    } finally {
      await hang.stop();
    }
    persisting.remove();
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect(persisting.hits).toBe(3);
  });

  it('token revocation mid-run: invalid_token then renewal; disabled key: invalid_credentials, fatal; wrong key', async () => {
    const member = client.member(memberRef);
    const order = { asset: 'USDT', amount: '1', to_address: 'T-auth' } as const;
    await succeeds('before revocation', () => member.withdrawals.create(order).withResponse());
    sandbox.revokeTokens();
    const renewed = await succeeds('after revocation', () => member.withdrawals.create(order).withResponse());
    expect(renewed.response.attempts).toBe(2);
    // A token the service keeps refusing: one renewal per call, then raised.
    const refused = inject(
      { method: 'POST', path: '/v1/withdrawals' },
      { kind: 'unknown_code', status: 401, code: 'invalid_token' },
      Infinity,
    );
    expect(isApiError(await fails('invalid_token persisting', () => member.withdrawals.create(order)), 'invalid_token')).toBe(true);
    refused.remove();

    sandbox.disableKey();
    const fatal = await fails('disabled key', () => member.withdrawals.create(order).withResponse());
    expect(isApiError(fatal, 'invalid_credentials')).toBe(true);
    expect((fatal as ApiError).retryClass).toBe('fatal');
    await fails('disabled key again', () => member.balances.list());
    sandbox.enableKey();
    await succeeds('re-enabled', () => member.withdrawals.create(order).withResponse());

    wrongApiKey = `${sandbox.credentials.apiKey.slice(0, -6)}f00d42`;
    const wrong = newClient('wrong-key', { apiKey: wrongApiKey });
    expect(isApiError(await fails('wrong api key', () => wrong.assets.list().collect(5)), 'invalid_credentials')).toBe(true);
    const wrongSigner = newClient('wrong-signing-key', { signingKey: `${sandbox.credentials.signingKey.slice(0, -6)}beef42` });
    await fails('wrong signing key', () => wrongSigner.member(memberRef).withdrawals.create(order));
  });

  it('clock skew of +10 and -10 minutes is corrected after one timestamp_out_of_range', async () => {
    const member = client.member(memberRef);
    const order = { asset: 'USDT', amount: '1', to_address: 'T-skew' } as const;
    for (const minutes of [10, -10]) {
      sandbox.clock.skewSignatures(minutes * 60_000);
      const r = await succeeds(`skew ${minutes} min`, () => member.withdrawals.create(order).withResponse());
      expect(r.response.attempts).toBe(2);
      expect(Math.round(client.clockOffsetMs / 60_000)).toBe(minutes);
      sandbox.clock.skewSignatures(0);
    }
    // Back on the real clock: corrected once more.
    await succeeds('skew back to 0', () => member.withdrawals.create(order).withResponse());
    // A client with retries off meets the skew as an error.
    const strict = newClient('skew-strict', { maxRetries: 0 });
    inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'timestamp_skew' }, Infinity);
    await fails('skew persisting', () => strict.member(memberRef).withdrawals.create(order));
    sandbox.faults.clear();
  });

  it('hostile and malformed responses through a proxy', async () => {
    const hostile = newClient('hostile', { baseUrl: proxyUrl, maxRetries: 1, maxResponseBytes: 64 * 1024 });
    const member = hostile.member(memberRef);
    await succeeds('hostile warm-up', () => hostile.assets.list().collect(5));
    const id = (u: { headers: http.IncomingHttpHeaders }): Record<string, string> => {
      const rid = u.headers['x-request-id'];
      return typeof rid === 'string' ? { 'x-request-id': rid } : {};
    };
    const cases: Array<{
      label: string;
      method: string;
      path: RegExp;
      call: () => PromiseLike<unknown>;
      reply: HostileRule['reply'];
      expected: unknown;
    }> = [
      {
        label: 'HTML 200',
        method: 'GET',
        path: /^\/v1\/assets$/,
        call: () => hostile.assets.list().collect(5),
        reply: (res, u) => {
          res.writeHead(200, { 'content-type': 'text/html', ...id(u) });
          res.end('<html><body>maintenance <script>alert(1)</script></body></html>');
        },
        // A 2xx was accepted by the service, whatever its body.
        expected: AcceptedButUnreadableError,
      },
      {
        label: 'polluting JSON of the wrong shape',
        method: 'GET',
        path: /^\/v1\/balances$/,
        call: () => member.balances.list(),
        reply: (res, u) => {
          res.writeHead(200, { 'content-type': 'application/json', ...id(u) });
          res.end(
            '{"__proto__":{"isAdmin":true},"data":{"constructor":{"prototype":{"polluted":1}}},"has_more":"maybe","\\u005f_proto__":{"x":1}}',
          );
        },
        expected: ResponseValidationError,
      },
      {
        label: 'JSON null',
        method: 'POST',
        path: /^\/v1\/withdrawals$/,
        call: () => member.withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T-hostile' }),
        reply: (res, u) => {
          res.writeHead(201, { 'content-type': 'application/json', ...id(u) });
          res.end('null');
        },
        expected: ResponseValidationError,
      },
      {
        label: 'oversized body',
        method: 'GET',
        path: /^\/v1\/assets$/,
        call: () => hostile.assets.list().collect(5),
        reply: (res, u) => {
          res.writeHead(200, { 'content-type': 'application/json', ...id(u) });
          res.end(JSON.stringify({ data: ['x'.repeat(100_000)], next_cursor: null, has_more: false }));
        },
        expected: AcceptedButUnreadableError,
      },
      {
        label: 'truncated body',
        method: 'GET',
        path: /^\/v1\/balances$/,
        call: () => member.balances.list(),
        reply: (res, u) => {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000', ...id(u) });
          res.write('{"data":[{"asset":');
          setImmediate(() => res.socket?.destroy());
        },
        expected: ConnectionError,
      },
      {
        label: 'hostile error envelope',
        method: 'POST',
        path: /^\/v1\/sandbox\/faucet$/,
        call: () => hostile.sandbox.faucet({ asset: 'USDT', amount: '1' }),
        reply: (res) => {
          res.writeHead(400, { 'content-type': 'application/json', 'set-cookie': 'session=abc; HttpOnly' });
          res.end(
            JSON.stringify({
              type: 'invalid_request_error',
              code: '\u001b[31mstate_invalid\r\nX-Injected: 1',
              message: `${'A'.repeat(3000)}\u0000\u001b[2J`,
              request_id: { nested: true },
              fields: [{ field: 'amount', reason: 'x'.repeat(500) }],
            }),
          );
        },
        expected: ApiError,
      },
      {
        label: 'array error body',
        method: 'GET',
        path: /^\/v1\/assets$/,
        call: () => hostile.assets.list().collect(5),
        reply: (res) => {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end('[1,2,3]');
        },
        expected: MalformedResponseError,
      },
      {
        label: 'redirect',
        method: 'GET',
        path: /^\/v1\/assets$/,
        call: () => hostile.assets.list().collect(5),
        reply: (res) => {
          res.writeHead(302, { location: 'http://evil.example/steal' });
          res.end();
        },
        expected: RedirectRefusedError,
      },
    ];
    for (const c of cases) {
      hostileRules.push({ method: c.method, path: c.path, remaining: 10, reply: c.reply });
      const err = await fails(`hostile ${c.label}`, c.call);
      hostileRules.length = 0;
      expect(err, c.label).toBeInstanceOf(c.expected);
    }
    await succeeds('hostile recovered', () => member.balances.list());
    expect(hostileReplies).toBeGreaterThanOrEqual(cases.length);
  });

  it('an aborted call, before and during the wait', async () => {
    const member = client.member(memberRef);
    const order = { asset: 'USDT', amount: '1', to_address: 'T-abort' } as const;
    const pre = new AbortController();
    pre.abort();
    expect(await fails('aborted before', () => member.withdrawals.create(order, { signal: pre.signal }))).toBeInstanceOf(AbortError);
    // Aborted while the simulator holds the request (once it has arrived), then released.
    const heldWrite = inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'hang' }, 1);
    const ac = new AbortController();
    void heldWrite.waitForHits(1).then(() => ac.abort());
    expect(await fails('aborted in flight', () => member.withdrawals.create(order, { signal: ac.signal }).withResponse())).toBeInstanceOf(
      AbortError,
    );
    await heldWrite.release();
    const reasoned = new AbortController();
    const heldRead = inject({ method: 'GET', path: '/v1/balances' }, { kind: 'hang' }, 1);
    void heldRead.waitForHits(1).then(() => reasoned.abort(new Error('shutting down')));
    expect(await fails('aborted with reason', () => member.balances.list({ signal: reasoned.signal }))).toBeInstanceOf(AbortError);
    await heldRead.release();
  });

  it('a small burst through a MemoryRateLimiter, with a 429 in the middle', async () => {
    const limiter = new MemoryRateLimiter({ quotas: { reads: 3, orders: 2 }, windowMs: 150 });
    const limited = newClient('limited', { limiter });
    const member = limited.member(memberRef);
    inject({ method: 'GET', path: '/v1/balances' }, { kind: 'rate_limited', retryAfter: 0, shape: 'wrapped' }, 1);
    const burst = [
      ...Array.from({ length: 6 }, (_, i) => attempt(`burst read ${i}`, () => member.balances.list())),
      ...Array.from({ length: 3 }, (_, i) =>
        attempt(`burst order ${i}`, () => member.withdrawals.create({ asset: 'USDT', amount: '1', to_address: `T-burst-${i}` })),
      ),
    ];
    await new Promise((r) => setImmediate(r)); // the burst has started: some calls wait in the limiter
    collectObject('limiter mid-burst', limiter);
    collectObject('limiter usage mid-burst', limiter.usage('reads'));
    const results = await Promise.all(burst);
    expect(results.every((r) => r.ok)).toBe(true);
    collectObject('limiter after burst', limiter);
    const badLimiter = await fails('limiter bad quota', () => new MemoryRateLimiter({ quotas: { nope: 1 } as never }));
    expect(badLimiter).toBeInstanceOf(InvalidArgumentError);
    await fails('limiter bad window', () => new MemoryRateLimiter({ windowMs: 0 }));
  });

  it('webhooks: processed, duplicate, failing handler, bad signature, bad bodies', async () => {
    const secret = sandbox.webhooks.secret;
    const verify: WebhookVerifier = (raw, headers) => {
      const expected = Buffer.from(createHmac('sha256', secret).update(raw).digest('hex'));
      const given = Buffer.from(headers['z-signature'] ?? '');
      return given.length === expected.length && timingSafeEqual(given, expected);
    };
    let processed = 0;
    let failedOnce = false;
    const handler: WebhookHandler = createWebhookHandler({
      verify,
      logger: captureLogger('webhooks'),
      onEvent: (event) => {
        if (event.event_type === 'card.status.updated' && !failedOnce) {
          failedOnce = true;
          throw new Error('downstream unavailable');
        }
        processed++;
      },
    });
    const noVerify = createWebhookHandler({ logger: captureLogger('webhooks-noverify'), onEvent: () => undefined });
    const rx = http.createServer(handler);
    await new Promise<void>((resolve) => rx.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(rx.address() as AddressInfo).port}/webhooks`;
    try {
      sandbox.webhooks.register(url);
      const env = await sandbox.webhooks.emit('card.3ds.received', {
        object: 'card',
        id: 'crd_sweep',
        external_member_id: 'sweep-1',
        status: 'received',
        otp_code: OTPS[0],
      });
      await sandbox.webhooks.emit('card.status.updated', {
        object: 'card',
        id: 'crd_sweep',
        external_member_id: 'sweep-1',
        status: 'frozen',
      });
      await sandbox.webhooks.emit(
        'card.3ds.received',
        { object: 'card', id: 'crd_sweep', external_member_id: 'sweep-1', status: 'received', otp_code: OTPS[1] },
        { duplicates: 1 },
      );
      await sandbox.webhooks.flush();
      sandbox.webhooks.unregister();
      expect(processed).toBeGreaterThanOrEqual(3);

      const post = async (label: string, body: string, headers: Record<string, string>): Promise<void> => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
        const text = await res.text();
        record(`webhook-answer:${label}`, `${res.status} ${text}`);
        callsMade++;
      };
      // Bad signature (the right envelope, signed with another key).
      const forged = JSON.stringify({ ...env, event_id: 'evt_forged1', data: { ...env.data, otp_code: OTPS[2] } });
      const forgedSig = createHmac('sha256', 'whsec_attacker_key_0123456789').update(forged).digest('hex');
      webhookSignaturesSent.push(forgedSig);
      await post('bad signature', forged, { 'z-event-id': 'evt_forged1', 'z-event-type': env.event_type, 'z-signature': forgedSig });
      // Signed correctly but malformed: not JSON, wrong data, header mismatch.
      const badJson = `{"event_id":"evt_bad1","data":{"otp_code":"${OTPS[3]}"`;
      const badJsonSig = sandbox.webhooks.sign(badJson);
      webhookSignaturesSent.push(badJsonSig);
      await post('invalid json', badJson, { 'z-event-id': 'evt_bad1', 'z-event-type': 'card.3ds.received', 'z-signature': badJsonSig });
      const badData = JSON.stringify({ ...env, event_id: 'evt_bad2', data: { ...env.data, status: 'weird', otp_code: OTPS[3] } });
      const badDataSig = sandbox.webhooks.sign(badData);
      webhookSignaturesSent.push(badDataSig);
      await post('invalid data', badData, { 'z-event-id': 'evt_bad2', 'z-event-type': env.event_type, 'z-signature': badDataSig });
      const mismatchSig = sandbox.webhooks.sign(JSON.stringify(env));
      webhookSignaturesSent.push(mismatchSig);
      await post('header mismatch', JSON.stringify(env), {
        'z-event-id': 'evt_other',
        'z-event-type': env.event_type,
        'z-signature': mismatchSig,
      });
      await post('no signature', JSON.stringify(env), { 'z-event-id': env.event_id, 'z-event-type': env.event_type });
      // Framework-neutral form: a parsed body instead of raw bytes; a handler without verify.
      const parsed = await handler.handle(env as unknown as string, {
        'z-event-id': env.event_id,
        'z-event-type': env.event_type,
        'z-signature': mismatchSig,
      });
      record('webhook-answer:raw body required', safeJson(parsed.body));
      expect(parsed.status).toBe(500);
      // Data that deviates from the typing is still an event: handed to onEvent and acknowledged.
      const unverified = await noVerify.handle(badData, { 'z-event-id': 'evt_bad2', 'z-event-type': env.event_type });
      record('webhook-answer:no verify, bad data', safeJson(unverified.body));
      expect(unverified.status).toBe(200);
      const unverifiedJunk = await noVerify.handle(badJson, { 'z-event-id': 'evt_bad1', 'z-event-type': 'card.3ds.received' });
      record('webhook-answer:no verify, not json', safeJson(unverifiedJunk.body));
      expect(unverifiedJunk.status).toBe(400);
      // parseEvent throws typed errors.
      await fails('parseEvent invalid json', () => parseEvent(badJson, { 'z-event-id': 'evt_bad1', 'z-event-type': 'card.3ds.received' }));
      await fails('parseEvent invalid data', () =>
        parseEvent(badData, { 'z-event-id': 'evt_bad2', 'z-event-type': env.event_type, 'z-signature': badDataSig }),
      );
      await fails('parseEvent header mismatch', () =>
        parseEvent(JSON.stringify(env), { 'z-event-id': 'evt_other', 'z-event-type': env.event_type }),
      );
      await fails('webhook handler bad options', () => createWebhookHandler({ onEvent: 'nope' as never }));
      await fails('webhook handler bad timeout', () => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 60_000 }));
    } finally {
      sandbox.webhooks.unregister();
      await new Promise<void>((resolve) => {
        rx.closeAllConnections();
        rx.close(() => resolve());
      });
    }
  });

  it('configuration and argument errors never echo a value', async () => {
    const { clientId, apiKey, signingKey } = sandbox.credentials;
    const env = process.env;
    try {
      process.env = {};
      const configs: Array<[string, MerchantClientOptions]> = [
        ['nothing set', {}],
        ['missing signing key', { baseUrl: server.url, clientId, apiKey }],
        ['missing api key', { baseUrl: server.url, clientId, signingKey }],
        ['baseUrl not a url', { baseUrl: `not a url ${apiKey}`, clientId, apiKey, signingKey }],
        ['baseUrl with credentials', { baseUrl: `http://user:${encodeURIComponent(apiKey)}@127.0.0.1:1`, clientId, apiKey, signingKey }],
        ['baseUrl with query', { baseUrl: `https://h.example/?key=${signingKey}`, clientId, apiKey, signingKey }],
        ['baseUrl ftp', { baseUrl: `ftp://${apiKey}.example`, clientId, apiKey, signingKey }],
        ['api key with newline', { baseUrl: server.url, clientId, apiKey: `${apiKey}\n`, signingKey }],
        ['signing key with a space', { baseUrl: server.url, clientId, apiKey, signingKey: ` ${signingKey}` }],
        ['signing key with a control', { baseUrl: server.url, clientId, apiKey, signingKey: `${signingKey}\u0000` }],
        ['timeout negative', { baseUrl: server.url, clientId, apiKey, signingKey, timeoutMs: -1 }],
        ['retries fractional', { baseUrl: server.url, clientId, apiKey, signingKey, maxRetries: 1.5 }],
        ['backoff negative', { baseUrl: server.url, clientId, apiKey, signingKey, backoff: { baseDelayMs: -5 } }],
      ];
      for (const [label, options] of configs) {
        const err = await fails(`config ${label}`, () => new MerchantClient({ ...options, logger: captureLogger('config') }));
        expect(err, label).toBeInstanceOf(InvalidArgumentError);
      }
      process.env = {
        MERCHANT_API_BASE_URL: server.url,
        MERCHANT_API_CLIENT_ID: clientId,
        MERCHANT_API_KEY: apiKey,
        MERCHANT_API_SIGNING_KEY: `${signingKey}\r`,
      };
      expect(await fails('config env signing key with CR', () => new MerchantClient())).toBeInstanceOf(InvalidArgumentError);
      process.env = {
        MERCHANT_API_BASE_URL: server.url,
        MERCHANT_API_CLIENT_ID: clientId,
        MERCHANT_API_KEY: apiKey,
        MERCHANT_API_SIGNING_KEY: signingKey,
        MERCHANT_API_LOG: 'debug',
      };
      const fromEnv = new MerchantClient({ logger: captureLogger('env'), tokenStore: new RecordingTokenStore(), backoff: FAST_BACKOFF });
      clients.push(fromEnv);
      await succeeds('client from env', () =>
        fromEnv.member(memberRef).withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T-env' }).withResponse(),
      );
    } finally {
      process.env = env;
    }

    const member = client.member(memberRef);
    const order = { asset: 'USDT', amount: '1', to_address: 'T-args' } as const;
    const argumentErrors: Array<[string, () => unknown]> = [
      ['member with CRLF', () => client.member(`x\r\nx-api-key: ${apiKey}`)],
      ['member blank', () => client.member('  ')],
      ['idempotency key not a uuid', () => member.withdrawals.create(order, { idempotencyKey: signingKey })],
      ['protected header', () => member.withdrawals.create(order, { headers: { 'x-api-key': apiKey } })],
      ['header with control', () => member.withdrawals.create(order, { headers: { 'x-trace': `${signingKey}\r\nx-evil: 1` } })],
      ['amount malformed', () => member.withdrawals.create({ ...order, amount: '1e5x' })],
      ['raw path malformed', () => client.request({ method: 'GET', path: `v1/${apiKey}` })],
    ];
    for (const [label, fn] of argumentErrors) {
      const err = await fails(`argument ${label}`, fn);
      expect(err, label).toBeInstanceOf(InvalidArgumentError);
    }
  });

  it('no secret appears in any log line, stream, error, result, client, limiter or token store', () => {
    // The objects themselves, inspected and serialised.
    for (const [i, c] of clients.entries()) {
      collectObject(`client ${i}`, c);
      collectObject(`client ${i} member view`, c.member(memberRef));
      collectObject(`client ${i} cards`, c.member(memberRef).cards);
      collectObject(`client ${i} merchant`, c.merchant);
    }
    for (const [i, s] of tokenStores.entries()) collectObject(`token store ${i}`, s);

    const creds = sandbox.credentials;
    const requestHeaders = [...sandbox.requests.map((r) => r.headers), ...proxySeen];
    const tokens = new Set(issuedTokens);
    for (const h of requestHeaders) {
      const t = /^Bearer\s+(\S+)/i.exec(h['x-auth-token'] ?? h['authorization'] ?? '')?.[1];
      if (t) tokens.add(t);
    }
    const signatures = new Set(requestHeaders.flatMap((h) => (h['x-signature'] ? [h['x-signature']] : [])));
    const apiKeysSent = new Set(requestHeaders.flatMap((h) => (h['x-api-key'] ? [h['x-api-key']] : [])));
    const webhookSignatures = new Set([...sandbox.webhooks.deliveries.map((d) => sandbox.webhooks.sign(d.body)), ...webhookSignaturesSent]);

    const secrets: Secret[] = [
      { name: 'apiKey', value: creds.apiKey },
      { name: 'signingKey', value: creds.signingKey },
      { name: 'wrongApiKey', value: wrongApiKey },
      { name: 'webhookSecret', value: sandbox.webhooks.secret },
      ...[...apiKeysSent].map((v) => ({ name: 'x-api-key sent', value: v })),
      ...[...tokens].map((v) => ({ name: 'token', value: v })),
      ...[...signatures].map((v) => ({ name: 'x-signature', value: v })),
      ...[...webhookSignatures].map((v) => ({ name: 'z-signature', value: v })),
      { name: 'PIN', value: PIN, short: true },
      { name: 'wrong PIN', value: WRONG_PIN, short: true },
      { name: 'expiry', value: EXPIRY, short: true },
      { name: 'wrong expiry', value: WRONG_EXPIRY, short: true },
      ...OTPS.map((v) => ({ name: 'OTP', value: v, short: true })),
    ];
    const encoded = new Set(['apiKey', 'signingKey', 'wrongApiKey', 'webhookSecret']);

    // The scanner finds planted secrets (whole, truncated, encoded, as a word) and nothing in clean text.
    const someToken = [...tokens][0]!;
    const someSignature = [...signatures][0]!;
    const planted = [
      { source: 'plant', text: `key=${creds.apiKey}` },
      { source: 'plant', text: `signing ${creds.signingKey.slice(2, 2 + WINDOW)}…` },
      { source: 'plant', text: `b64 ${Buffer.from(creds.signingKey).toString('base64')}` },
      { source: 'plant', text: `hex ${Buffer.from(creds.apiKey).toString('hex')}` },
      { source: 'plant', text: `x-auth-token: Bearer ${someToken}` },
      { source: 'plant', text: `{"x-signature":"${someSignature}"}` },
      { source: 'plant', text: `pin=${PIN}` },
      { source: 'plant', text: `{ otp_code: '${OTPS[0]}' }` },
    ];
    const plantedHits = scan(planted, secrets, encoded);
    expect(plantedHits.map((f) => f.excerpt)).toEqual(planted.map((p) => p.text));
    const clean = [
      {
        source: 'clean',
        text: `MerchantClient { baseUrl: '${server.url}', clientId: '${creds.clientId.slice(0, 4)}***' } req_0123456789abcdef01234567 ${Date.now()} 1${PIN}9 x${OTPS[0]}y`,
      },
    ];
    expect(scan(clean, secrets, encoded)).toEqual([]);

    // The run was not vacuous.
    const levels = new Set(logLines.map((l) => l.level));
    const classes = new Set(errors.map((e) => (e.error as Error).name));
    expect([...levels].sort()).toEqual(['debug', 'error', 'info', 'warn']);
    expect(logLines.length).toBeGreaterThan(100);
    expect(errors.length).toBeGreaterThan(40);
    for (const name of [
      'ApiError',
      'ConnectionError',
      'TimeoutError',
      'AbortError',
      'MalformedResponseError',
      'ResponseValidationError',
      'InvalidArgumentError',
      'WebhookParseError',
    ]) {
      expect(classes, name).toContain(name);
    }
    expect(injected.every((f) => f.hits > 0)).toBe(true);
    expect(tokens.size).toBeGreaterThanOrEqual(4);
    expect(signatures.size).toBeGreaterThan(50);
    expect(sandbox.requests.length).toBeGreaterThan(100);

    const findings = scan(captured, secrets, encoded);
    const report = {
      calls: callsMade,
      succeeded: callsSucceeded,
      errors: errors.length,
      errorClasses: [...classes].sort(),
      faultsInjected: injected.length,
      faultHits: injected.reduce((n, f) => n + f.hits, 0),
      hostileReplies,
      requestsSeenBySimulator: sandbox.requests.length,
      logLines: logLines.length,
      logLevels: Object.fromEntries([...levels].map((l) => [l, logLines.filter((x) => x.level === l).length])),
      capturedTexts: captured.length,
      capturedChars: captured.reduce((n, c) => n + c.text.length, 0),
      secrets: {
        total: secrets.length,
        tokens: tokens.size,
        signatures: signatures.size,
        apiKeysSent: apiKeysSent.size,
        webhookSignatures: webhookSignatures.size,
        short: secrets.filter((s) => s.short).length,
      },
      findings: findings.length,
    };
    if (process.env['SECRETS_SWEEP_REPORT']) sweepReport = report;
    expect(findings, JSON.stringify(findings.slice(0, 10), null, 2)).toEqual([]);
  });
});

afterAll(() => {
  // After the streams are restored: the report is not part of what was scanned.
  if (sweepReport !== undefined) process.stdout.write(`secrets-sweep report: ${JSON.stringify(sweepReport)}\n`);
});

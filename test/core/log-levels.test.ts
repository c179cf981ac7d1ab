/**
 * `logLevel` (and `MERCHANT_API_LOG`): which lines reach the logger at each level, the one line
 * per call at `info`, `console` as the default logger with one line of text per line, and a
 * secrets sweep of everything logged at `debug`, a server echoing secrets included.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, type LogFields, type LogLevelSetting, type MerchantClientOptions } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { API_KEY, apiError, ORDER, SIGNING_KEY, startWireServer, WITHDRAWAL, type WireServer } from '../helpers/wire-server.js';

interface Line {
  level: string;
  message: string;
  fields: LogFields | undefined;
}

/** What @mswjs/interceptors leaves on globalThis while its fetch interceptor is applied (msw 2). */
const FETCH_INTERCEPTOR = Symbol.for('fetch-interceptor');
const g = globalThis as Record<symbol, unknown>;

let server: WireServer;
let lines: Line[];
const recording = {
  debug: (message: string, fields?: LogFields) => void lines.push({ level: 'debug', message, fields }),
  info: (message: string, fields?: LogFields) => void lines.push({ level: 'info', message, fields }),
  warn: (message: string, fields?: LogFields) => void lines.push({ level: 'warn', message, fields }),
  error: (message: string, fields?: LogFields) => void lines.push({ level: 'error', message, fields }),
};

beforeEach(async () => {
  server = await startWireServer();
  lines = [];
  vi.stubEnv('MERCHANT_API_LOG', '');
  // Echoes every secret of the request into its error, as a hostile or broken server could.
  server.on('POST', '/v1/exchange/orders', (req) => {
    const echo = `${API_KEY} ${SIGNING_KEY} ${req.headers['x-auth-token'] ?? ''} ${req.headers['x-signature'] ?? ''}`;
    return {
      ...apiError(400, 'insufficient_balance', { message: `no funds ${echo}`, request_id: `req ${echo}` }),
      headers: { 'x-echo': echo },
    };
  });
  server.on('POST', '/v1/withdrawals', [{ status: 201, body: ORDER }, apiError(502, 'upstream_error'), { status: 201, body: ORDER }]);
});
afterEach(async () => {
  delete g[FETCH_INTERCEPTOR];
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
  await server.close();
});

/**
 * One run of a client: the token exchange and a withdrawal (a call each), a withdrawal answered
 * 502 then 201 (a retry), a failing call; undici named while an interceptor is marked active
 * (msw cannot see it: the error line). Counts of lines per level.
 */
async function run(options: Partial<MerchantClientOptions>): Promise<Record<string, number>> {
  g[FETCH_INTERCEPTOR] = {};
  const client = wireClient(server.url, { logger: recording, transport: 'undici', ...options });
  try {
    await client.member('m').withdrawals.create(WITHDRAWAL);
    await client.member('m').withdrawals.create(WITHDRAWAL);
    await client.request({ method: 'POST', path: '/v1/exchange/orders', body: {} }).catch(() => undefined);
  } finally {
    await client.close();
    delete g[FETCH_INTERCEPTOR];
  }
  const counts: Record<string, number> = { debug: 0, info: 0, warn: 0, error: 0 };
  for (const line of lines) counts[line.level]!++;
  return counts;
}

// Per level: the token exchange, 3 calls, 4 attempts... (debug 5: every attempt), info 4 (one
// per call, the token exchange included), warn 1 (the retry), error 1 (msw cannot see undici).
const ALL = { debug: 5, info: 4, warn: 1, error: 1 };
const EXPECTED: Record<LogLevelSetting, Record<string, number>> = {
  debug: ALL,
  info: { ...ALL, debug: 0 },
  warn: { debug: 0, info: 0, warn: 1, error: 1 },
  error: { debug: 0, info: 0, warn: 0, error: 1 },
  off: { debug: 0, info: 0, warn: 0, error: 0 },
};

describe('lines per level', () => {
  it.each(Object.keys(EXPECTED) as LogLevelSetting[])('logLevel %s', async (level) => {
    expect(await run({ logLevel: level })).toEqual(EXPECTED[level]);
  });

  it('is warn by default', async () => {
    expect(await run({})).toEqual(EXPECTED.warn);
  });

  it('is read from MERCHANT_API_LOG (case and spaces ignored); the option wins over it', async () => {
    vi.stubEnv('MERCHANT_API_LOG', ' Debug ');
    expect(await run({})).toEqual(EXPECTED.debug);
    lines = [];
    vi.stubEnv('MERCHANT_API_LOG', 'info');
    expect(await run({ logLevel: 'error' })).toEqual(EXPECTED.error);
  });

  it('refuses a level it does not know, naming the setting', () => {
    expect(() => wireClient(server.url, { logLevel: 'verbose' as LogLevelSetting })).toThrow(InvalidArgumentError);
    expect(() => wireClient(server.url, { logLevel: 'verbose' as LogLevelSetting })).toThrow(/^logLevel: must be 'off', 'error'/);
    vi.stubEnv('MERCHANT_API_LOG', 'trace');
    expect(() => wireClient(server.url)).toThrow(/^logLevel: MERCHANT_API_LOG must be/);
  });
});

describe('the line per call at info', () => {
  it('says method, route template, status, duration, attempts, request id and key; one line per call', async () => {
    server.on('POST', '/v1/cards/crd_9/unfreeze', {
      status: 200,
      body: { id: 'crd_9', status: 'unfreezing' },
      headers: { 'x-request-id': 'req_unfreeze' },
    });
    const client = wireClient(server.url, { logger: recording, logLevel: 'info' });
    const { response } = await client.member('m').cards.unfreeze('crd_9').withResponse();
    await client.close();
    expect(lines.map((l) => `${l.level} ${l.message} ${String(l.fields?.['endpoint'])}`)).toEqual([
      'info call succeeded connect.token',
      'info call succeeded member.cards.unfreeze',
    ]);
    expect(lines[1]!.fields).toEqual({
      endpoint: 'member.cards.unfreeze',
      method: 'POST',
      route: '/v1/cards/{id}/unfreeze',
      status: 200,
      attempts: 1,
      requestId: 'req_unfreeze',
      idempotencyKey: response.idempotencyKey,
      sent: 'yes',
      durationMs: expect.any(Number) as number,
      replayed: false,
    });
    // The route template, never the filled path (it holds ids), and never the member.
    expect(JSON.stringify(lines)).not.toContain('crd_9');
  });
});

describe('console, the default logger', () => {
  it('gets each line as one line of text (no object argument), and nothing below warn by default', async () => {
    const printed: unknown[][] = [];
    for (const method of ['debug', 'info', 'warn', 'error'] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push([method, ...args]));
    }
    const quiet = wireClient(server.url);
    await quiet.member('m').withdrawals.create(WITHDRAWAL);
    await quiet.close();
    expect(printed).toEqual([]);
    const client = wireClient(server.url, { logLevel: 'info' });
    await client.member('m').withdrawals.create(WITHDRAWAL); // 502, retried, then 201
    await client.close();
    expect(printed.map((p) => p[0])).toEqual(['info', 'warn', 'info']);
    for (const [, ...args] of printed) {
      expect(args).toHaveLength(1);
      expect(args[0]).toMatch(/^\[merchant-stablecoin\] [^\n]+$/);
    }
    expect(printed[2]![1]).toMatch(
      /^\[merchant-stablecoin\] call succeeded endpoint=member\.withdrawals\.create method=POST route=\/v1\/withdrawals status=201 attempts=2 /,
    );
    expect(printed[1]![1]).toMatch(/^\[merchant-stablecoin\] retrying .* reason=upstream_error /);
  });
});

describe('secrets at debug', () => {
  it('no line holds the api key, the signing key, a token or a signature, even when the server echoes them', async () => {
    await run({ logLevel: 'debug' });
    const tokens = server.calls().map((c) => c.headers['x-auth-token']!.slice('Bearer '.length));
    const signatures = server.calls().map((c) => c.headers['x-signature']!);
    expect(tokens.length).toBe(4);
    expect(signatures.length).toBe(4);
    const text = lines.map((l) => `${l.message} ${JSON.stringify(l.fields)}`).join('\n');
    expect(lines.length).toBe(11);
    // The echoing call was logged (its code, its masked request id), without what it echoed.
    expect(text).toContain('insufficient_balance');
    for (const secret of [API_KEY, SIGNING_KEY, ...tokens, ...signatures]) expect(text).not.toContain(secret);
  });
});

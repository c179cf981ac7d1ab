/**
 * How long the client waits before a retry, read on the wire on a frozen clock: the retry's
 * `x-timestamp` is the client's clock when it signed, so it shows the wait to the second without
 * any wall-clock measurement.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { isApiError, type LogFields, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { EPOCH_MS, freezeClock, signedAt, until } from '../helpers/time.js';
import { apiError, startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
let retries: LogFields[];

beforeEach(async () => {
  server = await startWireServer();
  retries = [];
});
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await client?.close();
  await server.close();
});

/**
 * A client with the documented default backoff (0.5 s base, 1 s in progress, 8 s cap), written
 * out so that a change to the defaults shows here, on a clock frozen at `offsetMs` past a whole
 * second.
 */
function frozenClient(offsetMs: number): MerchantClient {
  freezeClock(offsetMs);
  client = wireClient(server.url, {
    backoff: {
      baseDelayMs: 500,
      inProgressDelayMs: 1000,
      maxDelayMs: 8000,
    },
    logger: { warn: (message, fields) => void (message === 'retrying' && retries.push(fields ?? {})) },
  });
  return client;
}

const order = { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '25.50', ledger_scale: 6, to_address: 'T1' };
const create = (c: MerchantClient) => c.member('ext-1').withdrawals.create({ asset: 'USDT', amount: '25.50', to_address: 'T1' });

/**
 * Sends a withdrawal that first gets `first`, lets the client reach its wait, advances the clock
 * by `advanceMs` and returns the seconds (on the frozen clock) at which each attempt was signed.
 */
async function attemptSeconds(first: Reply, advanceMs: number): Promise<number[]> {
  server.on('POST', '/v1/withdrawals', [first, { status: 201, body: order }]);
  const call = create(client);
  await until(() => retries.length === 1);
  await vi.advanceTimersByTimeAsync(advanceMs);
  expect((await call).id).toBe('wdr_1');
  const calls = server.calls();
  expect(calls).toHaveLength(2);
  expect(calls[1]!.headers['x-idempotency-key']).toBe(calls[0]!.headers['x-idempotency-key']);
  return calls.map(signedAt);
}

describe('waits before a retry, on the wire', () => {
  it('idempotency_in_progress: the retry waits at least 1 s', async () => {
    frozenClient(0);
    vi.spyOn(Math, 'random').mockReturnValue(0);
    expect(await attemptSeconds(apiError(409, 'idempotency_in_progress'), 2000)).toEqual([0, 1]);
    expect(retries[0]).toMatchObject({ delayMs: 1000, reason: 'idempotency_in_progress', attempt: 1 });
  });

  it('idempotency_in_progress: the retry waits at most 2 s', async () => {
    frozenClient(1);
    vi.spyOn(Math, 'random').mockReturnValue(1 - Number.EPSILON);
    // Signed at 2.001 s: a wait of 2 s, not 3.
    expect(await attemptSeconds(apiError(409, 'idempotency_in_progress'), 2000)).toEqual([0, 2]);
    expect(retries[0]).toMatchObject({ delayMs: 2000 });
  });

  it('a 502 waits the backoff: 375 ms with the random source in the middle of 250-500 ms', async () => {
    // Frozen at 0.625 s: a wait of 375 ms or more signs the retry in the next second.
    frozenClient(625);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    expect(await attemptSeconds(apiError(502, 'upstream_error'), 375)).toEqual([0, 1]);
    expect(retries[0]).toMatchObject({ delayMs: 375, reason: 'upstream_error' });
  });

  it('a second retry doubles the backoff', async () => {
    frozenClient(250);
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    server.on('POST', '/v1/withdrawals', [apiError(500, 'api_error'), apiError(500, 'api_error'), { status: 201, body: order }]);
    const call = create(client);
    await until(() => retries.length === 1);
    await vi.advanceTimersByTimeAsync(375);
    await until(() => retries.length === 2);
    expect(retries.map((r) => r.delayMs)).toEqual([375, 750]);
    await vi.advanceTimersByTimeAsync(750);
    await call;
    // 0.25 s, then 0.625 s, then 1.375 s.
    expect(server.calls().map(signedAt)).toEqual([0, 0, 1]);
  });
});

describe('Retry-After on a 429', () => {
  it('Retry-After: 60 waits 60 s, not a 1960 date', async () => {
    frozenClient(0);
    const seconds = await attemptSeconds(
      { ...apiError(429, 'rate_limited', { retry_after: 60 }), headers: { 'retry-after': '60' } },
      60_000,
    );
    expect(seconds).toEqual([0, 60]);
  });

  it('Retry-After: 1.25 waits 1.25 s (fractional seconds are seconds too)', async () => {
    // Frozen at 0.8 s: signed at 2.05 s after a wait of 1.25 s; a shorter wait signs it earlier.
    frozenClient(800);
    const seconds = await attemptSeconds({ ...apiError(429, 'rate_limited'), headers: { 'retry-after': '1.25' } }, 1250);
    expect(seconds).toEqual([0, 2]);
  });

  it('Retry-After as an HTTP date waits until that date', async () => {
    frozenClient(0);
    const at = new Date(EPOCH_MS + 30_000).toUTCString();
    expect(await attemptSeconds({ ...apiError(429, 'rate_limited'), headers: { 'retry-after': at } }, 30_000)).toEqual([0, 30]);
  });

  it('without the header, the retry_after of the wrapped envelope is waited', async () => {
    frozenClient(0);
    const wrapped = { status: 429, body: { error: { code: 'rate_limited', message: 'slow down', retry_after: 5 } } };
    expect(await attemptSeconds(wrapped, 5000)).toEqual([0, 5]);
  });

  it('the header wins over the body', async () => {
    frozenClient(0);
    expect(await attemptSeconds({ ...apiError(429, 'rate_limited', { retry_after: 30 }), headers: { 'retry-after': '3' } }, 3000)).toEqual([
      0, 3,
    ]);
  });

  for (const retryAfter of [-5, 'soon']) {
    it(`a body retry_after of ${JSON.stringify(retryAfter)} is ignored: the backoff applies`, async () => {
      frozenClient(625);
      vi.spyOn(Math, 'random').mockReturnValue(0.5);
      expect(await attemptSeconds(apiError(429, 'rate_limited', { retry_after: retryAfter }), 375)).toEqual([0, 1]);
      expect(retries[0]).toMatchObject({ delayMs: 375, reason: 'rate_limited' });
    });
  }

  it('a Retry-After beyond maxRetryAfterMs is raised at once, and the bucket stays paused for the cap', async () => {
    frozenClient(0);
    server.on('POST', '/v1/withdrawals', [
      { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '600' } },
      { status: 201, body: order },
    ]);
    const err = await create(client).catch((e: unknown) => e);
    expect(isApiError(err, 'rate_limited')).toBe(true);
    expect(server.calls()).toHaveLength(1);
    // The next call to the same bucket waits out the 60 s cap, not the 600 s asked.
    const next = create(client);
    await vi.advanceTimersByTimeAsync(60_000);
    await next;
    expect(server.calls().map(signedAt)).toEqual([0, 60]);
  });
});

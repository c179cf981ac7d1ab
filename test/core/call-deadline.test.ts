/**
 * A call's own deadline, `timeoutMs × (maxRetries + 1)` from its start, bounds everything it
 * waits for: the token (a renewal shared with other calls goes on for them), the limiter, a 429
 * pause of its bucket, the backoff, and its last attempt gets only what is left of it
 * (docs/going-to-production.md).
 *
 * Over real loopback sockets on a frozen clock (timers, `Date` and `performance` faked): the
 * servers here never answer unless told to, so each outcome is decided by time the test moves,
 * never by the machine's speed. A call is checked as settled or pending after its I/O has run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, MemoryRateLimiter, TimeoutError, type MerchantClient, type MerchantClientOptions } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { freezeClock, never, until } from '../helpers/time.js';
import { apiError, idempotencyKeysOn, ORDER, startWireServer, WITHDRAWAL, type Reply, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: { data: [] } });
  freezeClock(0);
});
afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await server.close();
});

const SHORT = { timeoutMs: 400, maxRetries: 0 } as const;
const limited = (seconds: number): Reply => ({ ...apiError(429, 'rate_limited'), headers: { 'retry-after': String(seconds) } });
const withdraw = (options?: { timeoutMs?: number; maxRetries?: number }) => client.member('m').withdrawals.create(WITHDRAWAL, options);
const keys = () => idempotencyKeysOn(server, '/v1/withdrawals');

/** A promise's state, readable without awaiting it. */
function track<T>(p: Promise<T>): { readonly settled: boolean; readonly value: T | undefined; readonly error: unknown } {
  const state = { settled: false, value: undefined as T | undefined, error: undefined as unknown };
  p.then(
    (v) => Object.assign(state, { settled: true, value: v }),
    (e: unknown) => Object.assign(state, { settled: true, error: e }),
  );
  return state;
}

/** Lets real I/O and every queued callback run (setImmediate is not faked). */
async function settleIo(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

function clientWith(options: Partial<MerchantClientOptions> = {}): MerchantClient {
  client = wireClient(server.url, options);
  return client;
}

describe('the token: a call waits for it until its own deadline, and the exchange goes on for the others', () => {
  it('{ timeoutMs: 400, maxRetries: 0 } with a token exchange that never answers ends at 400 ms, saying the deadline', async () => {
    let answer!: (reply: Reply) => void;
    server.onToken(() => new Promise<Reply>((resolve) => (answer = resolve)));
    // The exchange's own attempts have 3 s each, three of them: 9 s.
    clientWith({ timeoutMs: 3000 });
    const short = track(withdraw(SHORT));
    const patient = track(client.request({ method: 'GET', path: '/v1/assets' }));
    await until(() => server.tokenExchanges() === 1);

    await vi.advanceTimersByTimeAsync(399);
    await settleIo();
    expect(short.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settleIo();
    expect(short.settled).toBe(true);
    const err = short.error as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(
      "The call's deadline (400 ms: timeoutMs 400 × 1 attempt) passed while waiting for a token (POST /v1/withdrawals). (nothing reached the service: calling again is safe)",
    );
    expect(err.call).toMatchObject({ sent: 'no', attempts: 0 });
    expect(err.idempotencyKey).toBe(err.call?.idempotencyKey);
    expect(err.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    // The exchange went on for the call still waiting: one exchange, its token used.
    expect(patient.settled).toBe(false);
    answer({ body: { auth_token: 'tok_shared', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } });
    await until(() => patient.settled);
    expect(patient.error).toBeUndefined();
    expect(server.tokenExchanges()).toBe(1);
    expect(server.calls().map((c) => `${c.method} ${c.url} ${c.headers['x-auth-token']}`)).toEqual(['GET /v1/assets Bearer tok_shared']);
  });
});

describe('the rate-limit bucket: the limiter and a 429 pause', () => {
  it("a full limiter: the call leaves the queue at its deadline, nothing sent, and the queue holds no one's place", async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const limiter = new MemoryRateLimiter({ quotas: { orders: 1 } });
    clientWith({ limiter });
    await withdraw();
    const second = track(withdraw(SHORT));
    await until(() => limiter.usage('orders').queued === 1);
    await vi.advanceTimersByTimeAsync(400);
    await settleIo();
    expect(second.settled).toBe(true);
    expect(second.error).toBeInstanceOf(TimeoutError);
    expect((second.error as Error).message).toMatch(
      /^The call's deadline \(400 ms: timeoutMs 400 × 1 attempt\) passed while waiting for its rate-limit bucket \(POST \/v1\/withdrawals\)\./,
    );
    expect((second.error as TimeoutError).call?.sent).toBe('no');
    expect(limiter.usage('orders').queued).toBe(0);
    expect(keys()).toHaveLength(1);
  });

  it("a bucket paused by another call's 429 (Retry-After: 60): the call waits only until its deadline", async () => {
    server.on('POST', '/v1/withdrawals', [limited(60), { status: 201, body: ORDER }]);
    clientWith({ maxRetries: 0 });
    await expect(withdraw()).rejects.toMatchObject({ code: 'rate_limited' });
    const second = track(withdraw(SHORT));
    await vi.advanceTimersByTimeAsync(399);
    await settleIo();
    expect(second.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await settleIo();
    expect(second.error).toBeInstanceOf(TimeoutError);
    expect((second.error as Error).message).toContain('passed while waiting for its rate-limit bucket');
    expect(keys()).toHaveLength(1);
  });

  it("a 429 whose Retry-After reaches past the call's deadline ends the call at once with it, and still pauses the bucket", async () => {
    server.on('POST', '/v1/withdrawals', [limited(60), { status: 201, body: ORDER }]);
    clientWith();
    const first = track(withdraw({ timeoutMs: 400, maxRetries: 2 }));
    await until(() => first.settled);
    expect(first.error).toBeInstanceOf(ApiError);
    expect(first.error).toMatchObject({ code: 'rate_limited', call: { sent: 'yes', attempts: 1 } });
    // The pause holds the next call of the bucket: it waits the 60 s.
    const next = track(withdraw());
    await vi.advanceTimersByTimeAsync(59_999);
    await settleIo();
    expect(keys()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => next.settled);
    expect(next.error).toBeUndefined();
    expect(keys()).toHaveLength(2);
  });
});

describe('the backoff and the attempts', () => {
  it('a backoff longer than what is left of the deadline is not slept: the call ends with the failure it had', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(502, 'upstream_error'), { status: 201, body: ORDER }]);
    clientWith({ backoff: { baseDelayMs: 10_000, maxDelayMs: 10_000 } });
    const call = track(withdraw({ timeoutMs: 400, maxRetries: 2 }));
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(ApiError);
    expect(call.error).toMatchObject({ code: 'upstream_error', call: { sent: 'yes', attempts: 1 } });
    expect(keys()).toHaveLength(1);
  });

  it('the last attempt gets what is left of the deadline, not a whole timeoutMs', async () => {
    server.on('POST', '/v1/withdrawals', () => never<Reply>());
    let delayMs = 0;
    clientWith({
      backoff: { baseDelayMs: 200, maxDelayMs: 200 },
      logger: { warn: (message, fields) => void (message === 'retrying' && (delayMs = Number(fields?.['delayMs']))) },
    });
    const call = track(withdraw({ timeoutMs: 400, maxRetries: 1 }));
    await until(() => keys().length === 1);
    await vi.advanceTimersByTimeAsync(400);
    await until(() => delayMs > 0);
    await vi.advanceTimersByTimeAsync(delayMs);
    await until(() => keys().length === 2);
    // 800 ms in all: the second attempt has 400 - delay.
    await vi.advanceTimersByTimeAsync(400 - delayMs - 1);
    await settleIo();
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect((call.error as Error).message).toMatch(/^No complete response in time \(timeoutMs 400 per attempt, 800 ms for the call\)/);
    expect(call.error).toMatchObject({ call: { sent: 'maybe', attempts: 2 } });
    expect(keys()[1]).toBe(keys()[0]);
  });
});

describe('the edges of the deadline', () => {
  it("the token endpoint's window: the exchange waits for its place only until its own deadline", async () => {
    server.onToken(apiError(502, 'upstream_error'));
    clientWith({ timeoutMs: 1500, maxRetries: 1, backoff: { baseDelayMs: 0, maxDelayMs: 0 } });
    // Ten calls, two exchange attempts each: the window's 20 places are taken.
    for (let i = 0; i < 10; i++)
      await expect(client.request({ method: 'GET', path: '/v1/assets' })).rejects.toMatchObject({ code: 'upstream_error' });
    expect(server.tokenExchanges()).toBe(20);
    const late = track(client.request({ method: 'GET', path: '/v1/assets' }).then(() => 'ok'));
    const patient = track(client.request({ method: 'GET', path: '/v1/assets', options: { timeoutMs: 10_000 } }));
    await vi.advanceTimersByTimeAsync(3000);
    await settleIo();
    expect(late.error).toBeInstanceOf(TimeoutError);
    expect((late.error as Error).message).toMatch(
      /^The call's deadline \(3000 ms: timeoutMs 1500 × 2 attempts\) passed while waiting for (a token|its rate-limit bucket) /,
    );
    // The exchange ran on the client's settings: its own deadline ended its wait for the window.
    expect(patient.error).toBeInstanceOf(TimeoutError);
    expect((patient.error as Error).message).toMatch(
      /^The call's deadline \(3000 ms: timeoutMs 1500 × 2 attempts\) passed while waiting for its rate-limit bucket \(POST \/v1\/connect\/token\)\./,
    );
    expect(server.tokenExchanges()).toBe(20);
  });

  it('a repair that outlasts the deadline (a slow token store) ends the call before another attempt', async () => {
    let releaseDelete!: () => void;
    const held = new Promise<void>((resolve) => (releaseDelete = resolve));
    const stored: Array<{ token: string; expiresAt: number }> = [];
    let deleting = false;
    clientWith({
      tokenStore: {
        get: () => stored.at(-1),
        set: (_key, token) => void stored.push(token),
        delete: async () => {
          deleting = true;
          await held;
        },
      },
    });
    server.on('POST', '/v1/withdrawals', apiError(401, 'invalid_token'));
    const call = track(withdraw(SHORT));
    await until(() => deleting);
    await vi.advanceTimersByTimeAsync(400);
    releaseDelete();
    await until(() => call.settled);
    expect(call.error).toBeInstanceOf(TimeoutError);
    expect((call.error as Error).message).toMatch(
      /^The call's deadline \(400 ms: timeoutMs 400 × 1 attempt\) passed before another attempt \(POST \/v1\/withdrawals\)\. \(the call may have executed: retry with idempotency key /,
    );
    expect(keys()).toHaveLength(1);
  });

  it('a Retry-After exactly as long as what is left is not waited: nothing would be left for the retry', async () => {
    server.on('POST', '/v1/withdrawals', [limited(2), { status: 201, body: ORDER }]);
    clientWith();
    const call = track(withdraw({ timeoutMs: 1000, maxRetries: 1 }));
    await until(() => keys().length === 1);
    await settleIo();
    expect(call.settled).toBe(true);
    expect(call.error).toMatchObject({ code: 'rate_limited' });
  });
});

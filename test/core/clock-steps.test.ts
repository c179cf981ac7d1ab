/**
 * A step of the wall clock (NTP, a VM resumed from a snapshot) moves no wait of the client: the
 * 429 pause, the limiter's window, the token endpoint's 20-a-minute window and a token's life are
 * measured on the monotonic clock (`performance.now()`); only what the service sees (signature
 * timestamps, the reading of `expired_at` when a token arrives) uses the wall clock.
 *
 * Over real loopback sockets on a frozen clock: `Date`, `performance` and the timers are faked,
 * so time moves only when the test moves it, and a step of the wall clock is `Date.now` jumping
 * (`vi.setSystemTime`) while the monotonic clock stands still. Nothing here sleeps.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRateLimiter, type MerchantClient, type MerchantClientOptions } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { freezeClock, until } from '../helpers/time.js';
import { apiError, idempotencyKeysOn, ORDER, startWireServer, WITHDRAWAL, type Reply, type WireServer } from '../helpers/wire-server.js';

const HOUR = 3_600_000;

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

/** The wall clock jumps by `ms` (back when negative); the monotonic clock does not move. */
function stepWallClock(ms: number): void {
  const before = performance.now();
  vi.setSystemTime(Date.now() + ms);
  expect(performance.now()).toBe(before);
}

const limited = (seconds: number): Reply => ({ ...apiError(429, 'rate_limited'), headers: { 'retry-after': String(seconds) } });
const withdraw = () => client.member('m').withdrawals.create(WITHDRAWAL);
const read = () => client.request({ method: 'GET', path: '/v1/assets' });
const tokens = (): string[] => server.calls().map((c) => c.headers['x-auth-token']!);
const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A client whose logger says when it is about to wait before a retry. */
function clientWaitingOnRetry(options: Partial<MerchantClientOptions> = {}): { retrying: Promise<void> } {
  let seen!: () => void;
  const retrying = new Promise<void>((resolve) => (seen = resolve));
  client = wireClient(server.url, { ...options, logger: { warn: (message) => void (message === 'retrying' && seen()) } });
  return { retrying };
}

describe('a step back of an hour does not stretch a wait', () => {
  it('a 429 pause (Retry-After: 1): the retry goes one second later, with the same key', async () => {
    server.on('POST', '/v1/withdrawals', [limited(1), { status: 201, body: ORDER }]);
    const { retrying } = clientWaitingOnRetry();
    const call = withdraw();
    await retrying;
    await tick(); // the retry now waits at admission, for the pause its 429 set
    stepWallClock(-HOUR);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await call).id).toBe('wdr_1');
    const keys = idempotencyKeysOn(server, '/v1/withdrawals');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it("a full MemoryRateLimiter window: the next withdrawal goes when the window's minute has passed", async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const limiter = new MemoryRateLimiter({ quotas: { orders: 1 } });
    client = wireClient(server.url, { limiter });
    await withdraw();
    const second = withdraw();
    await until(() => limiter.usage('orders').queued === 1);
    stepWallClock(-HOUR);
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await second).id).toBe('wdr_1');
    expect(server.calls()).toHaveLength(2);
  });

  it('the token endpoint window (20 attempts a minute): the 21st goes when the first is a minute old', async () => {
    server.onToken((_req, n) =>
      n < 20
        ? apiError(502, 'upstream_error')
        : { body: { auth_token: 'tok_late', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } },
    );
    // Room within the call's deadline for the minute's wait.
    client = wireClient(server.url, { maxRetries: 0, timeoutMs: 120_000 });
    for (let i = 0; i < 20; i++) await expect(read()).rejects.toMatchObject({ code: 'upstream_error' });
    const late = read();
    stepWallClock(-HOUR);
    await vi.advanceTimersByTimeAsync(60_000);
    await late;
    expect(server.tokenExchanges()).toBe(21);
    expect(tokens()).toEqual(['Bearer tok_late']);
  });

  it("a token's life: renewed 28 minutes after it arrived, although the wall clock says it has an hour more", async () => {
    let n = 0;
    server.onToken(() => ({
      body: { auth_token: `tok_${++n}`, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    }));
    client = wireClient(server.url);
    await read();
    stepWallClock(-HOUR);
    // 30 minutes less the default 120 s margin.
    await vi.advanceTimersByTimeAsync(28 * 60_000 - 1);
    await read();
    await vi.advanceTimersByTimeAsync(1);
    await read();
    expect(tokens()).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_2']);
  });
});

describe('a step forward of two hours does not cut a wait short', () => {
  it('a full MemoryRateLimiter window: the next withdrawal still waits its minute', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const limiter = new MemoryRateLimiter({ quotas: { orders: 1 } });
    client = wireClient(server.url, { limiter });
    await withdraw();
    stepWallClock(2 * HOUR);
    const second = withdraw();
    // Queued, or (the wall clock's window) already sent: either way without moving time.
    await until(() => limiter.usage('orders').queued === 1 || server.calls().length === 2);
    expect(server.calls()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(60_000);
    await second;
    expect(server.calls()).toHaveLength(2);
  });

  it("a token's life: the token in hand is still used, its 30 minutes run on the monotonic clock", async () => {
    let n = 0;
    server.onToken(() => ({
      body: { auth_token: `tok_${++n}`, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    }));
    client = wireClient(server.url);
    await read();
    stepWallClock(2 * HOUR);
    await read();
    await vi.advanceTimersByTimeAsync(28 * 60_000 - 1);
    await read();
    expect(tokens()).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_1']);
    expect(server.tokenExchanges()).toBe(1);
  });
});

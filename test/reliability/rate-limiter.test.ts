/**
 * MemoryRateLimiter on its own (fake timers: ordering and counts, no wall-clock thresholds), then
 * through the client against a loopback server: what the pipeline asks of any RequestLimiter.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  ApiError,
  InvalidArgumentError,
  MemoryRateLimiter,
  type RateLimitBucket,
  type RequestLimiter,
} from '../../src/index.js';
import { RATE_LIMIT_QUOTAS } from '../../src/facts/rate-limits.js';
import { wireClient } from '../helpers/client.js';
import { advanceWhenIdle, manualClock, useFakeTime } from '../helpers/time.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

/** Lets queued promise callbacks run (fake timers do not advance them). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function track(p: Promise<unknown>): { settled: () => string } {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    (e: unknown) => (state = `rejected:${e instanceof Error ? e.message : String(e)}`),
  );
  return { settled: () => state };
}

describe('MemoryRateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("defaults to the spec's four quotas and validates its options", () => {
    const l = new MemoryRateLimiter();
    for (const b of Object.keys(RATE_LIMIT_QUOTAS) as RateLimitBucket[]) expect(l.usage(b).quota).toBe(RATE_LIMIT_QUOTAS[b]);
    expect(new MemoryRateLimiter({ quotas: { orders: 5 } }).usage('orders').quota).toBe(5);
    expect(() => new MemoryRateLimiter({ quotas: { orders: 0 } })).toThrow(InvalidArgumentError);
    expect(() => new MemoryRateLimiter({ quotas: { orders: 1.5 } })).toThrow(/quotas.orders/);
    expect(() => new MemoryRateLimiter({ quotas: { token: 5 } as never })).toThrow(/quotas.token: is not a bucket/);
    expect(() => new MemoryRateLimiter({ windowMs: 0 })).toThrow(/windowMs/);
    expect(() => new MemoryRateLimiter({ marginMs: -1 })).toThrow(/marginMs/);
  });

  it('admits up to the quota at once, then queues first-in first-out until a slot expires', async () => {
    const l = new MemoryRateLimiter({ quotas: { orders: 3 }, windowMs: 60_000, marginMs: 0 });
    const order: number[] = [];
    const all = Array.from({ length: 7 }, (_, i) => l.acquire('orders').then(() => order.push(i)));
    await flush();
    expect(order).toEqual([0, 1, 2]);
    expect(l.usage('orders')).toMatchObject({ used: 3, inFlight: 3, queued: 4 });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(order).toEqual([0, 1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await Promise.all(all);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('slides: each slot frees one window after its own admission', async () => {
    const l = new MemoryRateLimiter({ quotas: { reads: 2 }, windowMs: 1000, marginMs: 0 });
    await l.acquire('reads');
    await vi.advanceTimersByTimeAsync(400);
    await l.acquire('reads');
    const third = track(l.acquire('reads'));
    await vi.advanceTimersByTimeAsync(599);
    expect(third.settled()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(third.settled()).toBe('resolved');
    const fourth = track(l.acquire('reads'));
    await vi.advanceTimersByTimeAsync(399);
    expect(fourth.settled()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(fourth.settled()).toBe('resolved');
  });

  it('holds an unsettled slot for the margin past the window, a settled one for a window after it ended', async () => {
    const l = new MemoryRateLimiter({ quotas: { deposits: 1 }, windowMs: 1000, marginMs: 500 });
    await l.acquire('deposits');
    // Never settled: window plus margin from admission.
    const next = track(l.acquire('deposits'));
    await vi.advanceTimersByTimeAsync(1499);
    expect(next.settled()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(next.settled()).toBe('resolved');
    // Settled 1.2 s after admission (it queued for a socket, say): held a window from then,
    // which is later than window plus margin from admission.
    await vi.advanceTimersByTimeAsync(1200);
    l.settle('deposits');
    expect(l.usage('deposits')).toMatchObject({ used: 1, inFlight: 0 });
    const after = track(l.acquire('deposits'));
    await vi.advanceTimersByTimeAsync(999);
    expect(after.settled()).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(after.settled()).toBe('resolved');
    // Settled quickly: a window from the end, earlier than window plus margin from admission.
    l.settle('deposits');
    const quick = track(l.acquire('deposits'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(quick.settled()).toBe('resolved');
    // A settle with nothing in flight changes nothing.
    l.settle('reads');
    expect(l.usage('reads').used).toBe(0);
  });

  it('keeps the buckets apart', async () => {
    const l = new MemoryRateLimiter({ quotas: { orders: 1, reads: 1 } });
    await l.acquire('orders');
    const blocked = track(l.acquire('orders'));
    const read = track(l.acquire('reads'));
    const member = track(l.acquire('members_write'));
    await flush();
    expect([blocked.settled(), read.settled(), member.settled()]).toEqual(['pending', 'resolved', 'resolved']);
  });

  it('pause holds every queued and new acquire of that bucket only, and never shortens', async () => {
    const l = new MemoryRateLimiter({ quotas: { orders: 1 }, windowMs: 1000, marginMs: 0 });
    await l.acquire('orders');
    const queued = track(l.acquire('orders'));
    l.pause('orders', 5000);
    l.pause('orders', 100); // shorter: ignored
    const fresh = track(l.acquire('orders'));
    const other = track(l.acquire('reads'));
    await vi.advanceTimersByTimeAsync(4999);
    expect([queued.settled(), fresh.settled(), other.settled()]).toEqual(['pending', 'pending', 'resolved']);
    expect(l.usage('orders').pausedForMs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    // The window had slid long before: the first queued acquire goes, the next one waits a window.
    expect([queued.settled(), fresh.settled()]).toEqual(['resolved', 'pending']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(fresh.settled()).toBe('resolved');
    l.pause('orders', Number.NaN);
    l.pause('orders', -5);
    expect(l.usage('orders').pausedForMs).toBe(0);
  });

  it('an aborted acquire rejects at once with the reason, takes no slot and leaves no timer', async () => {
    const l = new MemoryRateLimiter({ quotas: { orders: 1 }, windowMs: 60_000 });
    await l.acquire('orders');
    const c1 = new AbortController();
    const c2 = new AbortController();
    const first = track(l.acquire('orders', c1.signal));
    const second = track(l.acquire('orders', c2.signal));
    expect(vi.getTimerCount()).toBe(1);
    c1.abort(new Error('caller gave up'));
    await flush();
    expect(first.settled()).toBe('rejected:caller gave up');
    expect(l.usage('orders').queued).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    c2.abort(new Error('also'));
    await flush();
    expect(second.settled()).toBe('rejected:also');
    expect(l.usage('orders')).toMatchObject({ used: 1, queued: 0 });
    expect(vi.getTimerCount()).toBe(0);
    // Already aborted: rejected without queueing.
    await expect(l.acquire('orders', AbortSignal.abort(new Error('before')))).rejects.toThrow('before');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort while paused leaves no timer either, and an admitted waiter keeps no abort listener', async () => {
    const l = new MemoryRateLimiter({ quotas: { reads: 5 } });
    l.pause('reads', 10_000);
    const c = new AbortController();
    const p = track(l.acquire('reads', c.signal));
    expect(vi.getTimerCount()).toBe(1);
    c.abort(new Error('stop'));
    await flush();
    expect(p.settled()).toBe('rejected:stop');
    expect(vi.getTimerCount()).toBe(0);

    const c2 = new AbortController();
    const admitted = l.acquire('reads', c2.signal);
    await vi.advanceTimersByTimeAsync(10_000);
    await admitted;
    // Aborting afterwards is harmless: the waiter is gone and its slot stays counted once.
    c2.abort();
    expect(l.usage('reads').used).toBe(1);
  });

  it('rejects an unknown bucket and shows only usage when inspected', async () => {
    const l = new MemoryRateLimiter();
    await expect(l.acquire('token' as RateLimitBucket)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(l.acquire('__proto__' as RateLimitBucket)).rejects.toBeInstanceOf(InvalidArgumentError);
    await l.acquire('reads');
    const { inspect } = await import('node:util');
    expect(inspect(l)).toBe('MemoryRateLimiter { deposits: 0/60, members_write: 0/300, orders: 0/120, reads: 1/1200 }');
  });
});

/** A limiter that records what the pipeline asks of it. */
class SpyLimiter implements RequestLimiter {
  readonly log: string[] = [];
  block: Promise<void> | undefined;
  fail: Error | undefined;
  #acquired!: () => void;
  /** Resolves when the pipeline first asks for a slot. */
  readonly acquired = new Promise<void>((resolve) => (this.#acquired = resolve));
  async acquire(bucket: RateLimitBucket, signal?: AbortSignal): Promise<void> {
    this.log.push(`acquire:${bucket}`);
    this.#acquired();
    if (this.fail) throw this.fail;
    if (this.block) {
      await new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        void this.block!.then(resolve);
      });
    }
  }
  settle(bucket: RateLimitBucket): void {
    this.log.push(`settle:${bucket}`);
  }
  pause(bucket: RateLimitBucket, ms: number): void {
    this.log.push(`pause:${bucket}:${ms}`);
  }
}

describe('the client and a RequestLimiter', () => {
  let server: WireServer;
  beforeEach(async () => {
    server = await startWireServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('acquires once per attempt (never for the token exchange) and settles each attempt once', async () => {
    const limiter = new SpyLimiter();
    const client = wireClient(server.url, { limiter });
    server.on('POST', '/v1/withdrawals', [
      apiError(502, 'upstream_error'),
      { status: 201, body: { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '1', ledger_scale: 6, to_address: 'T' } },
    ]);
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' });
    await client.assets.list();
    await client.members.create({ external_member_id: 'x' }).catch(() => undefined);
    expect(limiter.log).toEqual([
      'acquire:orders',
      'settle:orders',
      'acquire:orders',
      'settle:orders',
      'acquire:reads',
      'settle:reads',
      'acquire:members_write',
      'settle:members_write',
    ]);
    expect(server.tokenExchanges()).toBe(1);
    await client.close();
  });

  it('a 429 pauses its bucket in the limiter for Retry-After, also when the call gives up', async () => {
    const limiter = new SpyLimiter();
    const client = wireClient(server.url, { limiter, maxRetries: 0 });
    server.on('POST', '/v1/exchange/orders', {
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { code: 'rate_limited', message: 'slow down', retry_after: 7 } },
    });
    const err = await client
      .member('m')
      .exchange.order({})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('rate_limited');
    expect(limiter.log).toEqual(['acquire:orders', 'settle:orders', 'pause:orders:7000']);
    await client.close();
  });

  it("a 429 pauses the client's other calls to that bucket even when the call that got it gives up", async () => {
    // Fake time (timers and Date; sockets stay real): the pause ends only when the test moves
    // time, so which call goes first cannot depend on the machine's speed.
    useFakeTime();
    try {
      const client = wireClient(server.url, { maxRetries: 0 });
      const at: number[] = [];
      server.on('POST', '/v1/exchange/orders', (_req, n) => {
        at.push(Date.now());
        return n === 0
          ? {
              status: 429,
              headers: { 'retry-after': '1' },
              body: { type: 'rate_limit_error', code: 'rate_limited', message: 'x', request_id: 'r', retry_after: 1 },
            }
          : { status: 201, body: { id: 'ex_1' } };
      });
      server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
      await expect(client.member('m').exchange.order({})).rejects.toMatchObject({ code: 'rate_limited' });
      // Another order waits out the pause; a read (another bucket) goes at once.
      const order = client.member('m').exchange.order({});
      await client.assets.list();
      expect(server.calls().map((c) => `${c.method} ${c.url}`)).toEqual(['POST /v1/exchange/orders', 'GET /v1/assets']);
      await vi.advanceTimersByTimeAsync(999);
      expect(server.calls()).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1);
      await order;
      expect(server.calls().map((c) => `${c.method} ${c.url}`)).toEqual([
        'POST /v1/exchange/orders',
        'GET /v1/assets',
        'POST /v1/exchange/orders',
      ]);
      // Retry-After: 1 honoured from the moment the 429 was answered (same clock, to the ms).
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1000);
      await client.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('an abort during a limiter wait rejects with AbortError and nothing is sent or settled', async () => {
    const limiter = new SpyLimiter();
    limiter.block = new Promise(() => undefined);
    const client = wireClient(server.url, { limiter });
    const controller = new AbortController();
    const call = client.member('m').exchange.order({}, { signal: controller.signal });
    await limiter.acquired;
    expect(limiter.log).toEqual(['acquire:orders']);
    controller.abort();
    const err = await call.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.calls()).toHaveLength(0);
    expect(limiter.log).toEqual(['acquire:orders']);
    await client.close();
  });

  it("a limiter's own failure fails the call unsent with that error (not an AbortError)", async () => {
    const limiter = new SpyLimiter();
    limiter.fail = new Error('limiter store down');
    const client = wireClient(server.url, { limiter });
    await expect(client.member('m').exchange.order({})).rejects.toThrow('limiter store down');
    expect(server.calls()).toHaveLength(0);
    await client.close();
  });

  it('a throwing settle never fails the call', async () => {
    const limiter = new SpyLimiter();
    limiter.settle = () => {
      throw new Error('bookkeeping bug');
    };
    const client = wireClient(server.url, { limiter });
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await expect(client.assets.list()).resolves.toMatchObject({ has_more: false });
    await client.close();
  });

  it('with a MemoryRateLimiter, the service never sees more than the quota within one window', async () => {
    // The limiter and the server read one manual clock, moved only while no admitted request is
    // in flight: admission, arrival and settlement of a request happen at the same instant.
    const clock = manualClock();
    const inner = new MemoryRateLimiter({ quotas: { reads: 3 }, windowMs: 300, clock });
    const driver = advanceWhenIdle(clock, () => inner.usage('reads').inFlight === 0);
    const limiter: RequestLimiter = {
      acquire: (bucket, signal) => inner.acquire(bucket, signal),
      settle: (bucket) => {
        inner.settle(bucket);
        driver.poke();
      },
    };
    const client = wireClient(server.url, { limiter });
    const t0 = clock.now();
    const arrivals: number[] = [];
    server.on('GET', '/v1/assets', () => {
      arrivals.push(clock.now() - t0);
      return { body: { data: [], next_cursor: null, has_more: false } };
    });
    await Promise.all(Array.from({ length: 10 }, () => Promise.resolve(client.assets.list())));
    // Three per window of 300 ms, each window starting when the previous requests ended.
    expect(arrivals).toEqual([0, 0, 0, 300, 300, 300, 600, 600, 600, 900]);
    expect(inner.usage('reads')).toMatchObject({ inFlight: 0, queued: 0 });
    await client.close();
  });
});

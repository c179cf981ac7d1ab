import { randomBytes } from 'node:crypto';
import { nonNegativeInt, positiveInt } from '../core/errors/setting-checks.js';
import type { Clock } from '../core/time/clock.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import type { RequestLimiter } from '../core/limits/limiter.js';
import { notABucket, resolveQuotas } from '../core/limits/quotas.js';
import { MemoryRateLimiter } from '../core/limits/rate-limiter.js';
import { sleep } from '../core/time/sleep.js';
import type { RateLimitBucket } from '../facts/endpoint.js';
import { isRateLimitBucket } from '../facts/rate-limits.js';
import { RedisGuard, type RedisStoreOptions } from './connection.js';
import { keyDigest } from './keyspace.js';
import { ACQUIRE, PAUSE } from './scripts.js';

/** Settings of {@link RedisRateLimiter}. */
export interface RedisRateLimiterOptions extends RedisStoreOptions {
  /**
   * The merchant account whose quotas these are, e.g. the client id: the service counts per
   * merchant, so every instance of one merchant must pass the same value, and two merchants
   * sharing a Redis must pass different ones. Only a digest of it appears in key names.
   * Default `'default'`.
   */
  readonly account?: string | undefined;
  /** Requests per window per bucket; defaults are the spec's (deposits 60, members_write 300, orders 120, reads 1200). */
  readonly quotas?: Partial<Record<RateLimitBucket, number>>;
  /** Length of the sliding window in ms (default 60 000: the quotas are per minute). */
  readonly windowMs?: number;
  /**
   * Extra ms each admitted request keeps its slot (default 1000): the service counts a request
   * when it arrives, a little after the fleet let it go, and arrival delays differ.
   */
  readonly marginMs?: number;
  /**
   * Limiter used while Redis is unreachable (default: a {@link MemoryRateLimiter} with the same
   * quotas). It counts this process only; a smaller per-process share avoids 429s meanwhile.
   */
  readonly fallback?: RequestLimiter;
  /**
   * The clock to count on instead of Redis' own (`TIME`): its `now()` goes to the acquire script
   * with each request, its `sleep` paces the waits, and a pause is stored as its end time on it.
   * For tests that drive time themselves (the sandbox simulator's clock, shared by the whole
   * fleet). Every instance sharing the keys must pass the same clock. The default fallback gets
   * it too. Default: none, Redis' clock and real timers.
   */
  readonly clock?: Clock;
}

/**
 * A {@link RequestLimiter} shared by a fleet through Redis: the spec's four buckets (deposits,
 * members_write, orders, reads) as sliding windows counted per merchant across every instance,
 * so that a burst spread over many servers waits instead of drawing 429 `rate_limited`.
 *
 * - Each `acquire` is one Lua script on Redis' own clock: drop admissions older than the window,
 *   admit and count if under the quota, otherwise answer how long to wait (the check and the
 *   count are atomic). Keys: `<prefix>:rate:{<account digest>}:<bucket>` (a sorted set of
 *   admission times) and `...:<bucket>:pause`. A test may pass its own `clock` instead (see
 *   {@link RedisRateLimiterOptions.clock}).
 * - `pause(bucket, ms)` (the client calls it on a 429 with `Retry-After`) sets the shared pause
 *   key with that TTL, which every instance's `acquire` honours. A 429 on a sub-limit (one
 *   member's QR quotes, the bank search) sets only that sub-limit's key,
 *   `...:<bucket>:sub:<digest>:pause`, honoured by the acquires of that sub-limit alone.
 * - If Redis fails or is slow, this process falls back to `fallback` (per-process counting) and
 *   one line is logged. See docs/fleet.md.
 *
 * @example
 * const limiter = new RedisRateLimiter({ redis, account: process.env.MERCHANT_API_CLIENT_ID });
 * const client = new MerchantClient({ limiter, tokenStore: new RedisTokenStore({ redis }) });
 */
export class RedisRateLimiter implements RequestLimiter {
  readonly #guard: RedisGuard;
  readonly #quotas: Readonly<Record<RateLimitBucket, number>>;
  readonly #holdMs: number;
  readonly #keyBase: string;
  readonly #fallback: RequestLimiter;
  readonly #clock: Clock | undefined;
  readonly #instance = randomBytes(6).toString('hex');
  /** Per bucket, the promise the next local waiter queues behind. */
  readonly #tails = new Map<RateLimitBucket, Promise<void>>();
  #seq = 0;

  /** @param options - The Redis client, the merchant account, quotas and window. */
  constructor(options: RedisRateLimiterOptions) {
    this.#guard = new RedisGuard(
      'the rate limiter',
      options,
      "this request was counted in this process's memory only (the fleet-wide count is not shared while Redis refuses it).",
    );
    this.#quotas = resolveQuotas(options.quotas);
    const windowMs = positiveInt('windowMs', options.windowMs, 60_000);
    const marginMs = nonNegativeInt('marginMs', options.marginMs, 1000);
    this.#holdMs = windowMs + marginMs;
    const account = options.account ?? 'default';
    if (typeof account !== 'string' || account === '') throw new InvalidArgumentError('account', 'must be a non-empty string.');
    // The hash tag keeps a bucket's window and pause keys in one Redis Cluster slot.
    this.#keyBase = this.#guard.keys.tagged('rate', keyDigest(account, 16));
    this.#clock = options.clock;
    this.#fallback =
      options.fallback ??
      new MemoryRateLimiter({ quotas: this.#quotas, windowMs, marginMs, ...(options.clock ? { clock: options.clock } : {}) });
  }

  /**
   * Resolves when one request of `bucket` may be sent, and counts it fleet-wide.
   *
   * @param bucket - The request's bucket.
   * @param signal - Aborts the wait: rejects with `signal.reason`, takes no slot.
   */
  async acquire(bucket: RateLimitBucket, signal?: AbortSignal, subKey?: string): Promise<void> {
    if (!isRateLimitBucket(bucket)) throw notABucket();
    if (signal?.aborted) throw signal.reason;
    // One waiter per bucket per process talks to Redis; the others queue here in FIFO order.
    // Without this, hundreds of local waiters would wake together and poll Redis at each free slot.
    const ahead = this.#tails.get(bucket) ?? Promise.resolve();
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    this.#tails.set(bucket, mine);
    try {
      await untilOrAborted(ahead, signal);
      return await this.#acquireShared(bucket, signal, subKey);
    } finally {
      // An aborted waiter still hands over only once those ahead of it are done, keeping order.
      void ahead.then(() => {
        done();
        if (this.#tails.get(bucket) === mine) this.#tails.delete(bucket);
      });
    }
  }

  /** The Redis side of {@link RedisRateLimiter.acquire}: loops on the script until admitted. */
  async #acquireShared(bucket: RateLimitBucket, signal: AbortSignal | undefined, subKey: string | undefined): Promise<void> {
    // A sub-limit's call also honours its own pause key (KEYS[3]); it is counted in its bucket.
    const keys = [this.#key(bucket), `${this.#key(bucket)}:pause`, ...(subKey === undefined ? [] : [this.#subPauseKey(bucket, subKey)])];
    for (;;) {
      const member = `${this.#instance}:${(this.#seq++).toString(36)}`;
      const attempt = this.#guard.run(
        async (redis) => {
          const args = [this.#quotas[bucket], this.#holdMs, member, this.#clock === undefined ? '' : Math.floor(this.#clock.now())];
          const wait = Number(await redis.script(ACQUIRE, keys, args));
          if (!Number.isFinite(wait)) throw new Error('unexpected reply from the acquire script');
          return wait;
        },
        () => undefined,
      );
      const wait = await this.#unlessAborted(attempt, signal, keys[0]!, member);
      if (wait === undefined)
        return subKey === undefined ? this.#fallback.acquire(bucket, signal) : this.#fallback.acquire(bucket, signal, subKey);
      if (!(wait > 0)) return;
      // Head waiters of many instances wake together when a slot frees; jitter spreads them out.
      const pace = wait + Math.floor(Math.random() * 15);
      await (this.#clock === undefined ? sleep(pace, signal) : this.#clock.sleep(pace, signal));
    }
  }

  /**
   * The script's answer, or a rejection with `signal.reason` as soon as the caller aborts. A
   * slot the script granted after the abort is given back, so an aborted acquire takes none.
   */
  #unlessAborted(
    attempt: Promise<number | undefined>,
    signal: AbortSignal | undefined,
    key: string,
    member: string,
  ): Promise<number | undefined> {
    if (signal === undefined) return attempt;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal.reason);
        void attempt.then((wait) => {
          if (wait === 0)
            void this.#guard.run(
              (redis) => redis.call('ZREM', [key], [member]),
              () => undefined,
            );
        });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      attempt.then(
        (wait) => {
          signal.removeEventListener('abort', onAbort);
          resolve(wait);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /**
   * Pauses `bucket` for every instance for `ms` from now (never shortens a longer pause), or
   * with `subKey` only the calls of that sub-limit (one member's QR quotes, the bank search; see
   * {@link RequestLimiter}), so that the bucket's other calls keep flowing across the fleet.
   * The client calls it when the service answered 429 with `Retry-After`. Never throws.
   */
  pause(bucket: RateLimitBucket, ms: number, subKey?: string): void {
    if (!isRateLimitBucket(bucket) || !Number.isFinite(ms) || ms <= 0) return;
    if (subKey === undefined) this.#fallback.pause?.(bucket, ms);
    else this.#fallback.pause?.(bucket, ms, subKey);
    const key = subKey === undefined ? `${this.#key(bucket)}:pause` : this.#subPauseKey(bucket, subKey);
    void this.#guard
      .run(
        (redis) => redis.script(PAUSE, [key], [Math.ceil(ms), this.#clock === undefined ? '' : Math.floor(this.#clock.now())]),
        () => undefined,
      )
      .catch(() => undefined);
  }

  /** The pause key of a sub-limit: a digest, since a sub-key may hold a member id. */
  #subPauseKey(bucket: RateLimitBucket, subKey: string): string {
    return `${this.#key(bucket)}:sub:${keyDigest(subKey, 16)}:pause`;
  }

  #key(bucket: RateLimitBucket): string {
    return `${this.#keyBase}:${bucket}`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisRateLimiter { keys: '${this.#keyBase}:<bucket>', quotas: ${JSON.stringify(this.#quotas)}, degraded: ${this.#guard.degraded} }`;
  }
}

/** Resolves when `ahead` does, or rejects with `signal.reason` as soon as the caller aborts. */
function untilOrAborted(ahead: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return ahead;
  if (signal.aborted) return Promise.reject(signal.reason as unknown);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as unknown);
    signal.addEventListener('abort', onAbort, { once: true });
    void ahead.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}

/** `MemoryRateLimiter`: the in-process limiter, its options, and the queue of acquires it admits. */
import type { RateLimitBucket } from '../../facts/endpoint.js';
import { RATE_LIMIT_BUCKETS } from '../../facts/rate-limits.js';
import { nonNegativeInt, positiveInt } from '../errors/setting-checks.js';
import { systemClock, type Clock } from '../time/clock.js';
import type { RequestLimiter } from './limiter.js';
import { notABucket, resolveQuotas } from './quotas.js';
import { Bucket, subLimitKey, subQuota, type SlotWindow, type Waiter } from './sliding-window.js';

/** Options of {@link MemoryRateLimiter}. */
export interface MemoryRateLimiterOptions {
  /**
   * Requests per window for each bucket. Defaults are the spec's quotas (Limits > Rate limits):
   * deposits 60, members_write 300, orders 120, reads 1200 per minute. Set lower values when
   * several processes share one merchant's quota, or use a shared limiter (see
   * {@link RequestLimiter}).
   */
  readonly quotas?: Partial<Record<RateLimitBucket, number>>;
  /** Length of the sliding window in ms. Default 60 000 (the quotas are per minute). */
  readonly windowMs?: number;
  /**
   * For callers that never report an attempt's end ({@link MemoryRateLimiter.settle}; the
   * client always does): how long past the window an admitted request keeps its slot, covering
   * its transit to the service, which counts it on arrival. Default 1000.
   */
  readonly marginMs?: number;
  /**
   * Where the limiter reads the time and waits: every window, slot, pause and wake-up is measured
   * on it. Default {@link systemClock} (monotonic: a step of the wall clock moves no window, and
   * `setTimeout`). Tests pass a controllable
   * clock, for example one shared with the sandbox simulator, so that the limiter and the service
   * it protects count on the same clock.
   */
  readonly clock?: Clock;
}

/** What one bucket of a {@link MemoryRateLimiter} holds right now (for metrics and tests). */
export interface BucketUsage {
  /** Slots taken and not yet expired: requests in flight plus those settled within the window. */
  readonly used: number;
  /** Requests admitted whose attempt has not settled yet. */
  readonly inFlight: number;
  /** Requests allowed per window. */
  readonly quota: number;
  /** Acquires waiting for a slot. */
  readonly queued: number;
  /** Milliseconds left of a pause set by {@link MemoryRateLimiter.pause} (0 when not paused). */
  readonly pausedForMs: number;
}

/** setTimeout's largest delay; a longer wait is re-armed when this one ends. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A client-side rate limiter for one process: the spec's four buckets (deposits, members_write,
 * orders, reads) as sliding windows, so that a burst waits in this process instead of drawing
 * 429 `rate_limited` from the service. Off by default; install it with the client's `limiter`
 * option.
 *
 * - {@link acquire} resolves at once while the bucket has room, otherwise queues (first in,
 *   first out) until a slot expires. An aborted acquire rejects at once with the signal's
 *   reason, takes no slot and leaves no timer behind.
 * - A slot is held until one window after its attempt ended ({@link settle}, which the client
 *   calls): the service counts a request when it arrives, which is before its response, so the
 *   next request sent in that slot cannot meet the previous one in the service's window, however
 *   long it queued for a socket on the way.
 * - {@link pause} (called by the client after a 429 with `Retry-After`) holds every queued and
 *   future acquire of that bucket until the pause ends; the other buckets keep flowing.
 * - Sub-limits (`subKey`, see {@link RequestLimiter}): one member's QR quotes (30 per window)
 *   and the bank search (300 per window) are counted on their own as well as in their bucket, and
 *   a 429 on them pauses only that sub-limit, never the bucket's other calls. Idle sub-limits are
 *   dropped, so one per member does not accumulate.
 *
 * The counts are per process. Quotas are per merchant on the service, so a fleet of N servers
 * either gives each a share (`quotas`) or plugs a shared {@link RequestLimiter}.
 *
 * @example
 * import { MemoryRateLimiter, MerchantClient } from 'merchant-stablecoin';
 *
 * const client = new MerchantClient({
 *   baseUrl, clientId, apiKey, signingKey,
 *   // The spec's quotas; a process sharing the merchant with 3 others could pass a quarter.
 *   limiter: new MemoryRateLimiter({ quotas: { orders: 120 } }),
 * });
 * // 500 withdrawals at once: sent at most 120 a minute, none answered 429. A call's time in the
 * // queue counts against its deadline (timeoutMs × (maxRetries + 1), 90 s by default): room
 * // for this burst's four minutes.
 * await Promise.all(orders.map((o) => client.member(o.member).withdrawals.create(o.params, { timeoutMs: 100_000 })));
 */
export class MemoryRateLimiter implements RequestLimiter {
  /** The window and margin every bucket of this limiter counts its slots on. */
  readonly #window: SlotWindow;
  readonly #clock: Clock;
  readonly #buckets: Readonly<Record<RateLimitBucket, Bucket>>;
  /** Sub-limits by bucket and sub-key (one member's QR quotes, the bank search). */
  readonly #subs = new Map<string, Bucket>();

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#window = {
      windowMs: positiveInt('windowMs', options.windowMs, 60_000),
      marginMs: nonNegativeInt('marginMs', options.marginMs, 1000),
    };
    const quotas = resolveQuotas(options.quotas);
    const buckets = RATE_LIMIT_BUCKETS.map((b) => [b, new Bucket(quotas[b], this.#window)]);
    this.#buckets = Object.fromEntries(buckets) as Record<RateLimitBucket, Bucket>;
  }

  /**
   * Resolves when one request of `bucket` may be sent, and takes a slot for it.
   *
   * @param bucket - The request's bucket (`bucketOf(method, path)`).
   * @param signal - Ends the wait (the caller's abort, the call's deadline): the promise rejects
   * with `signal.reason` at once.
   */
  acquire(bucket: RateLimitBucket, signal?: AbortSignal, subKey?: string): Promise<void> {
    const b = this.#bucket(bucket);
    if (b === undefined) return Promise.reject(notABucket());
    if (subKey === undefined) return this.#take(b, signal);
    // A sub-limit's call takes a slot of its sub-limit, then of its bucket (both must pass).
    const sub = this.#sub(bucket, subKey);
    return this.#take(sub, signal).then(() =>
      this.#take(b, signal).catch((err: unknown) => {
        sub.inFlight.pop(); // aborted while queued for the bucket: give the sub-limit slot back
        this.#forget(bucket, subKey, sub);
        throw err;
      }),
    );
  }

  #take(b: Bucket, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.#clock.now();
    if (b.queue.length === 0 && b.hasRoom(now)) {
      b.inFlight.push(now);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      let onAbort: (() => void) | undefined;
      if (signal !== undefined) {
        onAbort = (): void => {
          const i = b.queue.indexOf(waiter);
          if (i !== -1) b.queue.splice(i, 1);
          // The queue may now be empty (no timer may stay) or headed by a waiter that fits.
          this.#drain(b);
          reject(signal.reason);
        };
        signal.addEventListener('abort', onAbort, { once: true });
      }
      const waiter: Waiter = { resolve, signal, onAbort };
      b.queue.push(waiter);
      this.#drain(b);
    });
  }

  /**
   * Reports that one admitted attempt of `bucket` has ended (its response arrived, or it failed
   * or was aborted): its slot is then held for one window from now. Attempts are not told apart;
   * the oldest unsettled slot is settled, which keeps the count exact.
   */
  settle(bucket: RateLimitBucket, subKey?: string): void {
    const b = this.#bucket(bucket);
    if (b === undefined) return;
    this.#settleOne(b);
    if (subKey === undefined) return;
    const sub = this.#subs.get(subLimitKey(bucket, subKey));
    if (sub !== undefined) this.#settleOne(sub);
  }

  #settleOne(b: Bucket): void {
    const now = this.#clock.now();
    b.prune(now);
    if (b.inFlight.length === 0) return;
    b.inFlight.shift();
    b.settled.push(now);
    // The next expiry may have moved (earlier or later): re-arm the timer of the queue.
    if (b.queue.length > 0) this.#drain(b);
  }

  /**
   * Holds every queued and future acquire of `bucket` for `ms` from now (never shortens a
   * pause already set). The client calls it when the service answers 429 with `Retry-After`.
   */
  pause(bucket: RateLimitBucket, ms: number, subKey?: string): void {
    const main = this.#bucket(bucket);
    if (main === undefined || !Number.isFinite(ms) || ms <= 0) return;
    // With a sub-limit, only its calls wait: the bucket's other calls keep flowing.
    const b = subKey === undefined ? main : this.#sub(bucket, subKey);
    const until = this.#clock.now() + ms;
    if (until > b.pausedUntil) b.pausedUntil = until;
    if (b.queue.length > 0) this.#drain(b);
  }

  /**
   * Current usage of one bucket, or with `subKey` of one of its sub-limits (see
   * {@link RequestLimiter}; all zero when that sub-limit holds nothing).
   */
  usage(bucket: RateLimitBucket, subKey?: string): BucketUsage {
    const main = this.#bucket(bucket);
    if (main === undefined) throw notABucket();
    const b = subKey === undefined ? main : (this.#subs.get(subLimitKey(bucket, subKey)) ?? new Bucket(subQuota(subKey), this.#window));
    const now = this.#clock.now();
    b.prune(now);
    return {
      used: b.used,
      inFlight: b.inFlight.length,
      quota: b.quota,
      queued: b.queue.length,
      pausedForMs: Math.max(0, b.pausedUntil - now),
    };
  }

  /** The bucket of a sub-limit, made on first use. */
  #sub(bucket: RateLimitBucket, subKey: string): Bucket {
    const key = subLimitKey(bucket, subKey);
    let sub = this.#subs.get(key);
    if (sub === undefined) {
      this.#subs.set(key, (sub = new Bucket(subQuota(subKey), this.#window)));
      this.#sweep();
    }
    return sub;
  }

  /** Drops a sub-limit that holds nothing any more (one per member: memory stays bounded). */
  #forget(bucket: RateLimitBucket, subKey: string, sub: Bucket): void {
    if (sub.isIdle(this.#clock.now())) this.#subs.delete(subLimitKey(bucket, subKey));
  }

  /** Every so often, drops the idle sub-limits. */
  #sweep(): void {
    if (this.#subs.size % 256 !== 0) return;
    const now = this.#clock.now();
    for (const [key, sub] of this.#subs) if (sub.isIdle(now)) this.#subs.delete(key);
  }

  #bucket(name: RateLimitBucket): Bucket | undefined {
    return Object.prototype.hasOwnProperty.call(this.#buckets, name) ? this.#buckets[name] : undefined;
  }

  /** Admits queued waiters that fit now, then sets one timer for the next moment one may fit. */
  #drain(b: Bucket): void {
    if (b.timer !== undefined) {
      b.timer.abort();
      b.timer = undefined;
    }
    const now = this.#clock.now();
    while (b.queue.length > 0 && b.hasRoom(now)) {
      const w = b.queue.shift()!;
      if (w.onAbort !== undefined) w.signal!.removeEventListener('abort', w.onAbort);
      b.inFlight.push(now);
      w.resolve();
    }
    if (b.queue.length === 0) return;
    // Paused: wake when the pause ends. Full: wake when the oldest slot frees.
    const next = now < b.pausedUntil ? b.pausedUntil : b.nextExpiry();
    const timer = new AbortController();
    b.timer = timer;
    this.#clock.sleep(Math.min(MAX_TIMER_MS, Math.max(1, next - now)), timer.signal).then(
      () => {
        if (b.timer !== timer) return;
        b.timer = undefined;
        this.#drain(b);
      },
      // Cancelled: a newer wake-up replaced this one, or the queue emptied.
      () => undefined,
    );
  }

  /** Inspection shows the usage, nothing else. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    const parts = RATE_LIMIT_BUCKETS.map((name) => {
      const u = this.usage(name);
      return `${name}: ${u.used}/${u.quota}${u.queued > 0 ? ` (+${u.queued} queued)` : ''}`;
    });
    return `MemoryRateLimiter { ${parts.join(', ')} }`;
  }
}

import type { RateLimitBucket } from '../../facts/endpoint.js';
import { TOKEN_EXCHANGES_PER_MINUTE } from '../../facts/rate-limits.js';
import type { CallBucket } from './limiter.js';
import { systemClock, type Clock } from '../time/clock.js';
import type { RequestLimiter } from './limiter.js';

const MINUTE_MS = 60_000;

/**
 * The signal a wait at the gate ends on (the caller's abort, the call's deadline), asked for only
 * when the gate has to wait or hand it to a limiter: a call that passes straight through makes
 * no timer and no controller.
 */
type WaitSignal = () => AbortSignal | undefined;

/** The key of a pause: the bucket, or one of its sub-limits. */
function pauseKey(bucket: CallBucket, subKey: string | undefined): string {
  return subKey === undefined ? bucket : `${bucket}\u0000${subKey}`;
}

/**
 * Admission of attempts per rate-limit bucket: the pauses a 429 imposes on every call of its
 * bucket (not only the one that got it), then the optional limiter's slot. The token exchange has
 * its own quota (20 a minute): every one of its attempts, retries included, takes a place in
 * this process's window, so that no renewal can storm the endpoint.
 */
export class BucketGate {
  readonly #limiter: RequestLimiter | undefined;
  readonly #clock: Clock;
  /** Pause keys (a bucket, or a bucket's sub-limit) paused by a 429 until the given local time (ms). */
  readonly #pausedUntil = new Map<string, number>();
  /** Start times of this process's token exchange attempts in the last minute, oldest first. */
  readonly #tokenAttempts: number[] = [];

  constructor(limiter: RequestLimiter | undefined, clock: Clock = systemClock) {
    this.#limiter = limiter;
    this.#clock = clock;
  }

  /**
   * Pauses every call of `bucket` for `ms` (never shortening a longer pause), or with `subKey`
   * only the calls of that sub-limit (one member's QR quotes, the bank search), and tells the
   * limiter.
   */
  pause(bucket: CallBucket, ms: number, subKey?: string): void {
    const key = pauseKey(bucket, subKey);
    const until = this.#clock.now() + ms;
    this.#pausedUntil.set(key, Math.max(this.#pausedUntil.get(key) ?? 0, until));
    if (bucket === 'token' || this.#limiter?.pause === undefined) return;
    if (subKey === undefined) this.#limiter.pause(bucket, ms);
    else this.#limiter.pause(bucket, ms, subKey);
  }

  /** Waits out the pause of `key`; says whether there was one. */
  async #waitPause(key: string, signal: WaitSignal): Promise<boolean> {
    let paused = false;
    // Re-read after each sleep: a later 429 may have extended the pause, and a timer may fire a
    // millisecond early; Retry-After is honoured to the millisecond.
    for (let until = this.#pausedUntil.get(key); until !== undefined; until = this.#pausedUntil.get(key)) {
      const wait = until - this.#clock.now();
      if (wait <= 0) {
        this.#pausedUntil.delete(key);
        break;
      }
      paused = true;
      await this.#clock.sleep(wait, signal());
    }
    return paused;
  }

  /**
   * Waits out the bucket's pause, then takes a limiter slot (the token endpoint's window for the
   * token exchange). Says whether a slot was taken (the caller settles it when the attempt ends)
   * and whether the call had to wait for a pause. Rejects with the signal's reason on abort, or
   * with the limiter's own error.
   */
  async admit(bucket: CallBucket, signal: WaitSignal, subKey?: string): Promise<{ readonly slotTaken: boolean; readonly paused: boolean }> {
    // A sub-limit's call counts against its bucket too: it waits out both pauses.
    let paused = await this.#waitPause(bucket, signal);
    if (subKey !== undefined) {
      paused = (await this.#waitPause(pauseKey(bucket, subKey), signal)) || paused;
      paused = (await this.#waitPause(bucket, signal)) || paused;
    }
    if (bucket === 'token') {
      await this.#tokenSlot(signal);
      return { slotTaken: false, paused };
    }
    if (this.#limiter === undefined) return { slotTaken: false, paused };
    const s = signal();
    await (subKey === undefined ? this.#limiter.acquire(bucket, s) : this.#limiter.acquire(bucket, s, subKey));
    return { slotTaken: true, paused };
  }

  /** Waits for a place among the token endpoint's 20 attempts a minute, and takes it. */
  async #tokenSlot(signal: WaitSignal): Promise<void> {
    const window = this.#tokenAttempts;
    for (;;) {
      const now = this.#clock.now();
      while (window.length > 0 && window[0]! <= now - MINUTE_MS) window.shift();
      if (window.length < TOKEN_EXCHANGES_PER_MINUTE) break;
      await this.#clock.sleep(window[0]! + MINUTE_MS - now, signal());
    }
    window.push(this.#clock.now());
  }

  /** Token exchange attempts this process made in the last minute (for diagnostics and tests). */
  get tokenAttemptsLastMinute(): number {
    const now = this.#clock.now();
    return this.#tokenAttempts.filter((t) => t > now - MINUTE_MS).length;
  }

  /** Tells the limiter that an attempt it admitted has ended; a faulty limiter cannot fail the call. */
  settle(bucket: RateLimitBucket, subKey?: string): void {
    try {
      if (subKey === undefined) this.#limiter?.settle?.(bucket);
      else this.#limiter?.settle?.(bucket, subKey);
    } catch {
      // The limiter's bookkeeping must never fail a payment.
    }
  }
}

/**
 * The sandbox's two clocks.
 *
 * - The business clock (`now`, `advance`, `set`, `freeze`, `unfreeze`): what tests move. Every
 *   business rule reads it: token lifetime (30 minutes), the 24-hour idempotency window, the 4-hour
 *   reconfirmation window and its refunds, the card activation lock, daily withdrawal limits,
 *   rate-limit windows, cursor expiry, QR quote memos, timestamps in answers and events.
 * - The signature clock (`signatureNow`): real time plus an explicit skew (`skewSignatures`).
 *   Request signatures are checked against it (the ±300 s timestamp window and the 5-minute
 *   nonce window), and the `Date` response header and the token's `expired_at` are told on it,
 *   because a client in any language signs with its own wall clock. Moving business time by
 *   days therefore never makes a signature wrong (it expires tokens, which a client renews);
 *   `timestamp_out_of_range` is tested by skewing the signature clock on purpose.
 */
export interface SandboxClock {
  /** Current business time in Unix milliseconds. */
  now(): number;
  /** Moves business time forward (or back, with a negative value) by `ms`. Signatures are unaffected. */
  advance(ms: number): void;
  /** Sets business time to `ms` (Unix milliseconds); it keeps flowing from there unless frozen. */
  set(ms: number): void;
  /** Stops business time at `ms` (default: now) until `advance`, `set` or `unfreeze`. */
  freeze(ms?: number): void;
  /** Lets frozen business time flow again from where it stopped. */
  unfreeze(): void;
  /**
   * The signature clock in Unix milliseconds: real time (`Date.now()`) plus
   * {@link SandboxClock.signatureSkewMs}. Signature timestamps (±300 s) and nonces (5 minutes)
   * are checked against it; the `Date` header and the token's `expired_at` follow it.
   */
  signatureNow(): number;
  /** How far the signature clock is set from real time, in ms (0 unless {@link SandboxClock.skewSignatures} was called). */
  readonly signatureSkewMs: number;
  /**
   * Sets the signature clock `ms` milliseconds away from real time (positive: ahead, negative:
   * behind, 0: back to real time), so that clients signing with their own clock meet
   * `timestamp_out_of_range` beyond 300 s. Business time is unaffected. `reset()` sets it to 0.
   */
  skewSignatures(ms: number): void;
}

/** Internal clock with a change hook, so time-driven state (expiries) is swept when moved. */
export interface InternalClock extends SandboxClock {
  onChange(listener: () => void): void;
}

/**
 * Creates the two clocks. Business time follows `source` (default `Date.now`) plus an offset,
 * so tests can move it without fake timers and without touching the process clock; the
 * signature clock follows the process clock, which is what clients sign with.
 */
export function createClock(source: () => number = Date.now): InternalClock {
  let offset = 0;
  let frozenAt: number | undefined;
  let skew = 0;
  const listeners: Array<() => void> = [];
  const changed = (): void => {
    for (const l of listeners) l();
  };
  const now = (): number => frozenAt ?? source() + offset;
  return {
    now,
    advance(ms) {
      if (frozenAt !== undefined) frozenAt += ms;
      else offset += ms;
      changed();
    },
    set(ms) {
      if (frozenAt !== undefined) frozenAt = ms;
      else offset = ms - source();
      changed();
    },
    freeze(ms) {
      frozenAt = ms ?? now();
      changed();
    },
    unfreeze() {
      if (frozenAt === undefined) return;
      offset = frozenAt - source();
      frozenAt = undefined;
    },
    // Wall-clock time on purpose: it is what a client's signature carries.
    signatureNow: () => Date.now() + skew,
    get signatureSkewMs() {
      return skew;
    },
    skewSignatures(ms) {
      if (!Number.isFinite(ms)) throw new Error('sandbox: the signature skew must be a finite number of milliseconds');
      skew = Math.trunc(ms);
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

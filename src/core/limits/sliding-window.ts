/** One bucket's sliding window of slots: what it holds, when a slot expires, whether one is free. */
import type { RateLimitBucket } from '../../facts/endpoint.js';
import { SUB_LIMIT_QUOTAS } from '../../facts/rate-limits.js';

/** An acquire queued for a slot, with the abort listener to remove once it is admitted. */
export interface Waiter {
  /** Admits the acquire (its slot is already taken). */
  readonly resolve: () => void;
  /** The acquire's signal, when it has one. */
  readonly signal: AbortSignal | undefined;
  /** The listener on `signal` that drops the waiter from the queue. */
  readonly onAbort: (() => void) | undefined;
}

/** How long a slot is held: one window, plus the margin for an admission never settled. */
export interface SlotWindow {
  /** Length of the sliding window in ms. */
  readonly windowMs: number;
  /** How long past the window an unsettled admission keeps its slot (its transit to the service). */
  readonly marginMs: number;
}

/**
 * One bucket's slots. A slot is taken by an admission and expires one window after the moment
 * the service may last have counted its request: the attempt's end when the caller settles it
 * (the service counts a request on arrival, which precedes the response), else admission plus
 * the margin. Both lists are in time order, so expiry is checked at their heads.
 */
export class Bucket {
  /** Admission times of attempts not yet settled, oldest first. */
  readonly inFlight: number[] = [];
  /** Settlement times of attempts, oldest first. */
  readonly settled: number[] = [];
  /** Acquires waiting for a slot, first in first out. */
  readonly queue: Waiter[] = [];
  /** No admission before this time (a 429's pause). */
  pausedUntil = 0;
  /** Cancels the one pending wake-up of the queue (its sleep on the clock), if any. */
  timer: AbortController | undefined;

  constructor(
    readonly quota: number,
    readonly window: SlotWindow,
  ) {}

  /** Slots taken and not yet expired (as of the last prune). */
  get used(): number {
    return this.inFlight.length + this.settled.length;
  }

  /** Drops the slots expired at `now`. */
  prune(now: number): void {
    dropExpired(this.inFlight, now - this.window.windowMs - this.window.marginMs);
    dropExpired(this.settled, now - this.window.windowMs);
  }

  /** Whether an acquire may take a slot at `now`: not paused, and under the quota once pruned. */
  hasRoom(now: number): boolean {
    if (now < this.pausedUntil) return false;
    this.prune(now);
    return this.used < this.quota;
  }

  /** Whether the bucket holds nothing at `now`: no slot, no waiter, no pause. */
  isIdle(now: number): boolean {
    this.prune(now);
    return this.used === 0 && this.queue.length === 0 && now >= this.pausedUntil;
  }

  /** When the next slot frees (the bucket is full and pruned). */
  nextExpiry(): number {
    const a = this.inFlight.length > 0 ? this.inFlight[0]! + this.window.windowMs + this.window.marginMs : Infinity;
    const s = this.settled.length > 0 ? this.settled[0]! + this.window.windowMs : Infinity;
    return Math.min(a, s);
  }
}

/** The key of a sub-limit among a limiter's sub-limits (one bucket, one sub-key). */
export function subLimitKey(bucket: RateLimitBucket, subKey: string): string {
  return `${bucket}\u0000${subKey}`;
}

/** The quota of a sub-limit by its name (the part before `:`); unknown names only pause. */
export function subQuota(subKey: string): number {
  const name = subKey.split(':')[0]!;
  return Object.hasOwn(SUB_LIMIT_QUOTAS, name) ? SUB_LIMIT_QUOTAS[name as keyof typeof SUB_LIMIT_QUOTAS] : Number.MAX_SAFE_INTEGER;
}

/** Drops the leading entries of an ascending list that are at or before `cutoff`. */
function dropExpired(list: number[], cutoff: number): void {
  let n = 0;
  while (n < list.length && list[n]! <= cutoff) n++;
  if (n > 0) list.splice(0, n);
}

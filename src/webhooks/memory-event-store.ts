import { InvalidArgumentError } from '../core/errors/errors.js';
import type { ClaimResult, EventStore } from './event-store.js';

/** Settings of {@link MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** How long a completed event id is remembered, in ms (default 72 hours). */
  readonly retentionMs?: number;
  /**
   * Bound on the completed ids held (default 100 000). In-flight claims are never dropped and do
   * not count against it. Past the bound, expired ids go first, then the oldest completed ones.
   */
  readonly maxEntries?: number;
  /**
   * Clock in ms for leases and retention (default `performance.now()`, monotonic: a wall-clock
   * step never expires a lease early nor keeps one for hours). For tests.
   */
  readonly now?: () => number;
}

interface Entry {
  readonly state: 'in_progress' | 'completed';
  readonly expiresAt: number;
}

/**
 * The default {@link EventStore}: in the memory of one process.
 *
 * - An in-flight claim is never evicted: it stays until `complete`, `release`, or the end of its
 *   lease, so a duplicate delivery during processing always gets `in_progress` (never a second
 *   concurrent `onEvent`).
 * - A completed id is kept for `retentionMs`, so a redelivery within that time is a `duplicate`.
 * - Memory is bounded by `maxEntries` completed ids: when more are held, expired ones are dropped
 *   first, then the oldest completed ones (by completion time; a duplicate delivery does not
 *   refresh them). Size it to the event rate times the retention.
 *
 * Suits a single receiver process. Its memory is lost on restart and is not shared: a fleet of
 * receivers needs a shared store with the contract of {@link EventStore}.
 */
export class MemoryEventStore implements EventStore {
  /** In-flight claims, by id. */
  readonly #claims = new Map<string, Entry>();
  /** Completed ids in completion order (Map order is insertion order). */
  readonly #completed = new Map<string, Entry>();
  readonly #retentionMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** @param options - Retention, size bound and clock. */
  constructor(options: MemoryEventStoreOptions = {}) {
    this.#retentionMs = options.retentionMs ?? 72 * 60 * 60 * 1000;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#now = options.now ?? (() => performance.now());
    if (!(this.#retentionMs > 0)) throw new InvalidArgumentError('retentionMs', 'must be a positive number of milliseconds.');
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1)
      throw new InvalidArgumentError('maxEntries', 'must be a positive integer.');
  }

  /** {@inheritDoc EventStore.claim} */
  claim(eventId: string, ttlMs: number): ClaimResult {
    const now = this.#now();
    const done = this.#completed.get(eventId);
    if (done !== undefined) {
      if (done.expiresAt > now) return 'duplicate';
      this.#completed.delete(eventId);
    }
    const claim = this.#claims.get(eventId);
    if (claim !== undefined && claim.expiresAt > now) return 'in_progress';
    this.#claims.delete(eventId); // re-inserted at the end: claims stay in expiry order
    this.#claims.set(eventId, { state: 'in_progress', expiresAt: now + ttlMs });
    this.#dropExpiredClaims(now);
    return 'claimed';
  }

  /** {@inheritDoc EventStore.complete} */
  complete(eventId: string): void {
    const now = this.#now();
    this.#claims.delete(eventId);
    this.#completed.delete(eventId);
    this.#completed.set(eventId, { state: 'completed', expiresAt: now + this.#retentionMs });
    this.#bound(now);
  }

  /** {@inheritDoc EventStore.release} */
  release(eventId: string): void {
    this.#claims.delete(eventId);
  }

  /** Number of ids held: in-flight claims plus completed ids (expired ones until dropped). */
  get size(): number {
    return this.#claims.size + this.#completed.size;
  }

  #bound(now: number): void {
    if (this.#completed.size <= this.#maxEntries) return;
    // Completion order is expiry order (one retention for all): expired ids are at the front.
    for (const [id, entry] of this.#completed) {
      if (this.#completed.size <= this.#maxEntries && entry.expiresAt > now) break;
      this.#completed.delete(id);
    }
  }

  /** Expired leases (a crashed or abandoned attempt) are dropped lazily, a few per claim. */
  #dropExpiredClaims(now: number): void {
    let checked = 0;
    for (const [id, entry] of this.#claims) {
      if (++checked > 8) break;
      if (entry.expiresAt <= now) this.#claims.delete(id);
    }
  }
}

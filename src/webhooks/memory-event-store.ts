import { InvalidArgumentError } from '../core/errors.js';
import type { ClaimResult, EventStore } from './event-store.js';

/** Settings of {@link MemoryEventStore}. */
export interface MemoryEventStoreOptions {
  /** How long a completed event id is remembered, in ms (default 72 hours). */
  readonly retentionMs?: number;
  /** Maximum ids held; the least recently touched are evicted first (default 10 000). */
  readonly maxEntries?: number;
  /** Clock in ms (default `Date.now`), for tests. */
  readonly now?: () => number;
}

interface Entry {
  state: 'in_progress' | 'completed';
  expiresAt: number;
}

/**
 * The default {@link EventStore}: in the memory of one process, with a TTL and a size bound
 * (least recently touched ids are evicted first, expired ones before any other).
 *
 * Suits a single receiver process. Its memory is lost on restart and is not shared: a fleet of
 * receivers needs a shared store with the contract of {@link EventStore}.
 */
export class MemoryEventStore implements EventStore {
  readonly #entries = new Map<string, Entry>();
  readonly #retentionMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  /** @param options - Retention, size bound and clock. */
  constructor(options: MemoryEventStoreOptions = {}) {
    this.#retentionMs = options.retentionMs ?? 72 * 60 * 60 * 1000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
    if (!(this.#retentionMs > 0)) throw new InvalidArgumentError('retentionMs', 'must be a positive number of milliseconds.');
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1)
      throw new InvalidArgumentError('maxEntries', 'must be a positive integer.');
  }

  /** {@inheritDoc EventStore.claim} */
  claim(eventId: string, ttlMs: number): ClaimResult {
    const now = this.#now();
    const entry = this.#entries.get(eventId);
    if (entry !== undefined && entry.expiresAt > now) {
      this.#touch(eventId, entry);
      return entry.state === 'completed' ? 'duplicate' : 'in_progress';
    }
    this.#set(eventId, { state: 'in_progress', expiresAt: now + ttlMs });
    return 'claimed';
  }

  /** {@inheritDoc EventStore.complete} */
  complete(eventId: string): void {
    this.#set(eventId, { state: 'completed', expiresAt: this.#now() + this.#retentionMs });
  }

  /** {@inheritDoc EventStore.release} */
  release(eventId: string): void {
    if (this.#entries.get(eventId)?.state === 'in_progress') this.#entries.delete(eventId);
  }

  /** Number of ids held (expired ones included until evicted). */
  get size(): number {
    return this.#entries.size;
  }

  #touch(eventId: string, entry: Entry): void {
    // Map order is insertion order: re-inserting moves the id to the most recent end.
    this.#entries.delete(eventId);
    this.#entries.set(eventId, entry);
  }

  #set(eventId: string, entry: Entry): void {
    this.#touch(eventId, entry);
    if (this.#entries.size <= this.#maxEntries) return;
    const now = this.#now();
    for (const [id, e] of this.#entries) if (e.expiresAt <= now) this.#entries.delete(id);
    for (const id of this.#entries.keys()) {
      if (this.#entries.size <= this.#maxEntries) break;
      this.#entries.delete(id);
    }
  }
}

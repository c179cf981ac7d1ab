import type { PayoutRecord } from './record.js';
import { afterCursor, matchesQuery, type PayoutCreated, type PayoutListQuery, type PayoutPage, type PayoutStore } from './store.js';

/** Options of {@link MemoryPayoutStore}. */
export interface MemoryPayoutStoreOptions {
  /** The store's clock in ms (default `performance.now()`, monotonic): a test steps it to expire leases. */
  readonly now?: () => number;
}

/**
 * A {@link PayoutStore} in this process's memory: for tests and for seeing the workflow work. It
 * survives no crash of the process; a test simulates one by dropping a workflow and starting
 * another over the same store. Records are copied in and out, as a real store would.
 */
export class MemoryPayoutStore implements PayoutStore {
  readonly #records = new Map<string, string>();
  readonly #now: () => number;

  /** An empty store. */
  constructor(options: MemoryPayoutStoreOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  /** Stores the record unless its reference exists. */
  create(record: PayoutRecord): Promise<PayoutCreated> {
    const stored = this.#records.get(record.reference);
    if (stored !== undefined) return Promise.resolve({ created: false, record: JSON.parse(stored) as PayoutRecord });
    this.#records.set(record.reference, JSON.stringify(record));
    return Promise.resolve({ created: true, record: JSON.parse(JSON.stringify(record)) as PayoutRecord });
  }

  /** The stored record, or undefined. */
  get(reference: string): Promise<PayoutRecord | undefined> {
    const stored = this.#records.get(reference);
    return Promise.resolve(stored === undefined ? undefined : (JSON.parse(stored) as PayoutRecord));
  }

  /** Replaces the record when the stored version is one below `next.version`. */
  replace(next: PayoutRecord): Promise<boolean> {
    const stored = this.#records.get(next.reference);
    if (stored === undefined || (JSON.parse(stored) as PayoutRecord).version !== next.version - 1) return Promise.resolve(false);
    this.#records.set(next.reference, JSON.stringify(next));
    return Promise.resolve(true);
  }

  /** A page of records, oldest first. */
  list(query: PayoutListQuery): Promise<PayoutPage> {
    const limit = Math.max(1, Math.floor(query.limit));
    const all = [...this.#records.values()]
      .map((s) => JSON.parse(s) as PayoutRecord)
      .filter((r) => matchesQuery(r, query) && afterCursor(r, query.after))
      .sort((a, b) => a.createdAt - b.createdAt || (a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0));
    const records = all.slice(0, limit);
    const last = records.at(-1);
    const next = all.length > limit && last !== undefined ? { createdAt: last.createdAt, reference: last.reference } : undefined;
    return Promise.resolve({ records, next });
  }

  /** The store's clock. */
  now(): Promise<number> {
    return Promise.resolve(this.#now());
  }
}

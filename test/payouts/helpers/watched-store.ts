/**
 * A PayoutStore around a real one that sees every write (create, replace) before and after it
 * lands: the crash tests stop a worker there (a thrown {@link Crash} in process, SIGKILL in a
 * child), and read the writes that landed, in order, to check that a payout ended once.
 */
import type { PayoutRecord } from '../../../src/payouts/record.js';
import type { PayoutListQuery, PayoutPage, PayoutStore } from '../../../src/payouts/store.js';

/** Which side of a write (or a call, or a payment) a crash point is on. */
export type Side = 'before' | 'after';

/** One write as the watcher sees it. */
export interface StoreWrite {
  /** 1 for the first write through this store object, counted over create and replace. */
  readonly n: number;
  readonly op: 'create' | 'replace';
  /** The record written. */
  readonly record: PayoutRecord;
  readonly side: Side;
}

/** The error of a simulated crash: what the dead worker's pending work rejects with. */
export class Crash extends Error {
  constructor(where: string) {
    super(`simulated crash ${where}`);
    this.name = 'Crash';
  }
}

/**
 * One worker's life: once `crash()` is called everything that worker touches (its store, its
 * fetch, its pay function) rejects with {@link Crash}, so nothing it does afterwards lands: the
 * in-process stand-in for SIGKILL.
 */
export class CrashSwitch {
  #where: string | undefined;

  /** Whether the worker is dead. */
  get crashed(): boolean {
    return this.#where !== undefined;
  }

  /** Where it died, or undefined. */
  get where(): string | undefined {
    return this.#where;
  }

  /** Kills the worker here; the returned error is what the caller throws. */
  crash(where: string): Crash {
    this.#where ??= where;
    return new Crash(where);
  }

  /** Rejects with {@link Crash} when the worker is dead. */
  check(): void {
    if (this.#where !== undefined) throw new Crash(`(after dying ${this.#where})`);
  }
}

/** Sees each write on both sides; may throw (a crash) or never return (a process about to die). */
export type WriteWatcher = (write: StoreWrite) => void | Promise<void>;

/** A store that passes everything to `inner`, showing the watcher each write. */
export class WatchedStore implements PayoutStore {
  readonly #inner: PayoutStore;
  readonly #watch: WriteWatcher;
  readonly #life: CrashSwitch | undefined;
  #writes = 0;
  /** Every record that landed through this object (created, or replaced with `true`), in order. */
  readonly landed: PayoutRecord[] = [];

  constructor(inner: PayoutStore, watch: WriteWatcher = () => undefined, life?: CrashSwitch) {
    this.#inner = inner;
    this.#watch = watch;
    this.#life = life;
  }

  /** Writes attempted so far. */
  get writes(): number {
    return this.#writes;
  }

  async create(record: PayoutRecord): Promise<{ readonly created: boolean; readonly record: PayoutRecord }> {
    this.#life?.check();
    const n = ++this.#writes;
    await this.#watch({ n, op: 'create', record, side: 'before' });
    this.#life?.check();
    const result = await this.#inner.create(record);
    if (result.created) this.landed.push(record);
    await this.#watch({ n, op: 'create', record, side: 'after' });
    this.#life?.check();
    return result;
  }

  async replace(next: PayoutRecord): Promise<boolean> {
    this.#life?.check();
    const n = ++this.#writes;
    await this.#watch({ n, op: 'replace', record: next, side: 'before' });
    this.#life?.check();
    const replaced = await this.#inner.replace(next);
    if (replaced) this.landed.push(next);
    await this.#watch({ n, op: 'replace', record: next, side: 'after' });
    this.#life?.check();
    return replaced;
  }

  async get(reference: string): Promise<PayoutRecord | undefined> {
    this.#life?.check();
    const record = await this.#inner.get(reference);
    this.#life?.check();
    return record;
  }

  async list(query: PayoutListQuery): Promise<PayoutPage> {
    this.#life?.check();
    const page = await this.#inner.list(query);
    this.#life?.check();
    return page;
  }

  async now(): Promise<number> {
    this.#life?.check();
    return this.#inner.now();
  }
}

/** Every record of a store, oldest first. */
export async function allRecords(store: PayoutStore): Promise<PayoutRecord[]> {
  const out: PayoutRecord[] = [];
  let after: PayoutPage['next'];
  do {
    const page = await store.list({ limit: 100, after });
    out.push(...page.records);
    after = page.next;
  } while (after !== undefined);
  return out;
}

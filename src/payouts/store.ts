import type { PayoutRecord, PayoutState } from './record.js';

/** Where a page of {@link PayoutStore.list} ends: the last record's `(createdAt, reference)`. */
export interface PayoutCursor {
  /** `createdAt` of the last record returned. */
  readonly createdAt: number;
  /** `reference` of the last record returned. */
  readonly reference: string;
}

/** What {@link PayoutStore.create} resolves with. */
export interface PayoutCreated {
  /** True when this call stored the record; false when one existed for its reference. */
  readonly created: boolean;
  /** The stored record: the one just written, or the existing one. */
  readonly record: PayoutRecord;
}

/** What {@link PayoutStore.list} asks for. */
export interface PayoutListQuery {
  /** Only records in these states (omitted: every state). */
  readonly states?: readonly PayoutState[] | undefined;
  /** Only records created at or after this time (Unix ms). */
  readonly createdFrom?: number | undefined;
  /** Only records created before this time (Unix ms). */
  readonly createdBefore?: number | undefined;
  /** Records after this position (the `next` of the previous page). */
  readonly after?: PayoutCursor | undefined;
  /** At most this many records (at least 1). */
  readonly limit: number;
}

/** A page of {@link PayoutStore.list}. */
export interface PayoutPage {
  /** Records, oldest first: by `createdAt`, then by `reference` (UTF-16 code unit order). */
  readonly records: readonly PayoutRecord[];
  /** Where the next page starts, or undefined when this page was the last. */
  readonly next: PayoutCursor | undefined;
}

/**
 * Where the payout workflow keeps its payouts: a table of the merchant's own database. One record
 * per reference, replaced whole with a compare-and-set on its version, so that the store itself,
 * not a coordinator of ours, decides which of two workers moved a payout on.
 * {@link MemoryPayoutStore} (tests), `RedisPayoutStore` (`merchant-stablecoin/redis`) and
 * `PostgresPayoutStore` (`merchant-stablecoin/postgres`) implement it.
 *
 * Contract:
 * - Every method resolves only once what it wrote is durable: the workflow sends a call or runs
 *   the pay function only after the write before it resolved.
 * - `create` stores the record unless one exists for its reference, and resolves with the record
 *   stored (the existing one when there was one: `created` false).
 * - `replace(next)` stores `next` only when the stored record of `next.reference` has version
 *   `next.version - 1`, and resolves `true`; otherwise it stores nothing and resolves `false`.
 *   When its answer is lost (it rejects), the write may have landed: the workflow reads the record
 *   again before doing anything that depends on it.
 * - `get` returns the stored record, or undefined.
 * - `list` returns records oldest first by `(createdAt, reference)`, with the filters of
 *   {@link PayoutListQuery}; a record changed while paging appears at most once per page.
 * - `now` is the store's clock in milliseconds (Redis `TIME`, PostgreSQL `clock_timestamp()`): one
 *   clock for every worker sharing the store. Hand-out leases are compared with it.
 * - A record is handed back exactly as stored: the workflow wrote it as plain JSON data.
 */
export interface PayoutStore {
  /** Stores `record` unless its reference exists; resolves with the stored record. */
  create(record: PayoutRecord): Promise<PayoutCreated>;
  /** The stored record of `reference`, or undefined. */
  get(reference: string): Promise<PayoutRecord | undefined>;
  /** Replaces the record when the stored version is `next.version - 1` (see the contract). */
  replace(next: PayoutRecord): Promise<boolean>;
  /** A page of records, oldest first (see the contract). */
  list(query: PayoutListQuery): Promise<PayoutPage>;
  /** The store's clock, in milliseconds. */
  now(): Promise<number>;
}

/**
 * Whether a record matches a list query's filters (not its cursor or limit): the one reading of
 * {@link PayoutListQuery} the stores in this process share.
 *
 * @internal
 */
export function matchesQuery(record: PayoutRecord, query: PayoutListQuery): boolean {
  if (query.states !== undefined && !query.states.includes(record.state)) return false;
  if (query.createdFrom !== undefined && record.createdAt < query.createdFrom) return false;
  if (query.createdBefore !== undefined && record.createdAt >= query.createdBefore) return false;
  return true;
}

/**
 * Whether `record` comes after `cursor` in list order: `(createdAt, reference)`.
 *
 * @internal
 */
export function afterCursor(record: PayoutRecord, cursor: PayoutCursor | undefined): boolean {
  if (cursor === undefined) return true;
  if (record.createdAt !== cursor.createdAt) return record.createdAt > cursor.createdAt;
  return record.reference > cursor.reference;
}

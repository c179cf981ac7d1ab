import type { Logger } from '../core/telemetry/logger.js';

/**
 * Result of {@link EventStore.claim}:
 * - `claimed`: this caller owns the event now and must `complete` or `release` it;
 * - `duplicate`: the event was already processed (completed): acknowledge without processing;
 * - `in_progress`: another delivery of the event is being processed and its claim has not
 *   expired: answer non-2xx so that the service delivers it again later.
 */
export type ClaimResult = 'claimed' | 'duplicate' | 'in_progress';

/**
 * Deduplication of deliveries on `z-event-id` (the spec: deliveries are at least once, the
 * receiver deduplicates on `z-event-id`).
 *
 * Contract, for a store shared by a fleet of receivers (Redis, SQL, ...):
 * - `claim` is atomic: of concurrent claims of one id, exactly one gets `claimed`. An
 *   in-progress claim expires after `ttlMs` (a crashed worker must not block the event for
 *   ever), after which a new claim succeeds.
 * - `complete` records the id as processed, for at least as long as the service may redeliver
 *   (the spec does not show its retry schedule; keep it days, not minutes). Later claims get
 *   `duplicate`.
 * - `release` forgets an in-progress claim (the handler failed), so that the redelivery the
 *   non-2xx answer causes is processed. It must not remove a completed record.
 *
 * Methods may be synchronous or return promises. Errors thrown propagate: the handler answers
 * 500 and the service retries.
 */
export interface EventStore {
  /**
   * Atomically claims `eventId` for processing.
   *
   * @param eventId - The `z-event-id`.
   * @param ttlMs - Lease of the in-progress claim, after which it expires.
   */
  claim(eventId: string, ttlMs: number): ClaimResult | Promise<ClaimResult>;
  /** Records `eventId` as processed (after `onEvent` succeeded). */
  complete(eventId: string): void | Promise<void>;
  /** Drops the in-progress claim of `eventId` (after `onEvent` failed or timed out). */
  release(eventId: string): void | Promise<void>;
  /**
   * Optional: called once by `createWebhookHandler` with the receiver's bound and logger, so that
   * the store can report at start a setting that cannot hold within a delivery's time, and log
   * its outages and refusals to the receiver's logger when it has none of its own.
   */
  attach?(receiver: EventStoreReceiver): void;
}

/** How {@link TransactionalEventStore.claimInTransaction} may wait. */
export interface TransactionalClaimOptions {
  /** Lease of the claim: a transaction idle this long (a frozen process) is ended by the store. */
  readonly ttlMs: number;
  /**
   * How long to wait for another delivery of the same event that is in flight (its transaction
   * not yet ended): the time left before the receiver answers. Past it the claim is `in_progress`.
   */
  readonly waitMs: number;
  /**
   * Aborts when the delivery must be answered (`timeoutMs` plus a small margin, from its
   * arrival): every wait of the claim (a pooled connection, each statement, the other delivery's
   * row) ends then, and the claim rejects.
   */
  readonly signal?: AbortSignal;
}

/** How {@link TransactionalClaim} `commit` and `rollback` may wait. */
export interface TransactionalEndOptions {
  /**
   * Aborts when the delivery must be answered: the store stops waiting then (a commit whose
   * answer has not come is a failure: it may or may not have committed). Without it, the store's
   * own statement timeout bounds the wait (a late commit, after the delivery was answered).
   */
  readonly signal?: AbortSignal;
}

/** What the receiver tells its store once, when it is created: see {@link EventStore.attach}. */
export interface EventStoreReceiver {
  /** The receiver's bound of a delivery (`timeoutMs`), in ms. */
  readonly timeoutMs: number;
  /** The receiver's logger (by default `console`); a store without a logger of its own may use it. */
  readonly logger: Logger | undefined;
}

/**
 * What {@link TransactionalEventStore.claimInTransaction} returns: `duplicate` or `in_progress` as
 * from {@link EventStore.claim}, or `claimed` with an open transaction that holds the event's
 * processed mark, uncommitted.
 */
export type TransactionalClaim<T> =
  | {
      /** Processed already (`duplicate`), or in flight in another delivery past the wait (`in_progress`). */
      readonly result: 'duplicate' | 'in_progress';
    }
  | {
      /** This delivery holds the event: process it through `transaction`. */
      readonly result: 'claimed';
      /** The transaction `onEvent` writes its effects through (`context.transaction`). */
      readonly transaction: T;
      /** Commits the mark and the effects together; rejects when they did not commit, or may not have. */
      commit(options?: TransactionalEndOptions): Promise<void>;
      /** Rolls both back (`onEvent` failed): a redelivery is processed. Never rejects. */
      rollback(options?: TransactionalEndOptions): Promise<void>;
    };

/**
 * An {@link EventStore} that can mark an event processed inside a transaction of the merchant's
 * own database (`PostgresEventStore` of `merchant-stablecoin/postgres`). With it the receiver
 * hands `onEvent` that transaction as `context.transaction`, and commits it only when `onEvent`
 * succeeded: the event's effects and its mark commit together or not at all, so a redelivery
 * after a crash at any point neither loses nor repeats them.
 *
 * Contract: of concurrent claims of one id, one gets `claimed`; the others wait for its
 * transaction to end, up to `waitMs` (then `in_progress`), and get `duplicate` if it committed or
 * `claimed` if it rolled back. A transaction of a process that died ends with its connection.
 */
export interface TransactionalEventStore<T> extends EventStore {
  /** Claims `eventId` inside a new transaction (see the interface's contract). */
  claimInTransaction(eventId: string, options: TransactionalClaimOptions): Promise<TransactionalClaim<T>>;
}

/** Whether `store` offers {@link TransactionalEventStore.claimInTransaction}. */
export function isTransactional(store: EventStore): store is TransactionalEventStore<unknown> {
  return typeof (store as Partial<TransactionalEventStore<unknown>>).claimInTransaction === 'function';
}

import { positiveNumber } from '../core/errors/setting-checks.js';
import type {
  ClaimResult,
  EventStoreReceiver,
  TransactionalClaim,
  TransactionalClaimOptions,
  TransactionalEventStore,
} from '../webhooks/event-store.js';
import { PostgresRunner, type PostgresClientLike, type PostgresStoreOptions } from './connection.js';
import { DEFAULT_EVENT_TABLE, eventLayout, type TableLayout } from './schema.js';
import { createTable, verifyTable } from './schema-check.js';
import { SchemaGate } from './schema-gate.js';
import { openEventTransaction } from './transaction.js';

/** Settings of {@link PostgresEventStore}: the pool, the table (default `merchant_stablecoin_webhook_events`), logger and timeout. */
export interface PostgresEventStoreOptions<C extends PostgresClientLike = PostgresClientLike> extends PostgresStoreOptions<C> {
  /**
   * How long `prune()` keeps a processed event id, in ms (default 30 days). The spec does not show
   * the service's redelivery schedule: keep it days, not minutes.
   */
  readonly retentionMs?: number;
}

/**
 * A webhook event store in a table of the merchant's own PostgreSQL, shared by every receiver:
 * with `createWebhookHandler({ store })`, each event is marked processed **in the same transaction
 * as the merchant's own writes** (`context.transaction` in `onEvent`), so its effects commit
 * exactly once, whatever crashes, and whichever receiver a redelivery reaches.
 *
 * - The receiver calls `claimInTransaction`: `BEGIN`, then the event's row inserted as
 *   `completed`, uncommitted. `onEvent` writes through the same transaction; it commits when
 *   `onEvent` resolves (answered 200), rolls back when it throws (500). A process killed anywhere
 *   before the commit takes its transaction with it: nothing of the event is kept, and the
 *   redelivery processes it. Killed after the commit, before the 200: the redelivery finds the
 *   row and is acknowledged without processing.
 * - A second delivery of the same event while the first is in flight waits on the row (bounded
 *   by the time it has left, then 409), then finds it committed (duplicate, 200) or rolled back
 *   (processes it).
 * - While PostgreSQL cannot answer, the delivery is answered 503 and nothing is processed.
 * - The plain {@link webhooks!EventStore | EventStore} methods (`claim`, `complete`, `release`) work too, for a store
 *   used without the receiver: a claim is a row `in_progress` with a lease on the database's clock.
 *
 * @example
 * const store = new PostgresEventStore({ pool });
 * await store.ensureSchema();
 * const handler = createWebhookHandler({
 *   verify, store,
 *   onEvent: async (event, { transaction }) => {
 *     await transaction.query('INSERT INTO credits (event_id, ...) VALUES ($1, ...)', [event.event_id]);
 *   },
 * });
 */
export class PostgresEventStore<C extends PostgresClientLike = PostgresClientLike> implements TransactionalEventStore<C> {
  readonly #db: PostgresRunner<C>;
  readonly #tableName: string;
  readonly #retentionMs: number;
  readonly #layout: TableLayout;
  readonly #schema: SchemaGate;
  /** The marker of each plain claim this instance holds: `release` frees only its own. */
  readonly #markers = new Map<string, string>();

  /** @param options - The pool, table, logger, timeout and retention. */
  constructor(options: PostgresEventStoreOptions<C>) {
    this.#db = new PostgresRunner('the webhook event store', options, DEFAULT_EVENT_TABLE);
    this.#tableName = options.table ?? DEFAULT_EVENT_TABLE;
    this.#retentionMs = positiveNumber('retentionMs', options.retentionMs, 30 * 24 * 60 * 60 * 1000);
    this.#layout = eventLayout(this.#tableName);
    this.#schema = new SchemaGate(
      (lockWaitMs) => verifyTable(this.#db, this.#layout, 'verify the event table', lockWaitMs),
      () => this.#db.logger,
      'the webhook event store',
    );
  }

  /**
   * Creates the table when missing, and its index unless an index with its definition exists
   * (whatever its name), then verifies the table as {@link PostgresEventStore.verifySchema} does
   * (idempotent). Needs `CREATE` on the schema; run the same SQL as a migration instead where the
   * application's role may not (docs/postgres.md).
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses, or `misconfigured` when
   * the table differs from what the store needs.
   */
  async ensureSchema(): Promise<void> {
    await createTable(this.#db, this.#layout, 'create the event table');
    await this.#schema.verify();
  }

  /**
   * Checks the table, read-only (the catalogs only: the application's role may), for teams that
   * run their own migrations: its columns and their types, and its indexes by their definition.
   * The store's first use runs the same check once.
   *
   * @throws PostgresStoreError `misconfigured` naming every difference (`code` `42P01` when the
   * table does not exist), or the failure that kept PostgreSQL from answering.
   */
  async verifySchema(): Promise<void> {
    await this.#schema.verify();
  }

  /**
   * Called by `createWebhookHandler`: logs to the receiver's logger when this store was given
   * none, and warns (`warn`, once) when the pool may keep a connection request waiting longer
   * than the receiver's `timeoutMs` (node-postgres's `connectionTimeoutMillis` unset, 0, or above).
   */
  attach(receiver: EventStoreReceiver): void {
    this.#db.useLogger(receiver.logger);
    this.#db.checkPool(receiver.timeoutMs, "the webhook receiver's timeoutMs");
  }

  /**
   * Claims `eventId` inside a new transaction that holds its processed mark (see the class
   * comment). Used by `createWebhookHandler`. The store's first use verifies its table within
   * the delivery's `waitMs`; the claim has what is left.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses (the receiver answers 503).
   */
  async claimInTransaction(eventId: string, options: TransactionalClaimOptions): Promise<TransactionalClaim<C>> {
    const started = performance.now();
    await this.#schema.ready('claim an event', options.waitMs);
    return openEventTransaction(this.#db, eventId, { ...options, waitMs: options.waitMs - (performance.now() - started) });
  }

  /**
   * Claims `eventId` for processing outside a transaction: a row `in_progress` until the lease
   * (on the database's clock) ends, unless completed.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses.
   */
  async claim(eventId: string, ttlMs: number): Promise<ClaimResult> {
    await this.#schema.ready('claim an event', this.#db.timeoutMs);
    const marker = globalThis.crypto.randomUUID();
    const t = this.#db.table;
    const { rows } = await this.#db.query(
      'claim an event',
      `WITH taken AS (
         INSERT INTO ${t} AS e (event_id, state, lease_until, marker)
         VALUES ($1, 'in_progress', clock_timestamp() + $2 * interval '1 millisecond', $3)
         ON CONFLICT (event_id) DO UPDATE SET lease_until = EXCLUDED.lease_until, marker = EXCLUDED.marker
           WHERE e.state = 'in_progress' AND e.lease_until <= clock_timestamp()
         RETURNING 'claimed'::text AS result
       )
       SELECT result FROM taken
       UNION ALL
       SELECT CASE WHEN state = 'completed' THEN 'duplicate' ELSE 'in_progress' END FROM ${t}
       WHERE event_id = $1 AND NOT EXISTS (SELECT 1 FROM taken)`,
      [eventId, Math.max(1, Math.ceil(ttlMs)), marker],
    );
    const result = (rows[0]?.['result'] ?? 'in_progress') as ClaimResult;
    if (result === 'claimed') this.#markers.set(eventId, marker);
    return result;
  }

  /**
   * Records `eventId` as processed.
   *
   * @throws PostgresStoreError when PostgreSQL does not confirm it.
   */
  async complete(eventId: string): Promise<void> {
    await this.#schema.ready('complete an event', this.#db.timeoutMs);
    this.#markers.delete(eventId);
    await this.#db.query(
      'complete an event',
      `INSERT INTO ${this.#db.table} (event_id, state, completed_at) VALUES ($1, 'completed', clock_timestamp())
       ON CONFLICT (event_id) DO UPDATE SET state = 'completed', completed_at = clock_timestamp(), lease_until = NULL, marker = NULL`,
      [eventId],
    );
  }

  /**
   * Drops this instance's in-progress claim of `eventId` (never a completed row, never another
   * instance's claim).
   *
   * @throws PostgresStoreError when PostgreSQL does not confirm it.
   */
  async release(eventId: string): Promise<void> {
    const marker = this.#markers.get(eventId);
    this.#markers.delete(eventId);
    if (marker === undefined) return;
    await this.#schema.ready('release an event', this.#db.timeoutMs);
    await this.#db.query(
      'release an event',
      `DELETE FROM ${this.#db.table} WHERE event_id = $1 AND state = 'in_progress' AND marker = $2`,
      [eventId, marker],
    );
  }

  /**
   * Deletes processed event ids older than `retentionMs`; run it daily (a scheduled job, or cron).
   * Resolves with how many it deleted.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses.
   */
  async prune(): Promise<number> {
    await this.#schema.ready('prune events', this.#db.timeoutMs);
    const { rows } = await this.#db.query(
      'prune events',
      `WITH gone AS (
         DELETE FROM ${this.#db.table} WHERE state = 'completed' AND completed_at < clock_timestamp() - $1 * interval '1 millisecond'
         RETURNING 1
       ) SELECT count(*) AS deleted FROM gone`,
      [Math.ceil(this.#retentionMs)],
    );
    return Number(rows[0]?.['deleted'] ?? 0);
  }

  /** Inspection shows the table and health only. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PostgresEventStore { table: '${this.#tableName}', degraded: ${this.#db.degraded} }`;
  }
}

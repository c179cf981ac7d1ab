import type { PayoutRecord } from '../payouts/record.js';
import type { PayoutCreated, PayoutListQuery, PayoutPage, PayoutStore } from '../payouts/store.js';
import { log } from '../core/telemetry/logger.js';
import { PostgresRunner, type PostgresStoreOptions } from './connection.js';
import type { PostgresStoreError } from './failures.js';
import { DEFAULT_PAYOUT_TABLE, payoutLayout } from './payout-schema.js';
import { columnsOf, listStatement, recordOf, unreadable } from './payout-rows.js';
import type { TableLayout } from './schema.js';
import { createTable, verifyTable } from './schema-check.js';
import { SchemaGate } from './schema-gate.js';

/** Settings of {@link PostgresPayoutStore}: the pool, the table (default `merchant_stablecoin_payouts`), logger and timeout. */
export type PostgresPayoutStoreOptions = PostgresStoreOptions;

/**
 * The payout workflow's store ({@link PayoutStore}) in a table of the merchant's own PostgreSQL,
 * beside its orders: one row per payout reference, the record's JSON as written.
 *
 * - `create` is one `INSERT ... ON CONFLICT DO NOTHING`, then, when the reference existed, a read
 *   of the stored record (in a statement of its own, which sees the other writer's commit).
 * - `replace` is one `UPDATE ... WHERE reference = $1 AND version = $2`: a compare-and-set that
 *   PostgreSQL's row lock decides, so that of two workers moving a payout on, one wins.
 * - `list` reads oldest first by `(created_at, reference)` with a keyset cursor; `reference` is
 *   compared bytewise (`COLLATE "C"`): UTF-8 byte order, which is the contract's UTF-16 order
 *   for every reference without characters U+E000 to U+FFFF next to ones above U+FFFF.
 * - `now` is the database's `clock_timestamp()`, in whole ms: one clock for every worker.
 * - Every statement resolves on its commit (autocommit); every failure is a
 *   `PostgresStoreError`. A `replace` whose answer was lost (`executed: undefined`) may have
 *   landed: read the record again, as the workflow does; repeating it cannot write twice.
 * - A row whose record does not read back (edited by hand) is named: `get` and `create` reject
 *   with a `misconfigured` error naming its reference; `list` skips it, logging an `error` line
 *   with the reference, and goes on with the others.
 *
 * Needs `SELECT, INSERT, UPDATE` on the table, nothing more (no `DELETE`, no DDL at run time).
 *
 * @example
 * import pg from 'pg';
 * import { PostgresPayoutStore } from 'merchant-stablecoin/postgres';
 * const store = new PostgresPayoutStore({ pool: new pg.Pool({ connectionString }) });
 * await store.ensureSchema(); // or run the SQL of docs/postgres.md as a migration
 */
export class PostgresPayoutStore implements PayoutStore {
  readonly #db: PostgresRunner;
  readonly #tableName: string;
  readonly #layout: TableLayout;
  readonly #schema: SchemaGate;

  /** @param options - The pool, table, logger and timeout. */
  constructor(options: PostgresPayoutStoreOptions) {
    this.#db = new PostgresRunner('the payout store', options, DEFAULT_PAYOUT_TABLE);
    this.#tableName = options.table ?? DEFAULT_PAYOUT_TABLE;
    this.#layout = payoutLayout(this.#tableName);
    this.#schema = new SchemaGate(
      (lockWaitMs) => verifyTable(this.#db, this.#layout, 'verify the payout table', lockWaitMs),
      () => this.#db.logger,
      'the payout store',
    );
  }

  /**
   * Creates the table when missing, and its indexes unless indexes with their definitions exist
   * (whatever their names), then verifies the table as {@link PostgresPayoutStore.verifySchema}
   * does (idempotent). Needs `CREATE` on the schema; run the same SQL as a migration instead
   * where the application's role may not (docs/postgres.md).
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses, or `misconfigured` when
   * the table differs from what the store needs.
   */
  async ensureSchema(): Promise<void> {
    await createTable(this.#db, this.#layout, 'create the payout table');
    await this.#schema.verify();
  }

  /**
   * Checks the table, read-only (the catalogs only: the application's role may): its columns,
   * their types, `reference`'s collation (`"C"`) and the indexes by their definition. The
   * store's first use runs the same check once.
   *
   * @throws PostgresStoreError `misconfigured` naming every difference (`code` `42P01` when the
   * table does not exist), or the failure that kept PostgreSQL from answering.
   */
  async verifySchema(): Promise<void> {
    await this.#schema.verify();
  }

  /**
   * Stores the record unless its reference exists; resolves with the stored record.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses, or when the existing
   * record of the reference cannot be read (`misconfigured`, naming it).
   */
  async create(record: PayoutRecord): Promise<PayoutCreated> {
    const operation = 'create a payout';
    const values = columnsOf(record);
    await this.#schema.ready(operation, this.#db.timeoutMs);
    const { rows } = await this.#db.query(
      operation,
      `INSERT INTO ${this.#db.table} (reference, version, state, member, asset, created_at, updated_at, record)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (reference) DO NOTHING RETURNING record`,
      values,
    );
    if (rows.length === 1) return { created: true, record: JSON.parse(values[7] as string) as PayoutRecord };
    const stored = await this.#read(record.reference, operation);
    // No DELETE is granted: a row gone between the two statements was removed by hand.
    if (stored === undefined) throw unreadable(record.reference, 'its row was deleted while being created', operation);
    return { created: false, record: stored };
  }

  /**
   * The stored record of `reference`, or undefined.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses, or when the stored
   * record cannot be read (`misconfigured`, naming the reference).
   */
  async get(reference: string): Promise<PayoutRecord | undefined> {
    await this.#schema.ready('get a payout', this.#db.timeoutMs);
    return this.#read(reference, 'get a payout');
  }

  /**
   * Replaces the record when the stored version is `next.version - 1`, in one statement.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses; with `executed`
   * undefined, the write may have landed (read the record again).
   */
  async replace(next: PayoutRecord): Promise<boolean> {
    const operation = 'replace a payout';
    const values = columnsOf(next);
    await this.#schema.ready(operation, this.#db.timeoutMs);
    const { rows } = await this.#db.query(
      operation,
      `UPDATE ${this.#db.table}
       SET version = $2, state = $3, member = $4, asset = $5, created_at = $6, updated_at = $7, record = $8
       WHERE reference = $1 AND version = $9 RETURNING version`,
      [...values, next.version - 1],
    );
    return rows.length === 1;
  }

  /**
   * A page of records, oldest first by `(createdAt, reference)`. A row whose record cannot be
   * read is left out (logged as an `error`, with its reference); the page's cursor still moves
   * past it.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses.
   */
  async list(query: PayoutListQuery): Promise<PayoutPage> {
    const operation = 'list payouts';
    const { text, values, limit } = listStatement(this.#db.table, query);
    await this.#schema.ready(operation, this.#db.timeoutMs);
    const { rows } = await this.#db.query(operation, text, values);
    const page = rows.slice(0, limit);
    const records: PayoutRecord[] = [];
    for (const row of page) {
      const record = recordOf(row);
      if (typeof record !== 'string') records.push(record);
      else this.#reportUnreadable(String(row['reference']), record);
    }
    const last = page.at(-1);
    const next =
      rows.length > limit && last !== undefined
        ? { createdAt: Number(last['created_at']), reference: String(last['reference']) }
        : undefined;
    return { records, next };
  }

  /**
   * The database's clock (`clock_timestamp()`), in whole milliseconds.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer.
   */
  async now(): Promise<number> {
    const { rows } = await this.#db.query('read the clock', `SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now`);
    return Number(rows[0]?.['now']);
  }

  async #read(reference: string, operation: string): Promise<PayoutRecord | undefined> {
    const { rows } = await this.#db.query(
      operation,
      `SELECT reference, version, state, created_at, record FROM ${this.#db.table} WHERE reference = $1`,
      [reference],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    const record = recordOf(row);
    if (typeof record === 'string') throw this.#reportUnreadable(reference, record, operation);
    return record;
  }

  /** Logs a row that does not read back (`error`: a person repairs it); returns it as a failure. */
  #reportUnreadable(reference: string, problem: string, operation = 'list payouts'): PostgresStoreError {
    const failure = unreadable(reference, problem, operation);
    log(this.#db.logger, 'error', `merchant-stablecoin/postgres: the payout store: ${failure.message}`, {
      table: this.#tableName,
      reference,
      problem,
    });
    return failure;
  }

  /** Inspection shows the table and health only. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PostgresPayoutStore { table: '${this.#tableName}', degraded: ${this.#db.degraded} }`;
  }
}

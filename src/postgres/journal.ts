import {
  decodeIntent,
  type ClaimedRecord,
  type IntentJournal,
  type JournalClaimRequest,
  type JournalIntent,
  type JournalLeased,
  type JournalLeasedRequest,
  type JournalOpenAfter,
  type JournalOpenAfterRequest,
} from '../core/journal/intent-journal.js';
import { log, type Logger } from '../core/telemetry/logger.js';
import { PostgresRunner, type PostgresStoreOptions } from './connection.js';
import { DEFAULT_JOURNAL_TABLE, journalLayout, type TableLayout } from './schema.js';
import { createTable, verifyTable } from './schema-check.js';
import { SchemaGate } from './schema-gate.js';

/** Settings of {@link PostgresJournal}: the pool, the table (default `merchant_stablecoin_journal`), logger and timeout. */
export type PostgresJournalOptions = PostgresStoreOptions;

// Records answered by no one, by intent: their settle writes a tombstone (see settle).
const MAX_UNCERTAIN = 10_000;

/**
 * An intent journal ({@link IntentJournal}) in a table of the merchant's own PostgreSQL: a
 * money-moving call is written there before it is sent, and any instance's `client.recover()`
 * finishes it after the instance that sent it died. Backed up, replicated and audited with the
 * rest of the payments data.
 *
 * - `record` is one `INSERT ... ON CONFLICT DO NOTHING` (the first record of a key stays), in its
 *   own committed transaction before the SDK sends; `settle` one `DELETE`.
 * - `claim` takes the scope's oldest open intents with `FOR UPDATE SKIP LOCKED` and sets their
 *   lease on the database's clock (`clock_timestamp()`), in one statement: two instances never
 *   claim the same intent, and no host's clock decides when a lease ends.
 * - **No fallback**: while PostgreSQL cannot take an intent (down, slower than
 *   `statementTimeoutMs`, refusing it), `record` rejects with a `PostgresStoreError` and the
 *   money-moving call fails before sending (`call.sent: 'no'` when the error's `executed` is
 *   `false` or the clearing settle went through, else an outcome unknown).
 * - A `record` whose answer was lost may still commit after its `settle`: that settle therefore
 *   writes a tombstone (the row, `settled_at` set) instead of deleting, so the late insert
 *   conflicts and changes nothing. `claim` removes tombstones older than a day.
 *
 * Intents hold no token, signature or PIN; they do hold the bodies of money-moving calls
 * (addresses, amounts) and member ids: grant the table as for any payments data.
 *
 * @example
 * import pg from 'pg';
 * import { PostgresJournal } from 'merchant-stablecoin/postgres';
 * const journal = new PostgresJournal({ pool: new pg.Pool({ connectionString }) });
 * await journal.ensureSchema(); // or run the SQL of docs/postgres.md as a migration
 * const client = new MerchantClient({ journal });
 * await client.recover(); // at start-up: finish what a dead instance left open
 */
export class PostgresJournal implements IntentJournal {
  readonly #db: PostgresRunner;
  readonly #logger: Logger | undefined;
  readonly #tableName: string;
  readonly #layout: TableLayout;
  readonly #schema: SchemaGate;
  /** `scope key` → the `record_id` of a record whose answer was lost. */
  readonly #uncertain = new Map<string, string>();

  /** @param options - The pool, table, logger and timeout. */
  constructor(options: PostgresJournalOptions) {
    this.#db = new PostgresRunner('the intent journal', options, DEFAULT_JOURNAL_TABLE);
    this.#logger = options.logger;
    this.#tableName = options.table ?? DEFAULT_JOURNAL_TABLE;
    this.#layout = journalLayout(this.#tableName);
    this.#schema = new SchemaGate(
      (lockWaitMs) => verifyTable(this.#db, this.#layout, 'verify the journal table', lockWaitMs),
      () => this.#db.logger,
      'the intent journal',
    );
  }

  /**
   * Creates the table when missing, and its index unless an index with its definition exists
   * (whatever its name), then verifies the table as {@link PostgresJournal.verifySchema} does
   * (idempotent). Needs `CREATE` on the schema; run the same SQL as a migration instead where the
   * application's role may not (docs/postgres.md).
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses, or `misconfigured` when
   * the table differs from what the journal needs.
   */
  async ensureSchema(): Promise<void> {
    await createTable(this.#db, this.#layout, 'create the journal table');
    await this.#schema.verify();
  }

  /**
   * Checks the table, read-only (the catalogs only: the application's role may), for teams that
   * run their own migrations: its columns and their types (`intent` is `text`, not `jsonb`), and
   * its indexes by their definition. The journal's first use runs the same check once.
   *
   * @throws PostgresStoreError `misconfigured` naming every difference (`code` `42P01` when the
   * table does not exist), or the failure that kept PostgreSQL from answering.
   */
  async verifySchema(): Promise<void> {
    await this.#schema.verify();
  }

  /**
   * Writes the intent, durably (the first record of a key stays).
   *
   * @throws PostgresStoreError when PostgreSQL cannot take it (down, slow, or refusing the statement).
   */
  async record(intent: JournalIntent): Promise<void> {
    await this.#schema.ready('record an intent', this.#db.timeoutMs);
    const recordId = globalThis.crypto.randomUUID();
    const values = [intent.scope, intent.key, Math.floor(intent.createdAt), JSON.stringify(intent), recordId];
    try {
      // An open row stays as it is; a tombstone is revived by a new record of the key (a caller's
      // same-key call after "not sent"), never by the late arrival of the record it buries.
      await this.#db.query(
        'record an intent',
        `INSERT INTO ${this.#db.table} AS j (scope, key, created_at, intent, record_id) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (scope, key) DO UPDATE
           SET created_at = EXCLUDED.created_at, intent = EXCLUDED.intent, record_id = EXCLUDED.record_id, settled_at = NULL, claimed_until = NULL
           WHERE j.settled_at IS NOT NULL AND j.record_id IS DISTINCT FROM EXCLUDED.record_id`,
        values,
      );
    } catch (err) {
      if ((err as { executed?: unknown }).executed !== false) this.#remember(`${intent.scope} ${intent.key}`, recordId);
      throw err;
    }
  }

  /**
   * Removes the intent and its claim. After a `record` whose answer was lost, writes a tombstone
   * instead, so that the record, should it commit later, changes nothing (see the class comment).
   *
   * @throws PostgresStoreError when PostgreSQL does not confirm it.
   */
  async settle(scope: string, key: string): Promise<void> {
    await this.#schema.ready('settle an intent', this.#db.timeoutMs);
    const id = `${scope} ${key}`;
    const recordId = this.#uncertain.get(id);
    if (recordId === undefined) {
      await this.#db.query('settle an intent', `DELETE FROM ${this.#db.table} WHERE scope = $1 AND key = $2`, [scope, key]);
      return;
    }
    await this.#db.query(
      'settle an intent',
      `INSERT INTO ${this.#db.table} (scope, key, created_at, intent, record_id, settled_at) VALUES ($1, $2, 0, NULL, $3, clock_timestamp())
       ON CONFLICT (scope, key) DO UPDATE SET intent = NULL, record_id = $3, settled_at = clock_timestamp(), claimed_until = NULL`,
      [scope, key, recordId],
    );
    this.#uncertain.delete(id);
  }

  /**
   * Claims open intents of the scope (see the class comment). A record that does not read back as
   * an intent is claimed like the others and returned as unreadable, with its key: left in the
   * table for a person, never hiding the rest.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses.
   */
  async claim(request: JournalClaimRequest): Promise<readonly ClaimedRecord[]> {
    await this.#schema.ready('claim intents', this.#db.timeoutMs);
    const t = this.#db.table;
    const { rows } = await this.#db.query(
      'claim intents',
      `WITH picked AS (
         SELECT scope, key FROM ${t}
         WHERE scope = $1 AND created_at <= $2 AND settled_at IS NULL
           AND (claimed_until IS NULL OR claimed_until <= clock_timestamp())
         ORDER BY created_at, key LIMIT $4
         FOR UPDATE SKIP LOCKED
       ), gone AS (
         DELETE FROM ${t} WHERE scope = $1 AND settled_at < clock_timestamp() - interval '1 day'
       )
       UPDATE ${t} AS j SET claimed_until = clock_timestamp() + $3 * interval '1 millisecond'
       FROM picked WHERE j.scope = picked.scope AND j.key = picked.key
       RETURNING j.key, j.created_at, j.intent`,
      [request.scope, Math.floor(request.createdBefore), Math.max(1, Math.ceil(request.leaseMs)), request.limit],
    );
    const sorted = [...rows].sort(
      (a, b) => Number(a['created_at']) - Number(b['created_at']) || String(a['key']).localeCompare(String(b['key'])),
    );
    return sorted.map((row) => {
      const key = String(row['key']);
      const intent = decodeIntent(row['intent']);
      if (typeof intent !== 'string' && intent.key === key && intent.scope === request.scope) return intent;
      const problem = typeof intent === 'string' ? intent : 'its key or scope differs from where it is stored';
      log(this.#logger, 'warn', 'merchant-stablecoin/postgres: an unreadable journal record was claimed and set aside', {
        table: this.#tableName,
        idempotencyKey: key,
        problem,
      });
      return Object.freeze({ unreadable: true as const, key, scope: request.scope, problem });
    });
  }

  /**
   * Lists the scope's open intents recorded after `createdAfter` (the oldest, up to `limit`) and
   * counts them, claiming none: what `recover()` leaves for later.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses.
   */
  async openAfter(request: JournalOpenAfterRequest): Promise<JournalOpenAfter> {
    await this.#schema.ready('list open intents', this.#db.timeoutMs);
    const { rows } = await this.#db.query(
      'list open intents',
      `SELECT intent, count(*) OVER () AS total FROM ${this.#db.table}
       WHERE scope = $1 AND created_at > $2 AND settled_at IS NULL
       ORDER BY created_at, key LIMIT $3`,
      [request.scope, Math.floor(request.createdAfter), request.limit],
    );
    const total = rows.length === 0 ? await this.#count(request) : Number(rows[0]!['total']);
    const intents = rows.map((r) => decodeIntent(r['intent'])).filter((i): i is JournalIntent => typeof i !== 'string');
    return { total, intents };
  }

  /**
   * Lists the scope's open intents recorded by `createdBefore` that are under an unexpired claim,
   * with the ms left of each claim on the database's clock (the one that set it), claiming none:
   * what `recover()` leaves to another recoverer.
   *
   * @throws PostgresStoreError when PostgreSQL cannot answer or refuses.
   */
  async leased(request: JournalLeasedRequest): Promise<JournalLeased> {
    await this.#schema.ready('list leased intents', this.#db.timeoutMs);
    const { rows } = await this.#db.query(
      'list leased intents',
      `WITH now AS (SELECT clock_timestamp() AS t), held AS (
         SELECT key, claimed_until FROM ${this.#db.table}, now
         WHERE scope = $1 AND created_at <= $2 AND settled_at IS NULL AND claimed_until > now.t AND NOT (key = ANY($3::text[]))
       )
       SELECT (SELECT count(*) FROM held) AS total, key, ceil(extract(epoch FROM (claimed_until - now.t)) * 1000) AS ends_in
       FROM held, now ORDER BY claimed_until, key LIMIT greatest($4, 1)`,
      [request.scope, Math.floor(request.createdBefore), [...request.exceptKeys], request.limit],
    );
    // At least one row is asked for, to carry the count even with `limit` 0.
    const leases = rows.slice(0, request.limit).map((r) => ({ key: String(r['key']), endsInMs: Number(r['ends_in']) }));
    return { total: rows.length === 0 ? 0 : Number(rows[0]!['total']), leases };
  }

  /** With `limit: 0` the window query returns no row to carry the count. */
  async #count(request: JournalOpenAfterRequest): Promise<number> {
    if (request.limit > 0) return 0;
    const { rows } = await this.#db.query(
      'count open intents',
      `SELECT count(*) AS total FROM ${this.#db.table} WHERE scope = $1 AND created_at > $2 AND settled_at IS NULL`,
      [request.scope, Math.floor(request.createdAfter)],
    );
    return Number(rows[0]?.['total'] ?? 0);
  }

  #remember(id: string, recordId: string): void {
    if (this.#uncertain.size >= MAX_UNCERTAIN) this.#uncertain.delete(this.#uncertain.keys().next().value!);
    this.#uncertain.set(id, recordId);
  }

  /** Inspection shows the table and health only. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `PostgresJournal { table: '${this.#tableName}', degraded: ${this.#db.degraded} }`;
  }
}

import { positiveNumber } from '../core/errors/setting-checks.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import { log, type Logger } from '../core/telemetry/logger.js';
import { storeErrorOf, type PostgresStoreError } from './failures.js';

/** A statement's result, as node-postgres (`pg`) returns it: the rows the stores read. */
export interface PostgresQueryResult {
  /** The rows, one object per row keyed by column name. */
  readonly rows: ReadonlyArray<Record<string, unknown>>;
  /** The command tag (`INSERT`, `COMMIT`, ...): a `COMMIT` of an aborted transaction answers `ROLLBACK`. */
  readonly command?: string;
}

/**
 * The part of a `pg` client the stores use: `query(text, values)` and `release(err)`. A
 * `PoolClient` of node-postgres has both; the SDK never imports `pg` at run time.
 */
export interface PostgresClientLike {
  /** Runs one statement with `$1`-style parameters. */
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
  /** Gives the client back to its pool; with an error (or `true`), the pool destroys it. */
  release(err?: Error | boolean): void;
  /**
   * node-postgres emits `error` on a checked-out client whose connection dies; with no listener,
   * that would end the process. The stores listen while they hold one.
   */
  on?(event: 'error', listener: (err: Error) => void): unknown;
}

const listened = new WeakSet<object>();

/**
 * Listens (once per client, for good) for the `error` a checked-out client emits when its
 * connection dies: the statement in flight rejects with it, which is what the stores act on.
 */
export function quietOnError<C extends PostgresClientLike>(client: C): C {
  if (!listened.has(client) && typeof client.on === 'function') {
    client.on('error', () => undefined);
    listened.add(client);
  }
  return client;
}

/**
 * The part of a `pg` `Pool` the stores use: `connect()` checks a client out. The callback form
 * is never called; it is declared so that TypeScript reads the client type (`pg.PoolClient`) off
 * a `pg.Pool`, and `context.transaction` is typed as one. Any object with `connect(): Promise<C>`
 * fits too.
 */
export interface PostgresPoolLike<C extends PostgresClientLike = PostgresClientLike> {
  /** Checks out a client; release it when done. */
  connect(): Promise<C>;
  /** The callback form of a `pg.Pool` (never called by the SDK). */
  connect(callback: (err: Error | undefined, client: C | undefined, done: (release?: Error | boolean) => void) => void): void;
}

/** Settings the PostgreSQL stores share. */
export interface PostgresStoreOptions<C extends PostgresClientLike = PostgresClientLike> {
  /** A node-postgres `Pool` (or anything with its `connect()`), connected to the merchant's database. */
  readonly pool: PostgresPoolLike<C>;
  /**
   * The table, optionally schema-qualified (`payments.sdk_journal`): letters, digits and `_`,
   * starting with a letter or `_`, at most 63 characters per part. Every instance passes the same.
   */
  readonly table?: string;
  /**
   * Receives one `warn` line when PostgreSQL stops answering and one `info` line when it answers
   * again, and an `error` line when it refuses a statement for a reason only its configuration
   * can fix (a missing table or grant). Never receives bodies or parameter values.
   */
  readonly logger?: Logger;
  /**
   * A statement (with the wait for a pooled connection) not answered within this many ms counts
   * as a failure (default 5000): the journal refuses the money-moving call before sending it; the
   * event store answers the delivery 503. The connection of a failed statement is destroyed, never
   * pooled again, which ends its session and any transaction on the server.
   */
  readonly statementTimeoutMs?: number;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * `table` as a quoted SQL identifier (`"payments"."sdk_journal"`), after checking it against a
 * strict pattern: a table name is never a parameter, so nothing else may reach the SQL text.
 */
export function quotedTable(table: string): string {
  const parts = typeof table === 'string' ? table.split('.') : [];
  if (parts.length < 1 || parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p)))
    throw new InvalidArgumentError(
      'table',
      'must be a table name, optionally schema-qualified (letters, digits and _, starting with a letter or _, at most 63 characters each).',
    );
  return parts.map((p) => `"${p}"`).join('.');
}

/**
 * Runs the statements of one store: each on a pooled connection, within `statementTimeoutMs`,
 * every failure a {@link PostgresStoreError}; an outage logged once, and its end.
 */
export class PostgresRunner<C extends PostgresClientLike = PostgresClientLike> {
  readonly pool: PostgresPoolLike<C>;
  readonly table: string;
  readonly timeoutMs: number;
  #logger: Logger | undefined;
  readonly #ownLogger: boolean;
  readonly #component: string;
  #down = false;

  constructor(component: string, options: PostgresStoreOptions<C>, defaultTable: string) {
    if (typeof options?.pool?.connect !== 'function') throw new InvalidArgumentError('pool', 'must be a pg Pool (with connect()).');
    this.pool = options.pool;
    this.table = quotedTable(options.table ?? defaultTable);
    this.timeoutMs = positiveNumber('statementTimeoutMs', options.statementTimeoutMs, 5000);
    this.#logger = options.logger;
    this.#ownLogger = options.logger !== undefined;
    this.#component = component;
  }

  /** The logger lines go to: the store's own, else the receiver's once attached, else none. */
  get logger(): Logger | undefined {
    return this.#logger;
  }

  /** Logs to `logger` (the webhook receiver's) when the store was given no logger of its own. */
  useLogger(logger: Logger | undefined): void {
    if (!this.#ownLogger) this.#logger = logger;
  }

  /**
   * Warns when the pool can leave a connection request waiting longer than `limitMs` (the time a
   * caller has): node-postgres's `connectionTimeoutMillis`, whose default 0 waits for ever. The
   * store stops waiting at its own bound all the same, but the request stays queued in the pool
   * (a frozen server fills the queue). A pool without node-postgres's `options` is not checked.
   */
  checkPool(limitMs: number, what: string): void {
    const options = (this.pool as { options?: { connectionTimeoutMillis?: unknown } }).options;
    if (typeof options !== 'object' || options === null) return;
    const wait = options.connectionTimeoutMillis;
    if (typeof wait === 'number' && wait > 0 && wait <= limitMs) return;
    log(
      this.#logger,
      'warn',
      `merchant-stablecoin/postgres: ${this.#component}: misconfigured pool: connectionTimeoutMillis is ${typeof wait === 'number' && wait > 0 ? `${wait} ms, above ${what} (${limitMs} ms)` : 'not set (node-postgres then waits for a connection for ever)'}; set it at or below ${limitMs} ms, so that a connection request the store gave up on does not stay queued in the pool (see "The pool" in docs/postgres.md).`,
      { code: 'connectionTimeoutMillis' },
    );
  }

  /** Whether the last statement failed for want of an answer. */
  get degraded(): boolean {
    return this.#down;
  }

  /** Runs one statement on a connection of its own. */
  async query(operation: string, text: string, values: unknown[] = []): Promise<PostgresQueryResult> {
    return this.withClient(operation, values, (client) => client.query(text, values));
  }

  /**
   * Checks a client out and runs `use` on it, all within the timeout. A client whose statement
   * failed without an answer, or timed out, is destroyed, never put back in the pool.
   */
  async withClient<R>(operation: string, values: unknown[], use: (client: C) => Promise<R>): Promise<R> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let client: C | undefined;
    let sent = false;
    let timedOut = false;
    const expiry = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error(`no answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
    });
    const work = (async () => {
      const c = quietOnError(await this.pool.connect());
      if (timedOut) {
        c.release();
        throw new Error('timed out waiting for a connection');
      }
      client = c;
      sent = true;
      return use(c);
    })();
    try {
      const result = await Promise.race([work, expiry]);
      client?.release();
      this.answered();
      return result;
    } catch (err) {
      const failure = storeErrorOf(err, operation, values, !sent);
      // Destroyed, never pooled: without an answer it may still run the statement (the server ends
      // it with the session), and an error answer may have been the session's last (57P01).
      client?.release(new Error('destroyed'));
      work.catch(() => undefined);
      this.failed(failure);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Logs a failure: a refusal only configuration can fix (`error`, each time), or an outage (`warn`, once). */
  failed(failure: PostgresStoreError): void {
    if (failure.kind === 'misconfigured') {
      log(this.#logger, 'error', `merchant-stablecoin/postgres: ${this.#component}: ${failure.message}`, { code: failure.code });
      return;
    }
    if (this.#down) return;
    this.#down = true;
    // An unavailable server's message says so itself (`PostgreSQL cannot ... now: ...`).
    const text = failure.kind === 'unreachable' ? `PostgreSQL is not answering: ${failure.message}` : failure.message;
    log(this.#logger, 'warn', `merchant-stablecoin/postgres: ${this.#component}: ${text}`, {
      code: failure.code,
    });
  }

  /** PostgreSQL answered: ends an outage (one `info` line). */
  answered(): void {
    if (!this.#down) return;
    this.#down = false;
    log(this.#logger, 'info', `merchant-stablecoin/postgres: ${this.#component}: PostgreSQL answers again`);
  }
}

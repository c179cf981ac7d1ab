import type { TransactionalClaim, TransactionalClaimOptions } from '../webhooks/event-store.js';
import { quietOnError, type PostgresClientLike, type PostgresRunner } from './connection.js';
import { storeErrorOf } from './failures.js';
import { failQuery, refusedStatement } from './transaction-control.js';

/** SQLSTATE of a lock wait that ran out (`lock_timeout`): another delivery holds the event. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Opens the transaction of one delivery: `BEGIN`, its waits bounded, then the event's processed
 * mark inserted, uncommitted. A concurrent delivery's insert of the same id waits on this row
 * until this transaction ends (PostgreSQL's unique index), then finds it committed (a duplicate)
 * or gone (it claims). A process that dies takes its connection, and so its transaction, with it.
 */
export async function openEventTransaction<C extends PostgresClientLike>(
  db: PostgresRunner<C>,
  eventId: string,
  options: TransactionalClaimOptions,
): Promise<TransactionalClaim<C>> {
  const waitMs = Math.max(1, Math.floor(options.waitMs));
  const ttlMs = Math.max(1, Math.ceil(options.ttlMs));
  const client = await connect(db, waitMs);
  const fail = (err: unknown, operation: string): never => {
    const failure = storeErrorOf(err, operation, [eventId]);
    // Never back into the pool with a transaction open or aborted: destroyed, the server ends it.
    client.release(new Error('destroyed'));
    throw failure;
  };
  try {
    // Numbers only in this text (no parameter is allowed with several statements): one round trip.
    // lock_timeout bounds the wait for another delivery; the idle timeout ends a frozen process's
    // transaction after the claim's lease, as the lease of a plain claim would.
    await bounded(
      db,
      waitMs,
      client.query(`BEGIN; SET LOCAL lock_timeout = ${waitMs}; SET LOCAL idle_in_transaction_session_timeout = ${ttlMs}`),
    );
    const { rows } = await bounded(
      db,
      waitMs,
      client.query(
        `INSERT INTO ${db.table} AS e (event_id, state, completed_at) VALUES ($1, 'completed', clock_timestamp())
         ON CONFLICT (event_id) DO UPDATE SET state = 'completed', completed_at = clock_timestamp(), lease_until = NULL, marker = NULL
           WHERE e.state = 'in_progress' AND e.lease_until <= clock_timestamp()
         RETURNING e.event_id`,
        [eventId],
      ),
    );
    if (rows.length === 1) return claimed(db, client, eventId);
    const found = await bounded(db, waitMs, client.query(`SELECT state FROM ${db.table} WHERE event_id = $1`, [eventId]));
    await bounded(db, waitMs, client.query('ROLLBACK'));
    client.release();
    return { result: found.rows[0]?.['state'] === 'completed' ? 'duplicate' : 'in_progress' };
  } catch (err) {
    if ((err as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
      await rollback(client);
      return { result: 'in_progress' };
    }
    return fail(err, 'claim an event');
  }
}

/** A client from the pool within the statement timeout; a failure is a store error (unsent). */
async function connect<C extends PostgresClientLike>(db: PostgresRunner<C>, waitMs: number): Promise<C> {
  let late = false;
  const pending = db.pool.connect();
  try {
    return quietOnError(await bounded(db, waitMs, pending));
  } catch (err) {
    late = true;
    void pending.then(
      (c) => late && c.release(),
      () => undefined,
    );
    throw storeErrorOf(err, 'claim an event', [], true);
  }
}

/** `work`, or a rejection once `statementTimeoutMs` (plus the lock wait) passed without an answer. */
function bounded<R>(db: PostgresRunner<PostgresClientLike>, waitMs: number, work: Promise<R>): Promise<R> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${db.timeoutMs + waitMs} ms`)), db.timeoutMs + waitMs);
  });
  work.catch(() => undefined);
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}

async function rollback(client: PostgresClientLike): Promise<void> {
  try {
    await client.query('ROLLBACK');
    client.release();
  } catch {
    client.release(new Error('destroyed'));
  }
}

/** The claim the receiver holds while `onEvent` runs. */
function claimed<C extends PostgresClientLike>(db: PostgresRunner<C>, client: C, eventId: string): TransactionalClaim<C> {
  let ended = false;
  const transaction = guarded(client, eventId, () => ended);
  return {
    result: 'claimed',
    transaction,
    async commit() {
      if (ended) throw new Error('the transaction already ended');
      ended = true;
      let tag: unknown;
      try {
        tag = (await bounded(db, 0, client.query('COMMIT'))).command;
      } catch (err) {
        client.release(new Error('destroyed'));
        throw storeErrorOf(err, 'commit an event', [eventId]);
      }
      client.release();
      // A transaction that a failed statement aborted answers COMMIT with ROLLBACK, and no error.
      if (tag === 'ROLLBACK')
        throw storeErrorOf(
          { code: '25P02', message: 'the transaction was aborted by a failed statement of onEvent, and rolled back' },
          'commit an event',
          [],
        );
    },
    async rollback() {
      if (ended) return;
      ended = true;
      await rollback(client);
    },
  };
}

/**
 * The client as `onEvent` sees it: its own methods, except that `release` is the receiver's to
 * call, and `query` refuses (in the form the call reports errors: rejection, callback or
 * submittable) once the transaction ended (a query then would run outside it, its effect
 * committed without the event's mark), and any transaction control (a `COMMIT` would commit the
 * mark before `onEvent` is done; see transaction-control.ts). Savepoints stay allowed.
 */
function guarded<C extends PostgresClientLike>(client: C, eventId: string, ended: () => boolean): C {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'release')
        return () => {
          throw new Error(`The transaction of event ${eventId} is the webhook receiver's to end: do not release it.`);
        };
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'query') return (value as (...args: unknown[]) => unknown).bind(target);
      return (...args: unknown[]): unknown => {
        if (ended()) return failQuery(args, new Error(`The transaction of event ${eventId} has ended: this query would run outside it.`));
        const refused = refusedStatement(args[0]);
        if (refused !== undefined)
          return failQuery(
            args,
            new Error(
              `${refused} refused on the transaction of event ${eventId}: the webhook receiver commits it when onEvent resolves and rolls it back when onEvent throws. Use SAVEPOINT, RELEASE SAVEPOINT and ROLLBACK TO SAVEPOINT for a part that may fail.`,
            ),
          );
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

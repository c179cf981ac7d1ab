import type { TransactionalClaim, TransactionalClaimOptions } from '../webhooks/event-store.js';
import { quietOnError, type PostgresClientLike, type PostgresRunner } from './connection.js';
import { storeErrorOf } from './failures.js';
import { failQuery, refusedStatement } from './transaction-control.js';

/** SQLSTATE of a lock wait that ran out (`lock_timeout`). */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Opens the transaction of one delivery: `BEGIN`, its waits bounded, then the event's processed
 * mark inserted, uncommitted. A concurrent delivery's insert of the same id waits on this row
 * until this transaction ends (PostgreSQL's unique index), then finds it committed (a duplicate)
 * or gone (it claims). A process that dies takes its connection, and so its transaction, with it.
 *
 * Every wait (the pooled connection, each statement, the other delivery's row) ends when
 * `options.signal` aborts (the delivery must be answered), or without it `waitMs` plus the
 * statement timeout after the call: never a statement timeout on top of the time left.
 */
export async function openEventTransaction<C extends PostgresClientLike>(
  db: PostgresRunner<C>,
  eventId: string,
  options: TransactionalClaimOptions,
): Promise<TransactionalClaim<C>> {
  const begun = performance.now();
  const waits = waitsOf(options.signal, options.waitMs + db.timeoutMs);
  try {
    const client = await connect(db, waits.signal);
    // The lock wait ends with the time the delivery has left, so the server answers it (409)
    // before the delivery's own bound (503) ends the claim.
    const lockMs = Math.max(1, Math.floor(options.waitMs - (performance.now() - begun)));
    return await claimOn(db, client, eventId, { lockMs, ttlMs: Math.max(1, Math.ceil(options.ttlMs)), signal: waits.signal });
  } finally {
    waits.dispose();
  }
}

/** The claim's statements on `client`, each raced against `at.signal`. */
async function claimOn<C extends PostgresClientLike>(
  db: PostgresRunner<C>,
  client: C,
  eventId: string,
  at: { lockMs: number; ttlMs: number; signal: AbortSignal },
): Promise<TransactionalClaim<C>> {
  let inserting = false;
  try {
    // Numbers and the checked table name only in this text (no parameter is allowed with several
    // statements): one round trip. lock_timeout bounds the lock waits; the idle timeout ends a
    // frozen process's transaction after the claim's lease, as the lease of a plain claim would.
    // The table's lock is taken first, on its own: a wait on it is another session's lock (a
    // migration), never another delivery's (deliveries take no lock that conflicts with it).
    await within(at.signal, () =>
      client.query(
        `BEGIN; SET LOCAL lock_timeout = ${at.lockMs}; SET LOCAL idle_in_transaction_session_timeout = ${at.ttlMs}; LOCK TABLE ${db.table} IN ROW EXCLUSIVE MODE`,
      ),
    );
    inserting = true;
    const { rows } = await within(at.signal, () =>
      client.query(
        `INSERT INTO ${db.table} AS e (event_id, state, completed_at) VALUES ($1, 'completed', clock_timestamp())
         ON CONFLICT (event_id) DO UPDATE SET state = 'completed', completed_at = clock_timestamp(), lease_until = NULL, marker = NULL
           WHERE e.state = 'in_progress' AND e.lease_until <= clock_timestamp()
         RETURNING e.event_id`,
        [eventId],
      ),
    );
    db.answered();
    if (rows.length === 1) return claimed(db, client, eventId);
    const found = await within(at.signal, () => client.query(`SELECT state FROM ${db.table} WHERE event_id = $1`, [eventId]));
    await within(at.signal, () => client.query('ROLLBACK'));
    client.release();
    return { result: found.rows[0]?.['state'] === 'completed' ? 'duplicate' : 'in_progress' };
  } catch (err) {
    const locked = (err as { code?: unknown }).code === LOCK_NOT_AVAILABLE;
    // The insert waited on the event's row: another delivery of it holds it, uncommitted.
    if (locked && inserting) {
      db.answered();
      await rollback(db, client, at.signal);
      return { result: 'in_progress' };
    }
    return failed(db, client, locked ? lockedElsewhere() : err, 'claim an event', [eventId]);
  }
}

/** What a wait on the table's own lock is: not an event being processed, and not an outage. */
const lockedElsewhere = (): Error =>
  Object.assign(
    new Error(
      'the event table is locked by another session (a migration, a LOCK TABLE), not by a delivery, for longer than the delivery had',
    ),
    { code: LOCK_NOT_AVAILABLE },
  );

/** Destroys `client` (its session, and any transaction, end on the server), logs and throws the failure. */
function failed(
  db: PostgresRunner<PostgresClientLike>,
  client: PostgresClientLike,
  err: unknown,
  operation: string,
  values: unknown[],
): never {
  const failure = storeErrorOf(err, operation, values);
  // Never back into the pool with a transaction open or aborted, or a statement in flight.
  client.release(new Error('destroyed'));
  db.failed(failure);
  throw failure;
}

/** A client from the pool before `signal` aborts; a failure is a store error (unsent). */
async function connect<C extends PostgresClientLike>(db: PostgresRunner<C>, signal: AbortSignal): Promise<C> {
  const pending = db.pool.connect();
  try {
    return quietOnError(await within(signal, () => pending));
  } catch (err) {
    // A connection that comes after the claim gave up was never used: it goes back to the pool.
    void pending.then(
      (c) => c.release(),
      () => undefined,
    );
    const failure = storeErrorOf(err, 'claim an event', [], true);
    db.failed(failure);
    throw failure;
  }
}

/** The signal given, or one of its own that aborts after `ms` (monotonic: a timer). */
function waitsOf(given: AbortSignal | undefined, ms: number): { signal: AbortSignal; dispose(): void } {
  if (given !== undefined) return { signal: given, dispose: () => undefined };
  const controller = new AbortController();
  const bound = Math.max(1, Math.ceil(ms));
  const timer = setTimeout(() => controller.abort(new Error(`no answer within ${bound} ms`)), bound);
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

/**
 * `run()`, or a rejection once `signal` aborts without an answer. node-postgres cannot cancel a
 * statement on a server that does not answer: its client is then destroyed by the caller.
 */
function within<R>(signal: AbortSignal, run: () => Promise<R>): Promise<R> {
  if (signal.aborted) return Promise.reject(expired(signal));
  const work = run();
  work.catch(() => undefined);
  let onAbort = (): void => undefined;
  const expiry = new Promise<never>((_, reject) => {
    onAbort = () => reject(expired(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, expiry]).finally(() => signal.removeEventListener('abort', onAbort));
}

function expired(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return new Error(reason instanceof Error ? reason.message : "no answer within the delivery's time");
}

/** `ROLLBACK` within `signal` (or the statement timeout); a client that does not answer is destroyed. */
async function rollback(db: PostgresRunner<PostgresClientLike>, client: PostgresClientLike, signal?: AbortSignal): Promise<void> {
  const waits = waitsOf(signal, db.timeoutMs);
  try {
    await within(waits.signal, () => client.query('ROLLBACK'));
    client.release();
  } catch (err) {
    client.release(new Error('destroyed'));
    db.failed(storeErrorOf(err, 'roll back an event', []));
  } finally {
    waits.dispose();
  }
}

/** `COMMIT` within `signal`, or the statement timeout without one (a late commit). */
async function commit(
  db: PostgresRunner<PostgresClientLike>,
  client: PostgresClientLike,
  eventId: string,
  signal?: AbortSignal,
): Promise<void> {
  const waits = waitsOf(signal, db.timeoutMs);
  let tag: unknown;
  try {
    tag = (await within(waits.signal, () => client.query('COMMIT'))).command;
  } catch (err) {
    // Destroyed: a COMMIT never sent rolls back with the session; one sent without an answer may
    // have committed (the redelivery then finds the mark).
    failed(db, client, err, 'commit an event', [eventId]);
  } finally {
    waits.dispose();
  }
  client.release();
  db.answered();
  // A transaction that a failed statement aborted answers COMMIT with ROLLBACK, and no error.
  if (tag === 'ROLLBACK')
    throw storeErrorOf(
      Object.assign(new Error('the transaction was aborted by a failed statement of onEvent, and rolled back'), { code: '25P02' }),
      'commit an event',
      [],
    );
}

/** The claim the receiver holds while `onEvent` runs. */
function claimed<C extends PostgresClientLike>(db: PostgresRunner<C>, client: C, eventId: string): TransactionalClaim<C> {
  let ended = false;
  const transaction = guarded(client, eventId, () => ended);
  return {
    result: 'claimed',
    transaction,
    async commit(options) {
      if (ended) throw new Error('the transaction already ended');
      ended = true;
      await commit(db, client, eventId, options?.signal);
    },
    async rollback(options) {
      if (ended) return;
      ended = true;
      await rollback(db, client, options?.signal);
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

/**
 * `context.transaction` refuses transaction control against a real PostgreSQL: node-postgres's own
 * BEGIN/COMMIT recipe run inside `onEvent` (through `createWebhookHandler` and
 * `PostgresEventStore`) cannot commit the event's processed mark before `onEvent` is done, so a
 * later failing step is retried on redelivery, never acknowledged as a duplicate unprocessed. Every
 * query form node-postgres accepts is refused before anything is sent; savepoints work.
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { createWebhookHandler, type TransactionalEventContext } from '../../src/webhooks/index.js';
import { delivery } from './helpers/deliveries.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeEventTables } from './helpers/tables.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;

describe.skipIf(!POSTGRES_AVAILABLE)('no early commit through context.transaction (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let app: pg.Pool;
  let n = 0;
  let table: string;
  const count = async (sql: string): Promise<number> => Number((await admin.query<{ c: string }>(sql)).rows[0]!.c);
  const credits = (): Promise<number> => count(`SELECT count(*) AS c FROM ${table}_credits`);
  const marks = (): Promise<number> => count(`SELECT count(*) AS c FROM ${table}`);
  const credit = (tx: pg.PoolClient, eventId: string, receiver = 'test') =>
    tx.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ($1, $2)`, [eventId, receiver]);

  /** A receiver whose onEvent is `work`, counting its calls. */
  function receiver(work: (eventId: string, tx: pg.PoolClient) => Promise<void>) {
    const calls = { n: 0 };
    const handler = createWebhookHandler({
      store: new PostgresEventStore({ pool: app, table, ...PATIENT }),
      logLevel: 'off',
      onEvent: async (event, { transaction }: TransactionalEventContext<pg.PoolClient>) => {
        calls.n++;
        await work(event.event_id, transaction);
      },
    });
    const deliver = (id: string) => {
      const { body, headers } = delivery(id);
      return handler.handle(body, headers);
    };
    return { deliver, calls };
  }

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
    app = poolOf(server.appUrl, 4);
  }, 120_000);
  beforeEach(async () => {
    table = `tx_${++n}`;
    await makeEventTables(admin, table);
  });
  afterAll(async () => {
    await app?.end();
    await admin?.end();
    await server?.destroy();
  });

  it("node-postgres's BEGIN/COMMIT recipe verbatim: refused at BEGIN, nothing committed (500), and every redelivery runs onEvent again", async () => {
    const errors: string[] = [];
    const { deliver, calls } = receiver(async (eventId, client) => {
      // https://node-postgres.com/features/transactions, with the receiver's client (no pool.connect, no release).
      try {
        await client.query('BEGIN');
        await credit(client, eventId);
        await client.query('COMMIT');
      } catch (e) {
        errors.push(String(e));
        await client.query('ROLLBACK');
        throw e;
      }
    });
    for (let i = 1; i <= 2; i++) {
      expect(await deliver('r1')).toMatchObject({ status: 500, outcome: 'failed' });
      expect(calls.n).toBe(i);
      expect(await credits()).toBe(0);
      expect(await marks()).toBe(0);
    }
    expect(errors[0]).toMatch(/BEGIN refused on the transaction of event r1: the webhook receiver commits it when onEvent resolves/);
  });

  it('a COMMIT in the middle cannot commit the mark early: a later failing step gives 500, its redelivery retries the step and processes once', async () => {
    const refusals: string[] = [];
    let stepAttempts = 0;
    const { deliver, calls } = receiver(async (eventId, client) => {
      // Code written for a client of its own, tolerant of its BEGIN and COMMIT failing.
      await client.query('BEGIN').catch((e: unknown) => refusals.push(String(e)));
      await credit(client, eventId);
      await client.query('COMMIT').catch((e: unknown) => refusals.push(String(e)));
      stepAttempts++;
      if (stepAttempts === 1) throw new Error('the next step failed');
    });
    expect(await deliver('m1')).toMatchObject({ status: 500, outcome: 'failed' });
    expect(await credits()).toBe(0);
    expect(await marks()).toBe(0);
    expect(refusals).toHaveLength(2);
    expect(refusals[1]).toMatch(/COMMIT refused/);
    expect(await deliver('m1')).toMatchObject({ status: 200, outcome: 'processed' });
    expect(stepAttempts).toBe(2);
    expect(await deliver('m1')).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(calls.n).toBe(2);
    expect(await credits()).toBe(1);
  });

  it('refuses every query form before sending it, keeps the transaction usable, and savepoints work', async () => {
    const store = new PostgresEventStore({ pool: app, table, ...PATIENT });
    const claim = await store.claimInTransaction('f1', { ttlMs: 60_000, waitMs: 5_000 });
    if (claim.result !== 'claimed') throw new Error(`expected a claim, got ${claim.result}`);
    try {
      await formsAndSavepoints(claim.transaction);
      // Before the receiver's commit, nothing is visible to another session.
      expect(await credits()).toBe(0);
    } catch (err) {
      await claim.rollback(); // never leave the pool's client checked out
      throw err;
    }
    await claim.commit();
    expect((await admin.query(`SELECT receiver FROM ${table}_credits ORDER BY id`)).rows.map((r) => r.receiver)).toEqual([
      ';COMMIT',
      "x'; COMMIT; --",
      'callback',
    ]);
    expect(await marks()).toBe(1);
  });

  async function formsAndSavepoints(tx: pg.PoolClient): Promise<void> {
    await expect(tx.query('commit')).rejects.toThrow(/^COMMIT refused on the transaction of event f1/);
    await expect(tx.query({ text: '/* done */\n  End Transaction' })).rejects.toThrow(/^END refused/);
    await expect(tx.query({ text: 'ROLLBACK', values: [] })).rejects.toThrow(/^ROLLBACK refused/);
    // Several statements: the INSERT before the COMMIT is not sent either.
    await expect(tx.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ('f1', 'multi'); COMMIT`)).rejects.toThrow(
      /^COMMIT refused/,
    );
    await expect(tx.query('-- isolation\nSET TRANSACTION ISOLATION LEVEL SERIALIZABLE')).rejects.toThrow(/^SET TRANSACTION refused/);
    await expect(tx.query("PREPARE TRANSACTION 'early'")).rejects.toThrow(/^PREPARE TRANSACTION refused/);
    // The callback form: the callback gets the error, the call returns nothing.
    const viaCallback = await new Promise<Error | null>((resolve) => {
      expect(tx.query('ABORT', (err: Error) => resolve(err))).toBeUndefined();
    });
    expect(viaCallback?.message).toMatch(/^ABORT refused/);
    // A submittable (pg.Query): its error is reported through it, as the driver reports its own.
    const submitted = new pg.Query('START TRANSACTION');
    const failed = new Promise<Error>((resolve) => submitted.on('error', resolve));
    expect(tx.query(submitted)).toBe(submitted);
    expect((await failed).message).toMatch(/^START TRANSACTION refused/);
    await expect(tx.query({ name: 'prepared-elsewhere' } as pg.QueryConfig)).rejects.toThrow(/cannot be read/);

    // Nothing of the above reached the server: the transaction is not aborted, and savepoints work.
    await tx.query('SAVEPOINT part');
    await tx.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ('f1', 'undone')`);
    await tx.query('rollback to savepoint part');
    await tx.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ($1, ';COMMIT')`, ['f1']);
    await tx.query('RELEASE part');
    await tx.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ('f1', 'x''; COMMIT; --')`);
    await new Promise<void>((resolve, reject) =>
      tx.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ('f1', 'callback')`, (err: Error | null) =>
        err ? reject(err) : resolve(),
      ),
    );
  }
});

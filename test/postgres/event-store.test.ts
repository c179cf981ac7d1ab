/**
 * `PostgresEventStore` against a real PostgreSQL server, in one process: the plain event-store
 * contract, and the transactional receiver: `onEvent` writes the merchant's effect (a row of a
 * credits table without a unique key, so a second processing would show as a second row) through
 * `context.transaction`, which commits with the event's mark or not at all. Concurrent deliveries,
 * failures inside `onEvent`, a killed connection, a statement timeout, a deadlock, PostgreSQL
 * stopped. Every case counts the rows of the merchant's table.
 */
import { inspect } from 'node:util';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresEventStore, PostgresStoreError } from '../../src/postgres/index.js';
import { createWebhookHandler, type WebhookHandlerOptions, type WebhookResponse } from '../../src/webhooks/index.js';
import { delivery } from './helpers/deliveries.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeEventTables } from './helpers/tables.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;

/** A promise and its resolver: an event the test decides, never a delay. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresEventStore (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const pool = (url = server.appUrl): pg.Pool => {
    const p = poolOf(url, 8);
    pools.push(p);
    return p;
  };
  let n = 0;
  let table: string;
  const credits = async (eventId?: string): Promise<number> =>
    Number(
      (
        await admin.query<{ c: string }>(
          `SELECT count(*) AS c FROM ${table}_credits ${eventId === undefined ? '' : 'WHERE event_id = $1'}`,
          eventId === undefined ? [] : [eventId],
        )
      ).rows[0]!.c,
    );
  const marks = async (): Promise<Array<{ event_id: string; state: string }>> =>
    (await admin.query<{ event_id: string; state: string }>(`SELECT event_id, state FROM ${table} ORDER BY event_id`)).rows;

  /** A receiver whose onEvent credits the event through the transaction, then runs `after`. */
  function receiver(
    store: PostgresEventStore<pg.PoolClient>,
    after: (eventId: string, tx: pg.PoolClient) => Promise<void> = async () => undefined,
    options: Partial<Omit<WebhookHandlerOptions, 'onEvent' | 'store'>> = {},
  ) {
    return createWebhookHandler({
      store,
      logLevel: 'off',
      ...options,
      onEvent: async (event, { transaction }) => {
        await transaction.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ($1, 'test')`, [event.event_id]);
        await after(event.event_id, transaction);
      },
    });
  }
  const deliver = (handler: { handle: (b: string, h: Record<string, string>) => Promise<WebhookResponse> }, id: string) => {
    const { body, headers } = delivery(id);
    return handler.handle(body, headers);
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 4);
  }, 120_000);
  beforeEach(async () => {
    table = `events_${++n}`;
    await makeEventTables(admin, table);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  describe('the plain EventStore contract', () => {
    it('claims once, answers in_progress under a live claim and duplicate once completed; release frees only its own claim', async () => {
      const a = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
      const b = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
      expect(await a.claim('e1', 60_000)).toBe('claimed');
      expect(await b.claim('e1', 60_000)).toBe('in_progress');
      await b.release('e1'); // not b's claim: nothing happens
      expect(await b.claim('e1', 60_000)).toBe('in_progress');
      await a.release('e1');
      expect(await b.claim('e1', 60_000)).toBe('claimed');
      await b.complete('e1');
      await b.release('e1'); // never removes a completed row
      expect(await a.claim('e1', 60_000)).toBe('duplicate');
      expect(await marks()).toEqual([{ event_id: 'e1', state: 'completed' }]);
    });

    it("an expired claim (the database's clock) is claimed again; of concurrent claims exactly one wins", async () => {
      const a = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
      expect(await a.claim('e2', 3_600_000)).toBe('claimed');
      await admin.query(`UPDATE ${table} SET lease_until = clock_timestamp() - interval '1 ms'`);
      expect(await a.claim('e2', 60_000)).toBe('claimed');
      const stores = Array.from({ length: 6 }, () => new PostgresEventStore({ pool: pool(), table, ...PATIENT }));
      const results = await Promise.all(stores.map((s) => s.claim('e3', 60_000)));
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'in_progress')).toHaveLength(5);
    });

    it('prunes completed ids past the retention, creates its schema idempotently, shows its table only', async () => {
      const owner = new PostgresEventStore({ pool: pool(server.url), table: `${table}_own`, retentionMs: 60_000 });
      await owner.ensureSchema();
      await owner.ensureSchema();
      await owner.complete('old');
      await owner.complete('new');
      await admin.query(`UPDATE ${table}_own SET completed_at = clock_timestamp() - interval '2 minutes' WHERE event_id = 'old'`);
      expect(await owner.prune()).toBe(1);
      expect(await owner.claim('old', 1000)).toBe('claimed');
      expect(await owner.claim('new', 1000)).toBe('duplicate');
      expect(inspect(owner)).toBe(`PostgresEventStore { table: '${table}_own', degraded: false }`);
    });
  });

  describe('transactional processing (context.transaction)', () => {
    it('commits the effect with the mark: one row, and every redelivery is a duplicate', async () => {
      const handler = receiver(new PostgresEventStore({ pool: pool(), table, ...PATIENT }));
      expect(await deliver(handler, 't1')).toMatchObject({ status: 200, outcome: 'processed' });
      for (let i = 0; i < 3; i++) expect(await deliver(handler, 't1')).toMatchObject({ status: 200, outcome: 'duplicate' });
      expect(await credits('t1')).toBe(1);
      expect(await marks()).toEqual([{ event_id: 't1', state: 'completed' }]);
    });

    it('onEvent throwing after its insert rolls both back (500); the redelivery processes it once', async () => {
      let fail = true;
      const handler = receiver(new PostgresEventStore({ pool: pool(), table, ...PATIENT }), async () => {
        if (fail) throw new Error('the merchant code failed after its insert');
      });
      expect(await deliver(handler, 't2')).toMatchObject({ status: 500, outcome: 'failed' });
      expect(await credits()).toBe(0);
      expect(await marks()).toEqual([]);
      fail = false;
      expect(await deliver(handler, 't2')).toMatchObject({ status: 200, outcome: 'processed' });
      expect(await credits('t2')).toBe(1);
    });

    it('a second delivery while the first is in flight waits for it, then is a duplicate (committed) or processes (rolled back)', async () => {
      const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
      const held = gate();
      const entered = gate();
      let outcome: 'commit' | 'throw' = 'commit';
      const first = receiver(store, async () => {
        entered.open();
        await held.opened;
        if (outcome === 'throw') throw new Error('rolled back');
      });
      const second = receiver(store);
      for (const [id, how] of [
        ['c1', 'commit'],
        ['c2', 'throw'],
      ] as const) {
        outcome = how;
        Object.assign(held, gate());
        Object.assign(entered, gate());
        const one = deliver(first, id);
        await entered.opened;
        const two = deliver(second, id);
        // The second delivery's insert waits on the first's uncommitted row: seen in pg_stat_activity.
        for (;;) {
          const { rows } = await admin.query(
            `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO "${table}"%'`,
          );
          if (rows.length > 0) break;
        }
        held.open();
        const [a, b] = await Promise.all([one, two]);
        if (how === 'commit') {
          expect([a.outcome, b.outcome]).toEqual(['processed', 'duplicate']);
        } else {
          expect([a.outcome, b.outcome]).toEqual(['failed', 'processed']);
        }
        expect(await credits(id)).toBe(1);
      }
    });

    it('a second delivery waits no longer than its own bound: 409, nothing processed twice', async () => {
      const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
      const held = gate();
      const entered = gate();
      const first = receiver(store, async () => {
        entered.open();
        await held.opened;
      });
      const impatient = receiver(store, async () => undefined, { timeoutMs: 300, claimTtlMs: 60_000 });
      const one = deliver(first, 'w1');
      await entered.opened;
      expect(await deliver(impatient, 'w1')).toMatchObject({ status: 409, outcome: 'in_progress' });
      held.open();
      expect(await one).toMatchObject({ outcome: 'processed' });
      expect(await deliver(impatient, 'w1')).toMatchObject({ outcome: 'duplicate' });
      expect(await credits('w1')).toBe(1);
    });

    it('a failed statement that onEvent swallowed: COMMIT rolls back, the delivery is answered 503, and the redelivery processes it', async () => {
      let swallow = true;
      const handler = receiver(new PostgresEventStore({ pool: pool(), table, ...PATIENT }), async (_id, tx) => {
        if (swallow) await tx.query('SELECT 1/0').catch(() => undefined);
      });
      expect(await deliver(handler, 's1')).toMatchObject({ status: 503, outcome: 'store_error' });
      expect(await credits()).toBe(0);
      swallow = false;
      expect(await deliver(handler, 's1')).toMatchObject({ status: 200, outcome: 'processed' });
      expect(await credits('s1')).toBe(1);
    });

    it('the transaction refuses use after onEvent settled, and is not the merchant code to release', async () => {
      let kept: pg.PoolClient | undefined;
      let releaseError: unknown;
      const handler = receiver(new PostgresEventStore({ pool: pool(), table, ...PATIENT }), async (_id, tx) => {
        kept = tx;
        try {
          tx.release();
        } catch (err) {
          releaseError = err;
        }
      });
      expect(await deliver(handler, 'u1')).toMatchObject({ outcome: 'processed' });
      expect(String(releaseError)).toMatch(/the webhook receiver's to end/);
      await expect(kept!.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ('u1', 'late')`)).rejects.toThrow(/has ended/);
      expect(await credits('u1')).toBe(1);
    });

    it('a connection killed between the insert and the commit: 503, nothing kept, the redelivery processes it once', async () => {
      let kill = true;
      const handler = receiver(new PostgresEventStore({ pool: pool(), table, ...PATIENT }), async (_id, tx) => {
        if (!kill) return;
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      });
      expect(await deliver(handler, 'k1')).toMatchObject({ status: 503, outcome: 'store_error' });
      expect(await credits()).toBe(0);
      expect(await marks()).toEqual([]);
      kill = false;
      expect(await deliver(handler, 'k1')).toMatchObject({ outcome: 'processed' });
      expect(await credits('k1')).toBe(1);
    });

    it('a statement timeout inside onEvent rolls back (500); the redelivery processes it once', async () => {
      // The test holds an advisory lock that onEvent's statement waits for: it can only end by
      // the statement timeout, however fast or slow the machine.
      const holder = await admin.connect();
      await holder.query('SELECT pg_advisory_lock(4242)');
      try {
        let slow = true;
        const handler = receiver(new PostgresEventStore({ pool: pool(), table, ...PATIENT }), async (_id, tx) => {
          if (!slow) return;
          await tx.query("SET LOCAL statement_timeout = '1ms'");
          await tx.query('SELECT pg_advisory_xact_lock(4242)');
        });
        expect(await deliver(handler, 'st1')).toMatchObject({ status: 500, outcome: 'failed' });
        expect(await credits()).toBe(0);
        slow = false;
        expect(await deliver(handler, 'st1')).toMatchObject({ outcome: 'processed' });
        expect(await credits('st1')).toBe(1);
      } finally {
        await holder.query('SELECT pg_advisory_unlock(4242)');
        holder.release();
      }
    });

    it("a deadlock between two events' transactions: one is rolled back (500) and processed on redelivery; one row each", async () => {
      await admin.query(`CREATE TABLE ${table}_accounts (id int PRIMARY KEY, balance int NOT NULL)`);
      await admin.query(`INSERT INTO ${table}_accounts VALUES (1, 0), (2, 0)`);
      await admin.query(`GRANT SELECT, UPDATE ON ${table}_accounts TO merchant_app`);
      const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
      const firstLocks = [gate(), gate()];
      let crossing = true;
      const handler = receiver(store, async (id, tx) => {
        const [mine, other] = id === 'd1' ? [1, 2] : [2, 1];
        await tx.query(`UPDATE ${table}_accounts SET balance = balance + 1 WHERE id = $1`, [mine]);
        if (!crossing) return;
        firstLocks[mine - 1]!.open();
        await Promise.all(firstLocks.map((g) => g.opened));
        await tx.query(`UPDATE ${table}_accounts SET balance = balance + 1 WHERE id = $1`, [other]);
      });
      const results = await Promise.all([deliver(handler, 'd1'), deliver(handler, 'd2')]);
      expect(results.map((r) => r.outcome).sort()).toEqual(['failed', 'processed']);
      crossing = false;
      const lost = results.find((r) => r.outcome === 'failed')!.event!.event_id;
      expect(await deliver(handler, lost)).toMatchObject({ outcome: 'processed' });
      expect(await credits('d1')).toBe(1);
      expect(await credits('d2')).toBe(1);
    });

    it('PostgreSQL stopped: every delivery is answered 503 and onEvent never runs; after a restart each event is processed once', async () => {
      const down = await startPostgres();
      try {
        const downAdmin = poolOf(down.url, 1);
        await makeEventTables(downAdmin, 'ev');
        let calls = 0;
        const handler = createWebhookHandler({
          store: new PostgresEventStore({ pool: pool(down.appUrl), table: 'ev', ...PATIENT }),
          logLevel: 'off',
          onEvent: async (event, { transaction }) => {
            calls++;
            await transaction.query(`INSERT INTO ev_credits (event_id, receiver) VALUES ($1, 'test')`, [event.event_id]);
          },
        });
        await downAdmin.end();
        await down.stop();
        for (const id of ['o1', 'o2', 'o1']) expect(await deliver(handler, id)).toMatchObject({ status: 503, outcome: 'store_error' });
        expect(calls).toBe(0);
        await down.start();
        for (const id of ['o1', 'o2', 'o1', 'o2']) expect((await deliver(handler, id)).status).toBe(200);
        const check = poolOf(down.url, 1);
        expect((await check.query('SELECT event_id, count(*)::int AS c FROM ev_credits GROUP BY event_id ORDER BY 1')).rows).toEqual([
          { event_id: 'o1', c: 1 },
          { event_id: 'o2', c: 1 },
        ]);
        await check.end();
      } finally {
        await down.destroy();
      }
    }, 120_000);

    it('names the failure: a missing table is misconfigured and never processed', async () => {
      const store = new PostgresEventStore({ pool: pool(), table: 'no_such_table', ...PATIENT });
      const err = await store.claimInTransaction('x', { ttlMs: 60_000, waitMs: 1000 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PostgresStoreError);
      expect(err).toMatchObject({ kind: 'misconfigured', code: '42P01' });
      await expect(store.claim('x', 1000)).rejects.toMatchObject({ code: '42P01' });
    });
  });
});

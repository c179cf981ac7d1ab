/**
 * `PostgresEventStore`'s edges against a real PostgreSQL: what each failure names (its
 * operation, whether it was sent), a claim found in progress, a transaction ended twice, a commit
 * asked after the delivery's time, a rollback PostgreSQL does not answer, and the default
 * retention of `prune()`.
 */
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/postgres/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { delivery } from './helpers/deliveries.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeEventTables } from './helpers/tables.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresEventStore edges (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  let n = 0;
  let table: string;
  const pool = (url = server.appUrl, max = 2): pg.Pool => {
    const p = poolOf(url, max);
    pools.push(p);
    return p;
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
  }, 120_000);
  beforeEach(async () => {
    table = `edge_${++n}`;
    await makeEventTables(admin, table);
  });
  afterAll(async () => {
    server?.thaw();
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  it('names the operation of each failure, and a connection never had as unsent', async () => {
    // Nothing listens on port 1: every connection is refused.
    const store = new PostgresEventStore({ pool: pool('postgres://nobody@127.0.0.1:1/postgres'), table, ...PATIENT });
    const unsent = { name: 'PostgresStoreError', kind: 'unreachable', executed: false };
    await expect(store.claimInTransaction('e', { ttlMs: 60_000, waitMs: 1000 })).rejects.toMatchObject({
      ...unsent,
      operation: 'claim an event',
    });
    await expect(store.claim('e', 1000)).rejects.toMatchObject({ ...unsent, operation: 'claim an event' });
    await expect(store.complete('e')).rejects.toMatchObject({ ...unsent, operation: 'complete an event' });
    await expect(store.prune()).rejects.toMatchObject({ ...unsent, operation: 'prune events' });
    await expect(store.ensureSchema()).rejects.toMatchObject({ ...unsent, operation: 'create the event table' });
  });

  it('a plain claim in progress is in_progress to the transactional claim; released, it is claimed', async () => {
    const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
    expect(await store.claim('m1', 60_000)).toBe('claimed');
    expect(await store.claimInTransaction('m1', { ttlMs: 60_000, waitMs: 1000 })).toEqual({ result: 'in_progress' });
    await store.release('m1');
    const tx = await store.claimInTransaction('m1', { ttlMs: 60_000, waitMs: 1000 });
    expect(tx.result).toBe('claimed');
    if (tx.result === 'claimed') await tx.commit();
    expect(await store.claim('m1', 60_000)).toBe('duplicate');
  });

  it('a transaction ends once: a second commit is refused, a rollback after it does nothing; the pool is at rest', async () => {
    const single = pool(server.appUrl, 1);
    const store = new PostgresEventStore({ pool: single, table, ...PATIENT });
    const tx = await store.claimInTransaction('o1', { ttlMs: 60_000, waitMs: 1000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    await tx.commit();
    await expect(tx.commit()).rejects.toThrow(/already ended/);
    await tx.rollback();
    expect([single.totalCount, single.idleCount, single.waitingCount]).toEqual([1, 1, 0]);
    expect((await admin.query(`SELECT event_id, state FROM ${table}`)).rows).toEqual([{ event_id: 'o1', state: 'completed' }]);
  });

  it('a commit asked after the delivery was to be answered is never sent: rejected, nothing kept', async () => {
    const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
    const tx = await store.claimInTransaction('a1', { ttlMs: 60_000, waitMs: 1000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    await expect(tx.commit({ signal: AbortSignal.abort(new Error('answered')) })).rejects.toMatchObject({
      name: 'PostgresStoreError',
      operation: 'commit an event',
    });
    expect((await admin.query(`SELECT event_id FROM ${table}`)).rows).toEqual([]);
    expect(await store.claim('a1', 60_000)).toBe('claimed');
  });

  it('a 25P02 commit (onEvent swallowed a failed statement) names what happened', async () => {
    const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
    const tx = await store.claimInTransaction('z1', { ttlMs: 60_000, waitMs: 1000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    await tx.transaction.query('SELECT 1/0').catch(() => undefined);
    await expect(tx.commit()).rejects.toMatchObject({
      code: '25P02',
      operation: 'commit an event',
      message: expect.stringMatching(/aborted by a failed statement of onEvent, and rolled back/),
    });
  });

  it('PostgreSQL frozen while onEvent fails: 500 within the bound, the rollback abandoned and logged; the redelivery processes it once', async () => {
    const lines: string[] = [];
    let freeze = true;
    const handler = createWebhookHandler({
      store: new PostgresEventStore({ pool: pool(), table, ...PATIENT, logger: { warn: (m: string) => lines.push(m) } }),
      timeoutMs: 1500,
      logLevel: 'off',
      onEvent: async (event, { transaction }) => {
        await transaction.query(`INSERT INTO ${table}_credits (event_id, receiver) VALUES ($1, 'test')`, [event.event_id]);
        if (!freeze) return;
        server.freeze();
        throw new Error('the merchant code failed');
      },
    });
    const { body, headers } = delivery('r1');
    const began = performance.now();
    let status: number;
    try {
      status = (await handler.handle(body, headers)).status;
    } finally {
      server.thaw();
    }
    expect(status).toBe(500);
    expect(performance.now() - began).toBeLessThan(10_000);
    expect(lines.filter((l) => !l.includes('misconfigured pool'))).toEqual([
      expect.stringMatching(/PostgreSQL is not answering: .*roll back an event/),
    ]);
    freeze = false;
    expect((await handler.handle(body, headers)).status).toBe(200);
    expect((await admin.query(`SELECT count(*)::int AS c FROM ${table}_credits`)).rows).toEqual([{ c: 1 }]);
  }, 60_000);

  it('prune() keeps processed ids 30 days by default', async () => {
    const store = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
    await store.complete('recent');
    await store.complete('old');
    await admin.query(`UPDATE ${table} SET completed_at = clock_timestamp() - $1 * interval '1 millisecond' WHERE event_id = 'recent'`, [
      29 * DAY_MS,
    ]);
    await admin.query(`UPDATE ${table} SET completed_at = clock_timestamp() - $1 * interval '1 millisecond' WHERE event_id = 'old'`, [
      31 * DAY_MS,
    ]);
    expect(await store.prune()).toBe(1);
    expect((await admin.query(`SELECT event_id FROM ${table}`)).rows).toEqual([{ event_id: 'recent' }]);
  });
});

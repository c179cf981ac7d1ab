/**
 * `PostgresPayoutStore` when PostgreSQL fails it, against a real server, as the least-privilege
 * role: stopped (every call a typed failure, nothing half-written, the outage logged once), a
 * grant revoked (refused, the grant named, logged), and a replace whose answer is lost with the
 * server frozen (the re-read says whether it landed; repeating it never writes twice).
 */
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresPayoutStore, PostgresStoreError } from '../../src/postgres/index.js';
import { failure } from '../helpers/client.js';
import { payoutRecord } from '../payouts/helpers/records.js';
import { APP_ROLE, POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makePayoutTable } from './helpers/tables.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;

/** Polls `check` until it holds (each check is a round trip to the server: no timer paces it), failing past a generous bound. */
async function until(check: () => Promise<boolean>, what: string, boundMs = 60_000): Promise<void> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > boundMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresPayoutStore when PostgreSQL fails it (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const pool = (url: string, max = 4): pg.Pool => {
    const p = poolOf(url, max);
    pools.push(p);
    return p;
  };
  let n = 0;
  let table: string;
  const rowsOf = async (): Promise<unknown[]> =>
    (await admin.query(`SELECT reference, version, state, record FROM ${table} ORDER BY reference`)).rows;

  /** Every write of the table counted by a trigger, as its owner: a second write of a version would show. */
  const countWrites = async (): Promise<void> => {
    await admin.query(`CREATE TABLE ${table}_writes (n bigserial, reference text, version int, state text)`);
    await admin.query(`CREATE FUNCTION ${table}_count() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER AS $$
      BEGIN INSERT INTO ${table}_writes (reference, version, state) VALUES (NEW.reference, NEW.version, NEW.state); RETURN NEW; END $$`);
    await admin.query(`CREATE TRIGGER ${table}_count AFTER INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_count()`);
  };
  const writesOf = async (reference: string): Promise<unknown[]> =>
    (await admin.query(`SELECT version, state FROM ${table}_writes WHERE reference = $1 ORDER BY n`, [reference])).rows;

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
  }, 120_000);
  beforeEach(async () => {
    table = `payouts_${++n}`;
    await makePayoutTable(admin, table);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  it('stopped: every call rejects typed and unsent, nothing is half-written, the outage is logged once; after a restart it goes on', async () => {
    const down = await startPostgres();
    try {
      const downAdmin = poolOf(down.url, 1);
      await makePayoutTable(downAdmin, 'payouts');
      await downAdmin.end();
      const lines: string[] = [];
      const logger = { warn: (m: string) => lines.push(m), info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
      const store = new PostgresPayoutStore({ pool: pool(down.appUrl), table: 'payouts', logger, ...PATIENT });
      const r1 = payoutRecord({ reference: 'ord-1' });
      await store.create(r1);
      await down.stop();
      const r2 = { ...r1, version: 2, state: 'debited' as const, withdrawalId: 'wdr_1' };
      const calls = [
        () => store.create(payoutRecord({ reference: 'ord-2' })),
        () => store.replace(r2),
        () => store.get('ord-1'),
        () => store.list({ limit: 5 }),
        () => store.now(),
      ];
      for (const call of calls) {
        const err = await failure(call());
        expect(err).toBeInstanceOf(PostgresStoreError);
        expect(err).toMatchObject({ kind: 'unreachable', executed: false });
      }
      expect(lines.filter((l) => /the payout store: PostgreSQL is not answering/.test(l))).toHaveLength(1);
      await down.start();
      expect(await store.get('ord-1')).toEqual(r1);
      expect(await store.get('ord-2')).toBeUndefined();
      const check = poolOf(down.url, 1);
      const { rows } = await check.query(`SELECT reference, version, state, record FROM payouts`);
      await check.end();
      expect(rows).toEqual([{ reference: 'ord-1', version: 1, state: 'debit_pending', record: JSON.stringify(r1) }]);
      expect(await store.replace(r2)).toBe(true);
      expect(lines.filter((l) => /the payout store: PostgreSQL answers again/.test(l))).toHaveLength(1);
      expect(lines).toHaveLength(2);
    } finally {
      await down.destroy();
    }
  }, 120_000);

  it('a revoked grant: the statement is refused, the grant named in the error and the log, nothing changed; granted again, it works', async () => {
    const lines: string[] = [];
    const store = new PostgresPayoutStore({
      pool: pool(server.appUrl),
      table,
      logger: { error: (m: string) => lines.push(m) },
      ...PATIENT,
    });
    const r1 = payoutRecord({ reference: 'ord-g' });
    await store.create(r1);
    await admin.query(`REVOKE UPDATE ON ${table} FROM ${APP_ROLE}`);
    const r2 = { ...r1, version: 2, state: 'debited' as const };
    const err = await failure(store.replace(r2));
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind: 'misconfigured', code: '42501', executed: false, operation: 'replace a payout' });
    expect((err as Error).message).toContain(
      `PostgreSQL refused to replace a payout: permission denied for table ${table} (SQLSTATE 42501)`,
    );
    expect(lines).toEqual([`merchant-stablecoin/postgres: the payout store: ${(err as Error).message}`]);
    await admin.query(`REVOKE INSERT ON ${table} FROM ${APP_ROLE}`);
    expect(await failure(store.create(payoutRecord({ reference: 'ord-h' })))).toMatchObject({
      code: '42501',
      operation: 'create a payout',
    });
    expect(await store.get('ord-g')).toEqual(r1);
    expect(await rowsOf()).toHaveLength(1);
    await admin.query(`GRANT INSERT, UPDATE ON ${table} TO ${APP_ROLE}`);
    expect(await store.replace(r2)).toBe(true);
    expect(await store.get('ord-g')).toEqual(r2);
  });

  it('a replace whose answer is lost (server frozen past statementTimeoutMs): the re-read says whether it landed, and the write happens once', async () => {
    await countWrites();
    const name = `lost-${table}`;
    // One connection, named: the frozen statement's session is found in pg_stat_activity.
    const frozenPool = pool(`${server.appUrl}?application_name=${name}`, 1);
    const store = new PostgresPayoutStore({ pool: frozenPool, table, statementTimeoutMs: 2000 });
    const r1 = payoutRecord({ reference: 'ord-lost', state: 'debited', withdrawalId: 'wdr_l' });
    await store.create(r1); // the pool's connection open, the table verified: the replace goes out at once
    const r2 = { ...r1, version: 2, state: 'paying' as const, handOut: { at: 1, leaseUntil: 123_456.5, worker: 'w-1' } };
    server.freeze();
    let err: unknown;
    try {
      err = await failure(store.replace(r2));
    } finally {
      server.thaw();
    }
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind: 'unreachable', executed: undefined, operation: 'replace a payout' });
    // The destroyed session ends once it has run (or dropped) what it had been sent.
    const sessions = async (): Promise<number> =>
      Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1`, [name])).rows[0].n);
    await until(async () => (await sessions()) === 0, 'the frozen session to end');
    const reread = await store.get('ord-lost');
    const landed = reread?.version === 2;
    expect(reread).toEqual(landed ? r2 : r1);
    // The workflow's next step after a lost answer: read, then write only over what it read.
    expect(await store.replace(r2)).toBe(!landed);
    expect(await store.replace({ ...r1, version: 2, state: 'needs_attention' })).toBe(false);
    expect(await store.get('ord-lost')).toEqual(r2);
    expect(await writesOf('ord-lost')).toEqual([
      { version: 1, state: 'debited' },
      { version: 2, state: 'paying' },
    ]);
  });

  it('a replace past statementTimeoutMs behind a row lock: the re-read still shows the old version, and of it and the next writer only one lands', async () => {
    await countWrites();
    const name = `locked-${table}`;
    const store = new PostgresPayoutStore({ pool: pool(`${server.appUrl}?application_name=${name}`, 1), table, statementTimeoutMs: 2000 });
    const next = new PostgresPayoutStore({ pool: pool(server.appUrl), table, ...PATIENT });
    const r1 = payoutRecord({ reference: 'ord-locked', state: 'debited', withdrawalId: 'wdr_k' });
    await store.create(r1);
    const locker = await admin.connect();
    let late: Promise<boolean> | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM ${table} WHERE reference = 'ord-locked' FOR UPDATE`);
      const err = await failure(store.replace({ ...r1, version: 2, state: 'paying' }));
      expect(err).toMatchObject({ kind: 'unreachable', executed: undefined, operation: 'replace a payout' });
      // The lost statement still waits on the lock: the re-read shows the old version...
      expect(await next.get('ord-locked')).toEqual(r1);
      // ...and the next writer, going by it, writes over version 1 too (behind the same lock, or
      // after it: which of the two lands first is not the point, that only one lands is).
      late = next.replace({ ...r1, version: 2, state: 'needs_attention' });
    } finally {
      await locker.query('COMMIT');
      locker.release();
    }
    const nextWon = await late;
    const sessions = async (): Promise<number> =>
      Number((await admin.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1`, [name])).rows[0].n);
    await until(async () => (await sessions()) === 0, 'the timed-out session to end');
    const stored = await next.get('ord-locked');
    expect(stored?.version).toBe(2);
    expect(stored?.state).toBe(nextWon ? 'needs_attention' : 'paying');
    expect(await writesOf('ord-locked')).toEqual([
      { version: 1, state: 'debited' },
      { version: 2, state: stored?.state },
    ]);
  });
});

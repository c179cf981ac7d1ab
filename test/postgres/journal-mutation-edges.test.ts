/**
 * Edges of `PostgresJournal` the contract suite (journal.test.ts) does not reach, against a real
 * PostgreSQL and the least-privilege role: a record the server refused leaves nothing behind
 * its settle, a tombstone's key settled again after its revival is deleted, claims come back
 * oldest first whatever order the rows were written in, an intent stored under another scope is
 * set aside with the fields of its log line, and every operation names itself when PostgreSQL
 * cannot answer. One bound is checked on a pool-like object (the documented `connect()` shape):
 * how many lost records the journal remembers.
 */
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JournalClaimRequest, JournalIntent, LogFields } from '../../src/index.js';
import { PostgresJournal, PostgresStoreError } from '../../src/postgres/index.js';
import type { PostgresClientLike, PostgresPoolLike } from '../../src/postgres/connection.js';
import { failure } from '../helpers/client.js';
import { freePort } from '../fleet/helpers/redis-server.js';
import { startTcpProxy } from '../journal/helpers/tcp-proxy.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeJournalTable } from './helpers/tables.js';
import { journalLayout } from '../../src/postgres/schema.js';
import { answeringVerify } from './helpers/fitting-catalog.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;

const intent = (key: string, createdAt: number, scope = 'scope1'): JournalIntent => ({
  key,
  scope,
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{"asset":"USDT"}',
  withheld: false,
  member: 'ext-1',
  createdAt,
});
const request = (over: Partial<JournalClaimRequest> = {}): JournalClaimRequest => ({
  scope: 'scope1',
  createdBefore: 10_000,
  leaseMs: 60_000,
  limit: 10,
  ...over,
});

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresJournal edges (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const pool = (url = server.appUrl): pg.Pool => {
    const p = poolOf(url);
    pools.push(p);
    return p;
  };
  let n = 0;
  let table: string;
  const rowsIn = async (): Promise<Array<{ key: string; settled: boolean }>> =>
    (await admin.query<{ key: string; settled: boolean }>(`SELECT key, settled_at IS NOT NULL AS settled FROM ${table} ORDER BY key`)).rows;

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
  }, 120_000);
  beforeEach(async () => {
    table = `edges_${++n}`;
    await makeJournalTable(admin, table);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  it('a record the server refused (a revoked INSERT grant) stored nothing: its settle leaves the table empty', async () => {
    await admin.query(`REVOKE INSERT ON ${table} FROM merchant_app`);
    const j = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    const err = await failure(j.record(intent('r1', 100)));
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind: 'misconfigured', code: '42501', executed: false, operation: 'record an intent' });
    // A settle that deletes: no tombstone (which would need the INSERT grant) is written.
    await j.settle('scope1', 'r1');
    expect(await rowsIn()).toEqual([]);
  });

  it('a revived tombstone settled again is deleted, not buried a second time', async () => {
    const proxy = await startTcpProxy(server.port);
    try {
      const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
      const j = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
      const lost = proxy.faultOn(`INSERT INTO "${table}"`, 'lose-reply');
      await failure(j.record(intent('t1', 100)));
      await lost;
      await proxy.heal();
      await j.settle('scope1', 't1');
      expect(await rowsIn()).toEqual([{ key: 't1', settled: true }]);
      await j.record(intent('t1', 200));
      expect(await rowsIn()).toEqual([{ key: 't1', settled: false }]);
      await j.settle('scope1', 't1');
      expect(await rowsIn()).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('claims come back oldest first, then by key, even when the database answers in the order the rows lie on disk', async () => {
    const j = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    // Written newest first, three intents per instant, their keys written middle, first, last
    // (keys late in the alphabet: a comparison against a missing key gives no order by luck).
    const key = (i: number): string => `x${String(i).padStart(3, '0')}`;
    for (let group = 65; group >= 0; group--)
      for (const i of [3 * group + 1, 3 * group, 3 * group + 2]) await j.record(intent(key(i), 1000 + group));
    // With the table's statistics known (autovacuum's work on a busy table), PostgreSQL joins the
    // few picked rows by scanning the table: its UPDATE ... RETURNING comes back in disk order.
    await admin.query(`ANALYZE ${table}`);
    const claimed = await j.claim(request({ limit: 50 }));
    expect(claimed.map((r) => r.key)).toEqual(Array.from({ length: 50 }, (_, i) => key(i)));
  });

  it('a tombstone that could not be written names its operation, and the next settle still writes it', async () => {
    const proxy = await startTcpProxy(server.port);
    try {
      const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
      const j = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
      const lost = proxy.faultOn(`INSERT INTO "${table}"`, 'lose-reply');
      await failure(j.record(intent('t2', 100)));
      await lost;
      // The proxy is still cut: the tombstone cannot be written.
      const err = await failure(j.settle('scope1', 't2'));
      expect(err).toMatchObject({ kind: 'unreachable', executed: false, operation: 'settle an intent' });
      await proxy.heal();
      await j.settle('scope1', 't2');
      expect(await rowsIn()).toEqual([{ key: 't2', settled: true }]);
    } finally {
      await proxy.close();
    }
  });

  it('openAfter with a limit answers in one statement: no count when nothing is open', async () => {
    const proxy = await startTcpProxy(server.port);
    try {
      const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
      const j = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
      // A count statement would be cut; none is sent.
      void proxy.faultOn('SELECT count(*) AS total', 'drop');
      expect(await j.openAfter({ scope: 'scope1', createdAfter: 0, limit: 5 })).toEqual({ total: 0, intents: [] });
    } finally {
      await proxy.close();
    }
  });

  it('an intent stored under another scope is set aside, and the warn line names the table, the key and the problem', async () => {
    const lines: Array<{ message: string; fields: LogFields | undefined }> = [];
    const j = new PostgresJournal({
      pool: pool(),
      table,
      ...PATIENT,
      logger: { warn: (message, fields) => lines.push({ message, fields }) },
    });
    await admin.query(`INSERT INTO ${table} (scope, key, created_at, intent) VALUES ('scope1', 'k1', 5, $1)`, [
      JSON.stringify(intent('k1', 5, 'scope2')),
    ]);
    expect(await j.claim(request())).toEqual([
      { unreadable: true, key: 'k1', scope: 'scope1', problem: 'its key or scope differs from where it is stored' },
    ]);
    expect(lines).toEqual([
      {
        message: 'merchant-stablecoin/postgres: an unreadable journal record was claimed and set aside',
        fields: { table, idempotencyKey: 'k1', problem: 'its key or scope differs from where it is stored' },
      },
    ]);
  });

  it('the warn line names the default table when none is given', async () => {
    const lines: Array<LogFields | undefined> = [];
    await admin.query(`CREATE TABLE IF NOT EXISTS merchant_stablecoin_journal (LIKE ${table} INCLUDING ALL)`);
    await admin.query('GRANT SELECT, INSERT, UPDATE, DELETE ON merchant_stablecoin_journal TO merchant_app');
    try {
      await admin.query(`INSERT INTO merchant_stablecoin_journal (scope, key, created_at, intent) VALUES ('scope1', 'd1', 5, 'x')`);
      const j = new PostgresJournal({ pool: pool(), ...PATIENT, logger: { warn: (_m, fields) => lines.push(fields) } });
      expect(await j.claim(request())).toEqual([{ unreadable: true, key: 'd1', scope: 'scope1', problem: 'not JSON' }]);
      expect(lines).toEqual([{ table: 'merchant_stablecoin_journal', idempotencyKey: 'd1', problem: 'not JSON' }]);
    } finally {
      await admin.query('DROP TABLE merchant_stablecoin_journal');
    }
  });

  it('every operation names itself when PostgreSQL is not there (never sent: did not take effect)', async () => {
    const url = `postgres://merchant_app:x@127.0.0.1:${await freePort()}/postgres`;
    const j = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
    const cases: Array<[Promise<unknown>, string]> = [
      [j.ensureSchema(), 'create the journal table'],
      [j.record(intent('k', 1)), 'record an intent'],
      [j.settle('scope1', 'k'), 'settle an intent'],
      [j.claim(request()), 'claim intents'],
      [j.openAfter({ scope: 'scope1', createdAfter: 0, limit: 0 }), 'list open intents'],
    ];
    for (const [call, operation] of cases) {
      const err = await failure(call);
      expect(err).toBeInstanceOf(PostgresStoreError);
      expect(err).toMatchObject({ kind: 'unreachable', executed: false, operation });
      expect((err as Error).message).toContain(`(${operation})`);
    }
  });

  it('openAfter with limit 0 counts in a second statement, which names itself when its answer is lost', async () => {
    const proxy = await startTcpProxy(server.port);
    try {
      const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
      const j = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
      await j.record(intent('o1', 100));
      // Asked directly (the proxy matches on what it saw last, which must not hold the needle yet).
      const direct = new PostgresJournal({ pool: pool(), table, ...PATIENT });
      expect(await direct.openAfter({ scope: 'scope1', createdAfter: 0, limit: 0 })).toEqual({ total: 1, intents: [] });
      const dropped = proxy.faultOn('SELECT count(*) AS total', 'drop');
      const err = await failure(j.openAfter({ scope: 'scope1', createdAfter: 0, limit: 0 }));
      await dropped;
      expect(err).toMatchObject({ kind: 'unreachable', operation: 'count open intents' });
    } finally {
      await proxy.close();
    }
  });
});

describe('PostgresJournal remembers at most 10,000 lost records', () => {
  /** A pool whose record statements lose their answer and whose settles answer; it keeps every statement's text. */
  function lossyPool(): { pool: PostgresPoolLike; settles: string[] } {
    const settles: string[] = [];
    const client: PostgresClientLike = {
      // The table fits (the first use's verify passes); then the statements under test.
      query: answeringVerify(journalLayout('j'), (text, values) => {
        if (text.startsWith('INSERT') && !text.includes('clock_timestamp()')) return Promise.reject(new Error('Connection terminated'));
        settles.push(`${text.trimStart().split(' ')[0]!} ${String(values?.[1])}`);
        return Promise.resolve({ rows: [] });
      }),
      release: () => undefined,
    };
    return { pool: { connect: () => Promise.resolve(client) }, settles };
  }

  it('the oldest is forgotten first (its settle deletes), the others still write tombstones', async () => {
    const { pool, settles } = lossyPool();
    const j = new PostgresJournal({ pool, table: 'j' });
    for (let i = 0; i <= 10_000; i++) {
      const err = await failure(j.record(intent(`k${i}`, i)));
      expect((err as PostgresStoreError).executed).toBeUndefined();
    }
    await j.settle('scope1', 'k0');
    await j.settle('scope1', 'k1');
    await j.settle('scope1', 'k10000');
    expect(settles).toEqual(['DELETE k0', 'INSERT k1', 'INSERT k10000']);
  });
});

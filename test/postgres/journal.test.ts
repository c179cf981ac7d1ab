/**
 * `PostgresJournal` against a real PostgreSQL server, in one process with several pools (each
 * pool stands for one instance), connecting as the least-privilege role of docs/postgres.md: the
 * journal contract (as for `RedisJournal`), the rows it writes, and what a client does when
 * PostgreSQL cannot take an intent: stopped, a connection killed with the statement's answer
 * lost, a statement that outlives its timeout. The crash proofs with processes are in
 * journal-crash.test.ts.
 */
import { inspect } from 'node:util';
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CallInterruptedError,
  OutcomeUnknownError,
  RecoveryInterruptedError,
  type JournalClaimRequest,
  type JournalIntent,
} from '../../src/index.js';
import { PostgresJournal, PostgresStoreError } from '../../src/postgres/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { WITHDRAWAL } from '../helpers/wire-server.js';
import { startLedger, type Ledger } from '../journal/helpers/ledger.js';
import { startTcpProxy } from '../journal/helpers/tcp-proxy.js';
import { recoverInsideLease } from '../journal/helpers/inside-lease.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeJournalTable } from './helpers/tables.js';

/** A healthy database answering slowly on a loaded machine is not an outage. */
const PATIENT = { statementTimeoutMs: 120_000 } as const;

const intent = (key: string, createdAt: number, scope = 'scope1', extra: Partial<JournalIntent> = {}): JournalIntent => ({
  key,
  scope,
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{"asset":"USDT"}',
  withheld: false,
  member: 'ext-1',
  createdAt,
  ...extra,
});
const request = (over: Partial<JournalClaimRequest> = {}): JournalClaimRequest => ({
  scope: 'scope1',
  createdBefore: 10_000,
  leaseMs: 60_000,
  limit: 10,
  ...over,
});

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresJournal (real PostgreSQL)', () => {
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
  const keysIn = async (): Promise<string[]> =>
    (await admin.query<{ key: string }>(`SELECT key FROM ${table} WHERE settled_at IS NULL ORDER BY key`)).rows.map((r) => r.key);

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
  }, 120_000);
  beforeEach(async () => {
    table = `journal_${++n}`;
    await makeJournalTable(admin, table);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  it('claims oldest first within the scope and age, keeps the first record of a key, and settles', async () => {
    const a = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    await a.record(intent('k2', 200));
    await a.record(intent('k1', 100));
    await a.record(intent('k1', 150, 'scope1', { body: '{"changed":true}' }));
    await a.record(intent('young', 50_000));
    await a.record(intent('k0', 10, 'scope2'));
    expect(await a.claim(request({ limit: 1 }))).toEqual([intent('k1', 100)]);
    expect((await a.claim(request())).map((i) => i.key)).toEqual(['k2']);
    expect(await a.claim(request())).toEqual([]);
    await a.settle('scope1', 'k1');
    await a.settle('scope1', 'absent');
    expect(await keysIn()).toEqual(['k0', 'k2', 'young']);
    // A settle after a record that was answered deletes the row: no tombstone is left behind.
    expect((await admin.query(`SELECT key FROM ${table} ORDER BY key`)).rows.map((r: { key: string }) => r.key)).toEqual([
      'k0',
      'k2',
      'young',
    ]);
  });

  it('two instances claiming at once get each intent once (FOR UPDATE SKIP LOCKED)', async () => {
    const writer = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    for (let i = 0; i < 40; i++) await writer.record(intent(`k${i}`, 100 + i));
    const one = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    const two = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    const got: string[] = [];
    const drain = async (j: PostgresJournal): Promise<void> => {
      for (;;) {
        const [claimed] = await j.claim(request({ limit: 1 }));
        if (claimed === undefined) return;
        got.push(String(claimed.key));
      }
    };
    await Promise.all([drain(one), drain(two), drain(one), drain(two)]);
    expect(got.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `k${i}`).sort());
  });

  it("a claim holds for its lease on the database's clock, and an expired one is claimed again", async () => {
    const j = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    await j.record(intent('k1', 100));
    expect(await j.claim(request({ leaseMs: 3_600_000 }))).toHaveLength(1);
    const { rows } = await admin.query<{ left: number }>(
      `SELECT extract(epoch FROM claimed_until - clock_timestamp()) * 1000 AS left FROM ${table} WHERE key = 'k1'`,
    );
    expect(Number(rows[0]!.left)).toBeGreaterThan(3_500_000);
    expect(await j.claim(request())).toEqual([]);
    // The lease's end moved into the past, as time passing would.
    await admin.query(`UPDATE ${table} SET claimed_until = clock_timestamp() - interval '1 ms'`);
    expect(await j.claim(request())).toHaveLength(1);
  });

  it('keeps the body of a money-moving call and never a PIN', async () => {
    const ledger: Ledger = await startLedger();
    try {
      const journal = new PostgresJournal({ pool: pool(), table, ...PATIENT });
      const client = wireClient(ledger.url, { journal, maxRetries: 0 });
      ledger.interpose('activation', () => ({ reset: true }));
      ledger.interpose('withdrawal', () => ({ reset: true }));
      await failure(client.member('ext-1').cards.activate('crd_1', { expiry: '08/29', pin: '8642' }));
      await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
      const { rows } = await admin.query<{ intent: string; scope: string }>(`SELECT intent, scope FROM ${table}`);
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(row.scope).toMatch(/^[0-9a-f]{32}$/);
      expect(rows.map((r) => r.intent).join('\n')).not.toContain('8642');
      expect(rows.map((r) => r.intent).join('\n')).toContain(WITHDRAWAL.to_address);
    } finally {
      await ledger.close();
    }
  });

  it('returns a record it cannot read as unreadable, with its key, claimed like the others and left in the table', async () => {
    const lines: string[] = [];
    const j = new PostgresJournal({ pool: pool(), table, ...PATIENT, logger: { warn: (m: string) => lines.push(m) } });
    const put = (key: string, at: number, text: string) =>
      admin.query(`INSERT INTO ${table} (scope, key, created_at, intent) VALUES ('scope1', $1, $2, $3)`, [key, at, text]);
    await put('bad', 5, '{"key":1}');
    await put('garbage', 6, 'not json at all');
    await put('moved', 7, JSON.stringify(intent('other-key', 7)));
    await j.record(intent('good', 8));
    expect(await j.claim(request({ limit: 1 }))).toEqual([
      {
        unreadable: true,
        key: 'bad',
        scope: 'scope1',
        problem: expect.stringMatching(/^missing or mistyped fields: key, scope, /) as string,
      },
    ]);
    expect(await j.claim(request())).toEqual([
      { unreadable: true, key: 'garbage', scope: 'scope1', problem: 'not JSON' },
      { unreadable: true, key: 'moved', scope: 'scope1', problem: 'its key or scope differs from where it is stored' },
      intent('good', 8),
    ]);
    expect(lines).toEqual(Array(3).fill('merchant-stablecoin/postgres: an unreadable journal record was claimed and set aside'));
    expect(await keysIn()).toEqual(['bad', 'garbage', 'good', 'moved']);
  });

  it('lists the young intents without claiming them (openAfter)', async () => {
    const j = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    for (const [key, at] of [
      ['old', 100],
      ['y1', 5000],
      ['y2', 6000],
      ['y3', 7000],
    ] as const)
      await j.record(intent(key, at));
    await j.record(intent('elsewhere', 9000, 'scope2'));
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 5000, limit: 1 })).toEqual({ total: 2, intents: [intent('y2', 6000)] });
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 100, limit: 5 })).toEqual({
      total: 3,
      intents: [intent('y1', 5000), intent('y2', 6000), intent('y3', 7000)],
    });
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 100, limit: 0 })).toEqual({ total: 3, intents: [] });
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 9000, limit: 5 })).toEqual({ total: 0, intents: [] });
    // A record that does not read back is counted, never listed as an intent.
    await admin.query(`INSERT INTO ${table} (scope, key, created_at, intent) VALUES ('scope1', 'bad', 8000, 'not json')`);
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 7500, limit: 5 })).toEqual({ total: 1, intents: [] });
    await admin.query(`DELETE FROM ${table} WHERE key = 'bad'`);
    expect((await j.claim(request({ createdBefore: 10_000 }))).map((r) => r.key)).toEqual(['old', 'y1', 'y2', 'y3']);
  });

  it('ensureSchema is idempotent for the owner, refused (misconfigured, not run) for the application role; schema-qualified tables work', async () => {
    const owner = new PostgresJournal({ pool: pool(server.url), table: 'payments.sdk_journal', ...PATIENT });
    await admin.query(`CREATE SCHEMA IF NOT EXISTS payments`);
    await owner.ensureSchema();
    await owner.ensureSchema();
    await admin.query('GRANT USAGE ON SCHEMA payments TO merchant_app');
    await admin.query('GRANT SELECT, INSERT, UPDATE, DELETE ON payments.sdk_journal TO merchant_app');
    const app = new PostgresJournal({ pool: pool(), table: 'payments.sdk_journal', ...PATIENT });
    await app.record(intent('q1', 1));
    expect(await app.claim(request())).toEqual([intent('q1', 1)]);
    const refused = await failure(new PostgresJournal({ pool: pool(), table: 'payments.other', ...PATIENT }).ensureSchema());
    expect(refused).toBeInstanceOf(PostgresStoreError);
    expect(refused).toMatchObject({ kind: 'misconfigured', code: '42501', executed: false });
    const missing = await failure(new PostgresJournal({ pool: pool(), table: 'absent_table', ...PATIENT }).record(intent('x', 1)));
    expect(missing).toMatchObject({ kind: 'misconfigured', code: '42P01', executed: false });
    expect((missing as Error).message).toMatch(/ensureSchema/);
    for (const bad of ['a;b', 'x"y', 'a.b.c', '1abc', '', 'a'.repeat(64)])
      expect(() => new PostgresJournal({ pool: pool(), table: bad })).toThrow(/table/);
  });

  it("lists the intents under an unexpired claim with the time left on the database's clock, claiming none (leased)", async () => {
    const j = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    for (const [key, at] of [
      ['k1', 100],
      ['k2', 200],
      ['k3', 300],
      ['free', 400],
    ] as const)
      await j.record(intent(key, at));
    await j.record(intent('elsewhere', 10, 'scope2'));
    await j.claim(request({ createdBefore: 200, leaseMs: 3_600_000 }));
    await j.claim(request({ createdBefore: 300, leaseMs: 60_000 }));
    await j.claim(request({ scope: 'scope2' }));
    const all = await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: [], limit: 10 });
    // Soonest end first: k3 (60 s), then k1 and k2 (an hour); `free` is not claimed.
    expect(all.leases.map((l) => l.key)).toEqual(['k3', 'k1', 'k2']);
    expect(all.total).toBe(3);
    for (const l of all.leases) expect(l.endsInMs).toBeGreaterThan(0);
    expect(all.leases[0]!.endsInMs).toBeLessThanOrEqual(60_000);
    expect(all.leases[1]!.endsInMs).toBeGreaterThan(3_500_000);
    expect(await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: ['k3'], limit: 10 })).toMatchObject({
      total: 2,
      leases: [{ key: 'k1' }, { key: 'k2' }],
    });
    expect(await j.leased({ scope: 'scope1', createdBefore: 150, exceptKeys: [], limit: 10 })).toMatchObject({
      total: 1,
      leases: [{ key: 'k1' }],
    });
    expect(await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: [], limit: 0 })).toEqual({ total: 3, leases: [] });
    // A claim whose end has passed holds nothing.
    await admin.query(`UPDATE ${table} SET claimed_until = clock_timestamp() - interval '1 ms' WHERE key = 'k3'`);
    expect(await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: [], limit: 10 })).toMatchObject({
      total: 2,
      leases: [{ key: 'k1' }, { key: 'k2' }],
    });
    expect((await j.claim(request({ createdBefore: 10_000 }))).map((r) => r.key)).toEqual(['k3', 'free']);
  });

  it("recover() inside another recoverer's lease reports the intent and when it can be claimed, then sends it once the lease ends", async () => {
    const journal = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    await recoverInsideLease(journal, async () => {
      await admin.query(`UPDATE ${table} SET claimed_until = clock_timestamp() - interval '1 ms'`);
    });
  });

  it('shows its table and health only when inspected', () => {
    expect(inspect(new PostgresJournal({ pool: pool(), table }))).toBe(`PostgresJournal { table: '${table}', degraded: false }`);
  });

  describe('when PostgreSQL cannot take an intent', () => {
    it('stopped: money-moving calls fail before sending (not sent), recovery is interrupted, and after a restart calls go through', async () => {
      const down = await startPostgres();
      const ledger = await startLedger();
      try {
        const downAdmin = poolOf(down.url, 1);
        await makeJournalTable(downAdmin, 'journal');
        await downAdmin.end();
        const lines: string[] = [];
        const logger = { warn: (m: string) => lines.push(m), info: (m: string) => lines.push(m) };
        const journal = new PostgresJournal({ pool: pool(down.appUrl), table: 'journal', logger, ...PATIENT });
        const client = wireClient(ledger.url, { journal, logger, maxRetries: 0 });
        await down.stop();
        for (let i = 0; i < 2; i++) {
          const err = await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
          expect(err).toBeInstanceOf(CallInterruptedError);
          expect((err as CallInterruptedError).call?.sent).toBe('no');
          expect((err as Error).cause).toBeInstanceOf(PostgresStoreError);
          expect((err as Error).cause).toMatchObject({ kind: 'unreachable', executed: false, operation: 'record an intent' });
        }
        expect(ledger.server.calls()).toEqual([]);
        expect(lines.filter((l) => /PostgreSQL is not answering/.test(l))).toHaveLength(1);
        const stopped = await failure(client.recover({ minAgeMs: 0 }));
        expect(stopped).toBeInstanceOf(RecoveryInterruptedError);
        await down.start();
        const { response } = await client.member('ext-1').withdrawals.create(WITHDRAWAL).withResponse();
        expect(ledger.effects(response.idempotencyKey!)).toBe(1);
        expect(lines.filter((l) => /PostgreSQL answers again/.test(l))).toHaveLength(1);
        expect((await client.recover({ minAgeMs: 0 })).intents).toEqual([]);
      } finally {
        await ledger.close();
        await down.destroy();
      }
    }, 120_000);

    it('a connection killed after the record committed, its answer lost: outcome unknown, and recover() sends it once', async () => {
      const ledger = await startLedger();
      const proxy = await startTcpProxy(server.port);
      try {
        const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
        const journal = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
        const client = wireClient(ledger.url, { journal, maxRetries: 0 });
        const lost = proxy.faultOn(`INSERT INTO "${table}"`, 'lose-reply');
        const err = await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
        await lost;
        // The record landed; its clearing settle found the link down: nobody can say it is absent.
        expect(err).toBeInstanceOf(OutcomeUnknownError);
        expect((err as OutcomeUnknownError).call).toMatchObject({ sent: 'maybe', attempts: 0 });
        const cause = ((err as Error).cause as Error).cause;
        expect(cause).toMatchObject({ kind: 'unreachable', executed: undefined });
        const key = (err as OutcomeUnknownError).idempotencyKey!;
        expect(await keysIn()).toEqual([key]);
        expect(ledger.received(key)).toHaveLength(0);
        await proxy.heal();
        const report = await client.recover({ minAgeMs: 0 });
        expect(report.intents).toEqual([expect.objectContaining({ outcome: 'resent', settled: true })]);
        expect(ledger.effects(key)).toBe(1);
        expect(await keysIn()).toEqual([]);
      } finally {
        await proxy.close();
        await ledger.close();
      }
    });

    it('a record whose answer was lost and then settled leaves a tombstone: the late write changes nothing, a new record of the key revives it', async () => {
      const proxy = await startTcpProxy(server.port);
      try {
        const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
        const j = new PostgresJournal({ pool: pool(url), table, ...PATIENT });
        const lost = proxy.faultOn(`INSERT INTO "${table}"`, 'lose-reply');
        const err = await failure(j.record(intent('t1', 100)));
        await lost;
        expect(err).toMatchObject({ kind: 'unreachable', executed: undefined });
        await proxy.heal();
        await j.settle('scope1', 't1');
        const { rows } = await admin.query<{ record_id: string; intent: string | null; settled: boolean }>(
          `SELECT record_id, intent, settled_at IS NOT NULL AS settled FROM ${table}`,
        );
        expect(rows).toEqual([{ record_id: expect.stringMatching(/^[0-9a-f-]{36}$/) as string, intent: null, settled: true }]);
        // The same write arriving again (as a late one would): it conflicts and changes nothing.
        await admin.query(
          `INSERT INTO ${table} AS j (scope, key, created_at, intent, record_id) VALUES ('scope1', 't1', 100, 'late', $1)
           ON CONFLICT (scope, key) DO UPDATE SET intent = EXCLUDED.intent, settled_at = NULL
           WHERE j.settled_at IS NOT NULL AND j.record_id IS DISTINCT FROM EXCLUDED.record_id`,
          [rows[0]!.record_id],
        );
        expect(await j.claim(request())).toEqual([]);
        expect(await j.openAfter({ scope: 'scope1', createdAfter: 0, limit: 5 })).toEqual({ total: 0, intents: [] });
        // A new call with the same key records again: the tombstone does not swallow it.
        await j.record(intent('t1', 200));
        expect(await j.claim(request())).toEqual([intent('t1', 200)]);
      } finally {
        await proxy.close();
      }
    });

    it('a statement held past statementTimeoutMs (a lock): the call is not left as sent, and the late write is buried by its settle', async () => {
      const ledger = await startLedger();
      const locker = await admin.connect();
      try {
        const journal = new PostgresJournal({ pool: pool(), table, statementTimeoutMs: 300 });
        const client = wireClient(ledger.url, { journal, maxRetries: 0 });
        // Verified before the lock (the first use's verify would wait on the lock too, and refuse the call unsent).
        await journal.verifySchema();
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
        const err = await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
        // Both the record and its clearing settle outlived the timeout: the truth is "unknown".
        expect(err).toBeInstanceOf(OutcomeUnknownError);
        const cause = ((err as Error).cause as Error).cause;
        expect(cause).toMatchObject({ kind: 'unreachable', executed: undefined });
        await locker.query('COMMIT');
        expect(ledger.server.calls()).toEqual([]);
        // Whatever the two destroyed sessions did once the lock went, nothing is sent twice.
        const key = (err as OutcomeUnknownError).idempotencyKey!;
        await client.recover({ minAgeMs: 0 });
        expect(ledger.effects(key)).toBeLessThanOrEqual(1);
        expect(ledger.received(key).length).toBeLessThanOrEqual(1);
      } finally {
        locker.release();
        await ledger.close();
      }
    });
  });
});

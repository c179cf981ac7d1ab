/**
 * `PostgresPayoutStore` against a real PostgreSQL server, connecting as the least-privilege role
 * of docs/postgres.md (`SELECT, INSERT, UPDATE` on its table, nothing more): the PayoutStore
 * contract every store runs (a fresh table per test, the twin a second store on a second pool),
 * the rows it writes, its order (bytes, `COLLATE "C"`), its table checks, and the rows it cannot
 * read. The faults (PostgreSQL stopped, a revoked grant, an answer lost) are in
 * payout-store-faults.test.ts.
 */
import { inspect } from 'node:util';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPayoutStore } from '../../src/payouts/memory-store.js';
import type { PayoutRecord } from '../../src/payouts/record.js';
import type { PayoutCursor, PayoutStore } from '../../src/payouts/store.js';
import { PostgresPayoutStore, PostgresStoreError, payoutSchema } from '../../src/postgres/index.js';
import { listStatement } from '../../src/postgres/payout-rows.js';
import { failure } from '../helpers/client.js';
import { payoutRecord } from '../payouts/helpers/records.js';
import { describePayoutStoreContract } from '../payouts/helpers/store-contract.js';
import { APP_ROLE, POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makePayoutTable } from './helpers/tables.js';

/** A healthy database answering slowly on a loaded machine is not an outage. */
const PATIENT = { statementTimeoutMs: 120_000 } as const;

async function everything(store: PayoutStore, limit: number): Promise<PayoutRecord[]> {
  const out: PayoutRecord[] = [];
  let after: PayoutCursor | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.list({ limit, after });
    out.push(...page.records);
    if (page.next === undefined) return out;
    after = page.next;
  }
  throw new Error('list never ended');
}

describe.skipIf(!POSTGRES_AVAILABLE)('PostgresPayoutStore (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let app: pg.Pool;
  let other: pg.Pool;
  let n = 0;
  const fresh = async (): Promise<string> => {
    const table = `payouts_${++n}`;
    await makePayoutTable(admin, table);
    return table;
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
    app = poolOf(server.appUrl);
    other = poolOf(server.appUrl);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([app, other, admin].map((p) => p?.end().catch(() => undefined)));
    await server?.destroy();
  });

  describePayoutStoreContract('PostgresPayoutStore', async () => {
    const table = await fresh();
    return {
      store: new PostgresPayoutStore({ pool: app, table, ...PATIENT }),
      twin: new PostgresPayoutStore({ pool: other, table, ...PATIENT }),
    };
  });

  it('of many racing creates of one reference on two pools, one stores its record and every other reads that one back', async () => {
    const table = await fresh();
    const stores = [app, other].map((pool) => new PostgresPayoutStore({ pool, table, ...PATIENT }));
    const tries = Array.from({ length: 10 }, (_, i) => stores[i % 2]!.create(payoutRecord({ reference: 'ord-same', amount: `${i + 1}` })));
    const results = await Promise.all(tries);
    const winners = results.filter((r) => r.created);
    expect(winners).toHaveLength(1);
    for (const r of results) expect(r.record).toEqual(winners[0]!.record);
    expect(await stores[0]!.get('ord-same')).toEqual(winners[0]!.record);
  });

  it('keeps the record as written JSON text beside the columns it filters on, and grants no DELETE', async () => {
    const table = await fresh();
    const store = new PostgresPayoutStore({ pool: app, table, ...PATIENT });
    const r1 = payoutRecord({ reference: 'ord-cols', createdAt: 1_765_000_000_001, amount: '123456.5' });
    await store.create(r1);
    const r2 = { ...r1, version: 2, state: 'debited' as const, updatedAt: 1_765_000_000_999, withdrawalId: 'wdr_9' };
    expect(await store.replace(r2)).toBe(true);
    const { rows } = await admin.query(`SELECT * FROM ${table}`);
    expect(rows).toEqual([
      {
        reference: 'ord-cols',
        version: 2,
        state: 'debited',
        member: r1.member,
        asset: 'USDT',
        created_at: '1765000000001',
        updated_at: '1765000000999',
        record: JSON.stringify(r2),
      },
    ]);
    const privileges = await admin.query<{ del: boolean; trunc: boolean; create: boolean }>(
      `SELECT has_table_privilege($1, $2, 'DELETE') AS del, has_table_privilege($1, $2, 'TRUNCATE') AS trunc,
              has_schema_privilege($1, 'public', 'CREATE') AS create`,
      [APP_ROLE, table],
    );
    expect(privileges.rows).toEqual([{ del: false, trunc: false, create: false }]);
  });

  it('orders references by their bytes (COLLATE "C"), as the memory store does, ASCII and beyond, over pages, in a database whose own collation differs', async () => {
    // A database whose default collation (ICU en-US) sorts 'a' before 'B': the table's must not follow it.
    await admin.query(`CREATE DATABASE payouts_icu TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`);
    const owner = poolOf(server.url.replace(/\/postgres$/, '/payouts_icu'), 1);
    const icu = poolOf(server.appUrl.replace(/\/postgres$/, '/payouts_icu'), 2);
    try {
      await makePayoutTable(owner, 'payouts');
      const store = new PostgresPayoutStore({ pool: icu, table: 'payouts', ...PATIENT });
      const memory = new MemoryPayoutStore();
      const refs = ['b', 'B', 'a', 'A', 'a-1', 'a_1', 'a 1', 'é', 'e', 'z', 'ß', '中', '😀', 'ordre-é-😀-"quoted"', 'Ω'];
      for (const reference of refs) {
        await store.create(payoutRecord({ reference, createdAt: 1000 }));
        await memory.create(payoutRecord({ reference, createdAt: 1000 }));
      }
      await store.create(payoutRecord({ reference: 'Z-later', createdAt: 1001 }));
      await memory.create(payoutRecord({ reference: 'Z-later', createdAt: 1001 }));
      const expected = ['A', 'B', 'a', 'a 1', 'a-1', 'a_1', 'b', 'e', 'ordre-é-😀-"quoted"', 'z', 'ß', 'é', 'Ω', '中', '😀', 'Z-later'];
      expect((await everything(memory, 100)).map((r) => r.reference)).toEqual(expected);
      for (const limit of [1, 2, 4, 100]) expect((await everything(store, limit)).map((r) => r.reference)).toEqual(expected);
      const localeOrder = await owner.query<{ reference: string }>(`SELECT reference FROM payouts ORDER BY reference COLLATE "default"`);
      const byLocale = localeOrder.rows.map((r) => r.reference);
      expect(byLocale.indexOf('a')).toBeLessThan(byLocale.indexOf('B'));
    } finally {
      await Promise.all([owner.end(), icu.end()]);
    }
  });

  it('orders U+E000..U+FFFF before characters above U+FFFF (UTF-8 bytes), where UTF-16 code units put them after: the documented difference', async () => {
    const table = await fresh();
    const store = new PostgresPayoutStore({ pool: app, table, ...PATIENT });
    for (const reference of ['x😀', 'x\uFFFD', 'x\uE000']) await store.create(payoutRecord({ reference }));
    expect((await everything(store, 1)).map((r) => r.reference)).toEqual(['x\uE000', 'x\uFFFD', 'x😀']);
    expect(['x😀', 'x\uFFFD', 'x\uE000'].sort()).toEqual(['x😀', 'x\uE000', 'x\uFFFD']);
  });

  it('refuses a reference holding NUL (PostgreSQL text cannot), and names the row of a lone surrogate (stored as U+FFFD) as unreadable', async () => {
    const table = await fresh();
    const store = new PostgresPayoutStore({ pool: app, table, ...PATIENT });
    const nul = await failure(store.create(payoutRecord({ reference: 'ord\u0000x' })));
    expect(nul).toMatchObject({ kind: 'misconfigured', code: '22021', executed: false, operation: 'create a payout' });
    await store.create(payoutRecord({ reference: 'ord\uD800' }));
    expect((await admin.query(`SELECT reference FROM ${table}`)).rows).toEqual([{ reference: 'ord\uFFFD' }]);
    expect((await failure(store.get('ord\uD800'))) as Error).toMatchObject({
      message: expect.stringContaining('its reference differs') as string,
    });
    // Inside the record, NUL and lone surrogates are JSON escapes, kept as written.
    const odd = payoutRecord({ reference: 'ord-odd', toAddress: 'a\u0000b\uDC00c' });
    await store.create(odd);
    expect(await store.get('ord-odd')).toEqual(odd);
  });

  it('reads a page from the index in order, with no sort, with and without a state filter', async () => {
    const table = await fresh();
    const client = await admin.connect();
    try {
      await client.query('BEGIN; SET LOCAL enable_seqscan = off');
      const queries = [
        { limit: 5, index: 'created' },
        { limit: 5, after: { createdAt: 5, reference: 'é' }, index: 'created' },
        { states: ['debited' as const], limit: 5, after: { createdAt: 5, reference: 'é' }, index: 'state' },
      ];
      for (const { index, ...query } of queries) {
        const { text, values } = listStatement(`"${table}"`, query);
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        expect(plan).toContain(`Index Scan using ${table}_${index}`);
        expect(plan).not.toMatch(/Sort/);
      }
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it("reads the clock from the database (clock_timestamp(), whole ms), between two of the server's own readings", async () => {
    const store = new PostgresPayoutStore({ pool: app, ...PATIENT });
    const read = async (): Promise<number> =>
      Number((await admin.query(`SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now`)).rows[0].now);
    const before = await read();
    const now = await store.now();
    const after = await read();
    expect(Number.isInteger(now)).toBe(true);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);
  });

  it('names a row whose record cannot be read, and lists the others around it, the cursor moving past it', async () => {
    const table = await fresh();
    const lines: Array<{ message: string; reference: unknown }> = [];
    const logger = {
      error: (message: string, fields?: Record<string, unknown>) => lines.push({ message, reference: fields?.['reference'] }),
    };
    const store = new PostgresPayoutStore({ pool: app, table, logger, ...PATIENT });
    const put = (reference: string, at: number, record: string) =>
      admin.query(
        `INSERT INTO ${table} (reference, version, state, member, asset, created_at, updated_at, record) VALUES ($1, 1, 'debited', 'm', 'USDT', $2, $2, $3)`,
        [reference, at, record],
      );
    const good = [payoutRecord({ reference: 'g1', createdAt: 150 }), payoutRecord({ reference: 'g2', createdAt: 250 })];
    for (const r of good) await store.create(r);
    await put('bad-json', 100, 'not json at all');
    await put('moved', 200, JSON.stringify(payoutRecord({ reference: 'elsewhere', createdAt: 200, state: 'debited' })));
    await put('last-bad', 300, '[1, 2]');
    expect((await store.list({ limit: 10 })).records).toEqual(good);
    for (const limit of [1, 2]) expect(await everything(store, limit)).toEqual(good);
    expect(lines.slice(0, 3)).toEqual([
      { message: expect.stringMatching(/payout store: .*"bad-json" cannot be read \(not JSON\)/) as string, reference: 'bad-json' },
      {
        message: expect.stringMatching(/"moved" cannot be read \(its reference differs from the row's columns\)/) as string,
        reference: 'moved',
      },
      { message: expect.stringMatching(/"last-bad" cannot be read \(not a JSON object\)/) as string, reference: 'last-bad' },
    ]);
    // A page whose one row is unreadable is empty, and says where the next starts.
    expect(await store.list({ limit: 1, after: { createdAt: 250, reference: 'g2' } })).toEqual({ records: [], next: undefined });
    expect(await store.list({ limit: 1 })).toEqual({ records: [], next: { createdAt: 100, reference: 'bad-json' } });
    const got = await failure(store.get('bad-json'));
    expect(got).toBeInstanceOf(PostgresStoreError);
    expect(got).toMatchObject({ kind: 'misconfigured', code: undefined, operation: 'get a payout' });
    expect((got as Error).message).toContain('"bad-json" cannot be read (not JSON)');
    const created = await failure(store.create(payoutRecord({ reference: 'moved' })));
    expect(created).toMatchObject({ kind: 'misconfigured', operation: 'create a payout' });
    expect((created as Error).message).toContain('"moved" cannot be read');
    expect(await store.get('g1')).toEqual(good[0]);
  });

  it('ensureSchema is idempotent for the owner (a schema-qualified table too); the application role may verify, not create', async () => {
    await admin.query('CREATE SCHEMA IF NOT EXISTS payments');
    const owner = new PostgresPayoutStore({ pool: admin, table: 'payments.sdk_payouts', ...PATIENT });
    await owner.ensureSchema();
    await owner.ensureSchema();
    const indexes = await admin.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'payments' AND tablename = 'sdk_payouts' ORDER BY 1`,
    );
    expect(indexes.rows.map((r: { indexname: string }) => r.indexname)).toEqual([
      'sdk_payouts_created',
      'sdk_payouts_pkey',
      'sdk_payouts_state',
    ]);
    await admin.query(`GRANT USAGE ON SCHEMA payments TO ${APP_ROLE}`);
    await admin.query(`GRANT SELECT, INSERT, UPDATE ON payments.sdk_payouts TO ${APP_ROLE}`);
    const store = new PostgresPayoutStore({ pool: app, table: 'payments.sdk_payouts', ...PATIENT });
    await store.verifySchema();
    const r = payoutRecord({ reference: 'q1' });
    expect(await store.create(r)).toEqual({ created: true, record: r });
    const refused = await failure(new PostgresPayoutStore({ pool: app, table: 'payments.other', ...PATIENT }).ensureSchema());
    expect(refused).toMatchObject({ kind: 'misconfigured', code: '42501', executed: false });
    const missing = await failure(new PostgresPayoutStore({ pool: app, table: 'absent_payouts', ...PATIENT }).get('x'));
    expect(missing).toMatchObject({ kind: 'misconfigured', code: '42P01', executed: false, operation: 'get a payout' });
    expect(inspect(store)).toBe(`PostgresPayoutStore { table: 'payments.sdk_payouts', degraded: false }`);
  });

  it('refuses a table whose reference is not COLLATE "C" or whose record is jsonb, on verifySchema() and on first use, sending nothing', async () => {
    const table = `payouts_${++n}`;
    const [create, ...indexes] = payoutSchema(table);
    await admin.query(create!.replace(' COLLATE "C"', '').replace('record text', 'record jsonb'));
    for (const sql of indexes) await admin.query(sql);
    await admin.query(`GRANT SELECT, INSERT, UPDATE ON ${table} TO ${APP_ROLE}`);
    const store = new PostgresPayoutStore({ pool: app, table, ...PATIENT });
    const verified = await failure(store.verifySchema());
    expect(verified).toMatchObject({ kind: 'misconfigured', code: undefined });
    expect((verified as Error).message).toMatch(/column reference has collation default, not "C"; column record is jsonb, not text/);
    const used = await failure(store.create(payoutRecord({ reference: 'never' })));
    expect(used).toMatchObject({ kind: 'misconfigured', executed: false, operation: 'create a payout' });
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBe(0);
  });
});

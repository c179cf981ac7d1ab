/**
 * The tables the stores trust, against a real PostgreSQL: index names that never collide with
 * their table's (a 63-character table gets its index), `ensureSchema()` and `verifySchema()`
 * comparing columns, types and indexes by their definition (a `jsonb` intent column, a missing
 * index or column refused, `misconfigured`, naming the difference), the application's
 * least-privilege role able to verify, an upgraded database keeping its one index, and the first
 * use of a store verifying once, within the call's budget.
 */
import type pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresEventStore, PostgresJournal, PostgresStoreError } from '../../src/postgres/index.js';
import { indexName, journalSchema } from '../../src/postgres/schema.js';
import { APP_ROLE, POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;
const intent = (key: string) => ({
  key,
  scope: 's1',
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{}',
  withheld: false,
  member: 'ext-1',
  createdAt: 1,
});
const failure = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );

describe('index names', () => {
  it('stay as they were when they fit in 63 bytes; past that, a shortened name with a hash of the whole', () => {
    expect(indexName('merchant_stablecoin_journal', 'open')).toBe('"merchant_stablecoin_journal_open"');
    expect(indexName('payments.sdk_journal', 'open')).toBe('"sdk_journal_open"');
    expect(indexName('a'.repeat(58), 'open')).toBe(`"${'a'.repeat(58)}_open"`); // exactly 63
    const t63 = `j${'x'.repeat(62)}`;
    const long = indexName(t63, 'open').slice(1, -1);
    expect(long).toMatch(/^jx+_open_[0-9a-f]{8}$/);
    expect(long).toHaveLength(63);
    expect(long).not.toBe(t63);
    expect(indexName(t63, 'open')).toBe(indexName(t63, 'open')); // deterministic
    expect(indexName(`${t63.slice(0, 62)}y`, 'open')).not.toBe(indexName(t63, 'open'));
    expect(indexName(`s.${t63}`, 'completed_at').slice(1, -1)).toMatch(/^jx{40}_completed_at_[0-9a-f]{8}$/);
    // The hash is FNV-1a of the whole name, 8 hex digits (leading zeros kept): the same in every version.
    const t14 = 't14'.padEnd(63, 'x');
    expect(indexName(t14, 'open')).toBe(`"${t14.slice(0, 49)}_open_00a3a027"`);
  });
});

describe.skipIf(!POSTGRES_AVAILABLE)('schema checks, on a real PostgreSQL', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const pool = (url = server.appUrl): pg.Pool => {
    const p = poolOf(url, 4);
    pools.push(p);
    return p;
  };
  let n = 0;
  let table: string;
  const indexes = async (name: string): Promise<Array<{ indexname: string; indexdef: string }>> =>
    (
      await admin.query<{ indexname: string; indexdef: string }>(
        'SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 ORDER BY indexname',
        [name],
      )
    ).rows;
  const grant = (name: string) => admin.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${name} TO ${APP_ROLE}`);
  /** The journal's table as a team's own migration might write it, with `change` applied to its columns. */
  const teamJournal = async (name: string, columns: string, index = true): Promise<void> => {
    await admin.query(`CREATE TABLE ${name} (${columns}, PRIMARY KEY (scope, key))`);
    if (index) await admin.query(`CREATE INDEX ${name}_by_age ON ${name} (scope, created_at) WHERE settled_at IS NULL`);
    await grant(name);
  };
  const COLUMNS =
    'scope text NOT NULL, key text NOT NULL, created_at bigint NOT NULL, intent text, record_id text, claimed_until timestamptz, settled_at timestamptz';

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
  }, 120_000);
  beforeEach(() => {
    table = `schema_${++n}`;
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  it('a 63-character table name gets its index, once, and the application role verifies it and works', async () => {
    const name = `j${'x'.repeat(58)}${n}`.padEnd(63, 'z');
    expect(name).toHaveLength(63);
    const owner = new PostgresJournal({ pool: pool(server.url), table: name, ...PATIENT });
    await owner.ensureSchema();
    await owner.ensureSchema();
    const found = await indexes(name);
    expect(found).toHaveLength(2);
    const open = found.find((i) => i.indexdef.includes('WHERE'))!;
    expect(open.indexname).toBe(indexName(name, 'open').slice(1, -1));
    expect(open.indexname).not.toBe(name);
    expect(open.indexdef).toMatch(/USING btree \(scope, created_at\) WHERE \(settled_at IS NULL\)$/);

    const events = `e${'v'.repeat(62)}`;
    await new PostgresEventStore({ pool: pool(server.url), table: events, ...PATIENT }).ensureSchema();
    expect((await indexes(events)).map((i) => i.indexdef.replace(/^.* USING /, ''))).toEqual(
      expect.arrayContaining(['btree (completed_at)', 'btree (event_id)']),
    );

    await grant(`"${name}"`);
    const app = new PostgresJournal({ pool: pool(), table: name, ...PATIENT });
    await app.verifySchema();
    await app.record(intent('k1'));
    expect((await app.openAfter({ scope: 's1', createdAfter: 0, limit: 5 })).total).toBe(1);
  });

  it('an upgraded database keeps its one index: the name it already has, cut by PostgreSQL or the default, is not doubled', async () => {
    // What an earlier version made of a 61-character name: the index name cut to 63 characters.
    const name = `u${n}`.padEnd(61, 'p');
    await admin.query(journalSchema(name)[0]!);
    await admin.query(
      `CREATE INDEX IF NOT EXISTS "${`${name}_open`.slice(0, 63)}" ON ${name} (scope, created_at) WHERE settled_at IS NULL`,
    );
    await new PostgresJournal({ pool: pool(server.url), table: name, ...PATIENT }).ensureSchema();
    const kept = await indexes(name);
    expect(kept).toHaveLength(2); // the primary key's and the one it had
    expect(kept.map((i) => i.indexname)).toContain(`${name}_open`.slice(0, 63));

    // The default names fit: the statements are those of before, and a second run adds nothing.
    const plain = `plain_${n}`;
    for (const sql of journalSchema(plain)) await admin.query(sql);
    await new PostgresJournal({ pool: pool(server.url), table: plain, ...PATIENT }).ensureSchema();
    expect((await indexes(plain)).map((i) => i.indexname)).toEqual([`${plain}_open`, `${plain}_pkey`]);
  });

  it('a jsonb intent column is refused by ensureSchema and reported by verifySchema; the journal writes nothing to it', async () => {
    await teamJournal(table, COLUMNS.replace('intent text', 'intent jsonb'));
    const owner = new PostgresJournal({ pool: pool(server.url), table, ...PATIENT });
    const refused = await failure(owner.ensureSchema());
    expect(refused).toBeInstanceOf(PostgresStoreError);
    expect(refused).toMatchObject({ kind: 'misconfigured', code: undefined, executed: false });
    expect((refused as Error).message).toMatch(/column intent is jsonb, not text/);

    const lines: Array<[string, string]> = [];
    const logger = { error: (m: string) => lines.push(['error', m]), warn: (m: string) => lines.push(['warn', m]) };
    const app = new PostgresJournal({ pool: pool(), table, logger, ...PATIENT });
    const reported = await failure(app.verifySchema());
    expect(reported).toMatchObject({ kind: 'misconfigured', operation: 'verify the journal table' });
    expect((reported as Error).message).toMatch(
      new RegExp(`^Cannot verify the journal table: the table "${table}" differs .*column intent is jsonb, not text`),
    );
    // Every operation refuses, unsent, named as itself; one error line for all of it.
    for (const call of [
      () => app.record(intent('k1')),
      () => app.record(intent('k2')),
      () => app.claim({ scope: 's1', createdBefore: 10, leaseMs: 1000, limit: 5 }),
    ]) {
      const err = await failure(call());
      expect(err).toMatchObject({ kind: 'misconfigured', executed: false });
      expect((err as Error).message).toMatch(/jsonb, not text/);
    }
    expect(lines).toEqual([['error', expect.stringMatching(/the intent journal: Cannot verify the journal table: .*jsonb/)]]);
    expect(Number((await admin.query(`SELECT count(*) AS c FROM ${table}`)).rows[0].c)).toBe(0);
  });

  it('a missing index is refused, named by its definition; an index of another name with the same definition accepted, a name taken by another definition not', async () => {
    await teamJournal(table, COLUMNS, false);
    const app = new PostgresJournal({ pool: pool(), table, ...PATIENT });
    const missing = await failure(app.record(intent('k1')));
    expect(missing).toMatchObject({ kind: 'misconfigured', operation: 'record an intent', executed: false });
    expect((missing as Error).message).toMatch(/no index on \(scope, created_at\) WHERE settled_at IS NULL, for claims and openAfter/);
    // The store keeps refusing until it is told the table changed.
    await admin.query(`CREATE INDEX my_own_name ON ${table} (scope, created_at) WHERE settled_at IS NULL`);
    await expect(app.record(intent('k1'))).rejects.toMatchObject({ kind: 'misconfigured' });
    await app.verifySchema();
    await app.record(intent('k1'));

    // The expected name, held by an index of another definition: ensureSchema cannot create it, and says so.
    const other = `${table}_taken`;
    await admin.query(journalSchema(other)[0]!);
    await admin.query(`CREATE INDEX ${other}_open ON ${other} (scope)`);
    const err = await failure(new PostgresJournal({ pool: pool(server.url), table: other, ...PATIENT }).ensureSchema());
    expect((err as Error).message).toMatch(/no index on \(scope, created_at\) WHERE settled_at IS NULL/);
  });

  it('a missing column, a nullable state, an extra NOT NULL column without default: each named; a missing primary key too', async () => {
    await teamJournal(table, COLUMNS.replace(', record_id text', ', owner text NOT NULL'));
    const err = await failure(new PostgresJournal({ pool: pool(), table, ...PATIENT }).verifySchema());
    expect((err as Error).message).toMatch(/column record_id is missing \(text\); column owner is NOT NULL without a default/);

    await admin.query(
      `CREATE TABLE ${table}_ev (event_id text, state text, lease_until timestamptz, marker text, completed_at timestamptz)`,
    );
    await admin.query(`CREATE INDEX ON ${table}_ev (completed_at)`);
    await grant(`${table}_ev`);
    const events = new PostgresEventStore({ pool: pool(), table: `${table}_ev`, ...PATIENT });
    const ev = await failure(events.claim('e1', 1000));
    expect((ev as Error).message).toMatch(
      /column event_id is nullable, not NOT NULL; column state is nullable, not NOT NULL; no unique index on \(event_id\), for the primary key/,
    );
    expect(ev).toMatchObject({ kind: 'misconfigured', operation: 'claim an event', executed: false });
    await expect(events.claimInTransaction('e1', { ttlMs: 60_000, waitMs: 5_000 })).rejects.toMatchObject({ kind: 'misconfigured' });
  });

  it('an index only counts with its definition: btree, unique or not as needed, its predicate, valid', async () => {
    const ev = `${table}_ev`;
    await admin.query(
      `CREATE TABLE ${ev} (event_id text NOT NULL, state text NOT NULL, lease_until timestamptz, marker text, completed_at timestamptz)`,
    );
    await admin.query(`CREATE INDEX ON ${ev} USING hash (completed_at)`);
    await admin.query(`CREATE INDEX ON ${ev} (event_id)`);
    await admin.query(`INSERT INTO ${ev} (event_id, state) VALUES ('dup', 'completed'), ('dup', 'completed')`);
    // A unique index that failed to build (duplicates) is left invalid: it does not count.
    await admin.query(`CREATE UNIQUE INDEX CONCURRENTLY ${ev}_uq ON ${ev} (event_id)`).catch(() => undefined);
    await grant(ev);
    const err = await failure(new PostgresEventStore({ pool: pool(), table: ev, ...PATIENT }).verifySchema());
    expect((err as Error).message).toMatch(
      /: no unique index on \(event_id\), for the primary key; no index on \(completed_at\), for prune\. /,
    );
    // ensureSchema creates what has a statement (the prune index), and names what it cannot (the primary key).
    const owner = await failure(new PostgresEventStore({ pool: pool(server.url), table: ev, ...PATIENT }).ensureSchema());
    expect((owner as Error).message).toMatch(/differs from what the store needs: no unique index on \(event_id\), for the primary key\. /);

    // Without its predicate, the journal's index is another index; a nullable column made NOT NULL is named;
    // a column of the team's own is fine when nullable or defaulted.
    await teamJournal(
      table,
      `${COLUMNS.replace('intent text', 'intent text NOT NULL')}, note text, region text NOT NULL DEFAULT 'eu'`,
      false,
    );
    await admin.query(`CREATE INDEX ON ${table} (scope, created_at)`);
    const j = await failure(new PostgresJournal({ pool: pool(), table, ...PATIENT }).verifySchema());
    expect((j as Error).message).toMatch(
      /needs: column intent is NOT NULL, not nullable; no index on \(scope, created_at\) WHERE settled_at IS NULL, for claims and openAfter\. /,
    );
  });

  it('a missing table: 42P01, not cached: the table made later by a migration after the start is used', async () => {
    const events = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
    await expect(events.verifySchema()).rejects.toMatchObject({ kind: 'misconfigured', code: '42P01' });
    await expect(events.verifySchema()).rejects.toThrow(`the table "${table}" does not exist: run ensureSchema() or the migration`);
    await expect(events.claim('e1', 1000)).rejects.toMatchObject({ code: '42P01', operation: 'claim an event', executed: false });
    await new PostgresEventStore({ pool: pool(server.url), table }).ensureSchema();
    await grant(table);
    expect(await events.claim('e1', 1000)).toBe('claimed');
  });

  it('the first use waits for the verify no longer than the delivery has left, a lock held elsewhere; not cached, the next use verifies', async () => {
    await new PostgresEventStore({ pool: pool(server.url), table }).ensureSchema();
    await grant(table);
    const events = new PostgresEventStore({ pool: pool(), table, ...PATIENT });
    const locker = await admin.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      // The lock is held until the claim answered: the verify's lock wait (half the delivery's
      // budget) ends it, and names the lock, within the budget.
      const began = performance.now();
      const err = await failure(events.claimInTransaction('e1', { ttlMs: 60_000, waitMs: 4_000 }));
      expect(performance.now() - began).toBeGreaterThanOrEqual(2_000 - 5);
      expect(err).toMatchObject({ kind: 'unavailable', code: '55P03', operation: 'claim an event', executed: false });
      expect((err as Error).message).toMatch(/the table is locked by another session \(a migration, a LOCK TABLE\)/);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
    const claim = await events.claimInTransaction('e1', { ttlMs: 60_000, waitMs: 5_000 });
    expect(claim.result).toBe('claimed');
    if (claim.result === 'claimed') await claim.commit();
  });
});

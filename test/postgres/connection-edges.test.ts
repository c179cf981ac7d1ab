/**
 * How the stores' statement runner behaves at its edges, seen through `PostgresJournal` against a
 * real PostgreSQL: the lines its logger gets (an outage once with its end, a refusal as an
 * error with its SQLSTATE, never a value), the health `inspect` shows, the timeout named in the
 * error, a connection that outlived its statement destroyed rather than pooled again, a
 * connection that arrived after the deadline given back rather than kept, and the settings it
 * refuses at construction. A pool-like object (the documented `connect()` shape) stands for a
 * client without `on`.
 */
import { inspect } from 'node:util';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError, type JournalIntent, type LogFields } from '../../src/index.js';
import { PostgresJournal, PostgresStoreError } from '../../src/postgres/index.js';
import type { PostgresClientLike, PostgresPoolLike } from '../../src/postgres/connection.js';
import { failure } from '../helpers/client.js';
import { startTcpProxy } from '../journal/helpers/tcp-proxy.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeJournalTable } from './helpers/tables.js';
import { journalLayout } from '../../src/postgres/schema.js';
import { answeringVerify } from './helpers/fitting-catalog.js';

const PATIENT = { statementTimeoutMs: 120_000 } as const;

const intent = (key: string, createdAt = 1): JournalIntent => ({
  key,
  scope: 'scope1',
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{"asset":"USDT"}',
  withheld: false,
  member: 'ext-1',
  createdAt,
});

type Line = [level: string, message: string, fields: LogFields | undefined];
const recorder = (): { lines: Line[]; logger: Record<'info' | 'warn' | 'error', (m: string, f?: LogFields) => void> } => {
  const lines: Line[] = [];
  const at = (level: string) => (m: string, f?: LogFields) => void lines.push([level, m, f]);
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
};

describe.skipIf(!POSTGRES_AVAILABLE)('the statement runner (real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const pools: pg.Pool[] = [];
  const pool = (url = server.appUrl, max = 4): pg.Pool => {
    const p = poolOf(url, max);
    pools.push(p);
    return p;
  };
  let n = 0;
  let table: string;
  const keysIn = async (t = table): Promise<string[]> =>
    (await admin.query<{ key: string }>(`SELECT key FROM ${t} ORDER BY key`)).rows.map((r) => r.key);

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 3);
  }, 120_000);
  beforeEach(async () => {
    table = `runner_${++n}`;
    await makeJournalTable(admin, table);
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
    await admin?.end();
    await server?.destroy();
  });

  it('an outage: one warn line with its SQLSTATE field, degraded while it lasts, one info line when it ends', async () => {
    const proxy = await startTcpProxy(server.port);
    try {
      const url = server.appUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
      const { lines, logger } = recorder();
      const j = new PostgresJournal({ pool: pool(url), table, logger, ...PATIENT });
      await j.record(intent('a'));
      expect(lines).toEqual([]);
      await proxy.cut();
      for (let i = 0; i < 3; i++) expect(await failure(j.record(intent(`down${i}`)))).toMatchObject({ kind: 'unreachable' });
      expect(inspect(j)).toBe(`PostgresJournal { table: '${table}', degraded: true }`);
      await proxy.heal();
      await j.record(intent('b'));
      await j.record(intent('c'));
      expect(inspect(j)).toBe(`PostgresJournal { table: '${table}', degraded: false }`);
      expect(lines).toHaveLength(2);
      expect(lines[0]![0]).toBe('warn');
      expect(lines[0]![1]).toMatch(
        /^merchant-stablecoin\/postgres: the intent journal: PostgreSQL is not answering: PostgreSQL unreachable \(record an intent\): /,
      );
      // No SQLSTATE: the line carries none (the server-side kind is below).
      expect(lines[0]![2]?.['code']).toBeUndefined();
      expect(lines[1]).toEqual(['info', 'merchant-stablecoin/postgres: the intent journal: PostgreSQL answers again', undefined]);
      expect(await keysIn()).toEqual(['a', 'b', 'c']);
    } finally {
      await proxy.close();
    }
  });

  it('a session ended by the server (57P01) is an outage: its warn line carries the SQLSTATE', async () => {
    const locker = await admin.connect();
    try {
      const { lines, logger } = recorder();
      const j = new PostgresJournal({ pool: pool(), table, logger, ...PATIENT });
      // The table verified before the lock: the first use's verify would wait on it instead.
      await j.verifySchema();
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      const waiting = failure(j.record(intent('w')));
      // The record's session, waiting on the lock: ended as an administrator (or a failover) would.
      const deadline = performance.now() + 60_000;
      let ended = false;
      while (!ended && performance.now() < deadline) {
        const { rows } = await admin.query<{ ok: boolean }>(
          `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE usename = 'merchant_app' AND wait_event_type = 'Lock'`,
        );
        ended = rows.some((r) => r.ok);
      }
      const err = await waiting;
      expect(err).toMatchObject({ kind: 'unavailable', code: '57P01', executed: false });
      expect(inspect(j)).toBe(`PostgresJournal { table: '${table}', degraded: true }`);
      expect(lines).toEqual([
        [
          'warn',
          expect.stringMatching(
            /^merchant-stablecoin\/postgres: the intent journal: PostgreSQL cannot record an intent now: .*\(SQLSTATE 57P01\)\.$/,
          ) as string,
          { code: '57P01' },
        ],
      ]);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
  });

  it('a refusal (a revoked grant): an error line per refusal with its SQLSTATE, no outage, no value', async () => {
    await admin.query(`REVOKE INSERT ON ${table} FROM merchant_app`);
    const { lines, logger } = recorder();
    const j = new PostgresJournal({ pool: pool(), table, logger, ...PATIENT });
    for (let i = 0; i < 2; i++) await failure(j.record(intent(`secret-key-${i}`)));
    await j.settle('scope1', 'secret-key-0');
    const message = `merchant-stablecoin/postgres: the intent journal: PostgreSQL refused to record an intent: permission denied for table ${table} (SQLSTATE 42501). A configuration mistake, not an outage: see "PostgreSQL" in docs/postgres.md (ensureSchema, verifySchema and the grants).`;
    expect(lines).toEqual([
      ['error', message, { code: '42501' }],
      ['error', message, { code: '42501' }],
    ]);
    expect(inspect(j)).toBe(`PostgresJournal { table: '${table}', degraded: false }`);
  });

  it('a statement past statementTimeoutMs names the timeout, and its connection is destroyed, not lent again', async () => {
    const locker = await admin.connect();
    const shared = pool(server.appUrl, 1);
    const other = `${table}_other`;
    await makeJournalTable(admin, other);
    const free = new PostgresJournal({ pool: shared, table: other, ...PATIENT });
    // The pool's connection made beforehand: the 300 ms bound the lock, never the connecting.
    await free.record(intent('warm'));
    const held = new PostgresJournal({ pool: shared, table, statementTimeoutMs: 300 });
    // The table verified before the lock: the first use's verify would wait on it instead.
    await held.verifySchema();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
      const err = await failure(held.record(intent('late')));
      expect(err).toBeInstanceOf(PostgresStoreError);
      expect(err).toMatchObject({ kind: 'unreachable', executed: undefined, operation: 'record an intent' });
      expect((err as Error).message).toBe('PostgreSQL unreachable (record an intent): no answer within 300 ms.');
      // The pool's only connection still waits on the lock: lent again, this statement would queue behind it.
      await free.record(intent('next'));
      expect(await keysIn(other)).toEqual(['next', 'warm']);
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
  });

  it('a connection that comes after the deadline is given back to the pool, and the statement is never run', async () => {
    const shared = pool(server.appUrl, 1);
    const busy = await shared.connect();
    const j = new PostgresJournal({ pool: shared, table, statementTimeoutMs: 300 });
    try {
      const err = await failure(j.record(intent('never')));
      expect(err).toMatchObject({ kind: 'unreachable', executed: false });
    } finally {
      busy.release();
    }
    // The waiting connect() gets the freed connection, finds its deadline gone and gives it back.
    const after = new PostgresJournal({ pool: shared, table, ...PATIENT });
    await after.record(intent('after'));
    expect(await keysIn()).toEqual(['after']);
  });

  it('listens once for a checked-out client dying, however many statements it serves', async () => {
    const single = pool(server.appUrl, 1);
    const j = new PostgresJournal({ pool: single, table, ...PATIENT });
    for (let i = 0; i < 12; i++) await j.record(intent(`k${i}`));
    const client = await single.connect();
    try {
      expect(client.listenerCount('error')).toBe(1);
    } finally {
      client.release();
    }
  });
});

describe('the statement runner without a server', () => {
  /** A client whose table fits (the first use's verify passes) and whose every statement answers. */
  const client = (): PostgresClientLike => ({
    query: answeringVerify(journalLayout('j'), () => Promise.resolve({ rows: [] })),
    release: () => undefined,
  });

  it('takes a client without on() (any object with connect())', async () => {
    const c = client();
    const j = new PostgresJournal({ pool: { connect: () => Promise.resolve(c) }, table: 'j' });
    await expect(j.record(intent('k'))).resolves.toBeUndefined();
  });

  it('refuses what is not a pool, a table, or a positive timeout, naming the setting', () => {
    const pool = { connect: () => Promise.resolve(client()) } as PostgresPoolLike;
    const refused = (f: () => unknown): InvalidArgumentError => {
      try {
        f();
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidArgumentError);
        return err as InvalidArgumentError;
      }
      throw new Error('not refused');
    };
    expect(refused(() => new PostgresJournal(undefined as never)).argument).toBe('pool');
    expect(refused(() => new PostgresJournal({} as never)).argument).toBe('pool');
    expect(refused(() => new PostgresJournal({ pool: {} as PostgresPoolLike })).message).toBe('pool: must be a pg Pool (with connect()).');
    for (const table of [5 as unknown as string, 'payments.x;y', 'x;y.payments']) {
      const err = refused(() => new PostgresJournal({ pool, table }));
      expect(err.argument).toBe('table');
      expect(err.message).toMatch(/^table: must be a table name, optionally schema-qualified/);
    }
    expect(refused(() => new PostgresJournal({ pool, statementTimeoutMs: 0 })).message).toMatch(/statementTimeoutMs/);
    expect(inspect(new PostgresJournal({ pool, table: 'a'.repeat(63) }))).toContain('a'.repeat(63));
    expect(inspect(new PostgresJournal({ pool, table: `s.${'b'.repeat(63)}` }))).toContain('b'.repeat(63));
  });

  describe('with a controllable clock', () => {
    beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
    afterEach(() => void vi.useRealTimers());

    it('leaves no timer behind once a statement is answered or refused (a process can exit)', async () => {
      const answering = new PostgresJournal({ pool: { connect: () => Promise.resolve(client()) }, table: 'j' });
      await answering.record(intent('k'));
      expect(vi.getTimerCount()).toBe(0);
      const refusing = new PostgresJournal({
        pool: {
          connect: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
        },
        table: 'j',
      });
      await failure(refusing.record(intent('k')));
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});

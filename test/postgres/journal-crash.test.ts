/**
 * The journal's crash matrix on `PostgresJournal`, with real processes and a real PostgreSQL
 * server: a merchant process starts a withdrawal, a merchant conversion or a card top-up through a
 * client journaling in PostgreSQL and is killed with SIGKILL at each point of the call; a second
 * process runs `client.recover()`; two processes recover six intents together. Every merchant
 * process connects as the least-privilege role of docs/postgres.md. The ledger service (in this
 * test's process) counts executions per key; the journal table is read after each case.
 *
 * Kill points, each reached by an event, never by a delay: the intent recorded and nothing sent;
 * the service executed and holds its answer; the answer arrived and the intent is not settled.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../src/index.js';
import { PostgresJournal } from '../../src/postgres/index.js';
import { failure } from '../helpers/client.js';
import { API_KEY, CLIENT_ID, SIGNING_KEY, WITHDRAWAL } from '../helpers/wire-server.js';
import { cleanupChildren, startChild, type Child, type ChildMessage } from '../journal/helpers/children.js';
import { ACTIVATION_PIN, startLedger, type Ledger, type RouteName } from '../journal/helpers/ledger.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeJournalTable } from './helpers/tables.js';

/** The processes of a test run several hundred ms each on a loaded 2-core machine: hang guard only. */
const LIMIT = 240_000;

const OPERATIONS = ['withdrawal', 'conversion', 'topup'] as const satisfies readonly RouteName[];
const POINTS = ['before sending', 'after the service executed, before the answer', 'after the answer, before settling'] as const;
type Point = (typeof POINTS)[number];

interface Reported {
  readonly key: string;
  readonly outcome: string;
  readonly settled: boolean;
  readonly replayed: boolean | undefined;
  readonly result: Record<string, unknown> | undefined;
  readonly check: string | undefined;
}

describe.skipIf(!POSTGRES_AVAILABLE)('crash-safe money movement on PostgresJournal (real processes, real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  let ledger: Ledger;
  let n = 0;
  const matrix: string[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
    ledger = await startLedger();
  }, LIMIT);
  afterAll(async () => {
    if (matrix.length > 0)
      console.info(
        `PostgreSQL crash matrix (operation | kill point | effects at the kill -> after recovery | recovery | rows after):\n${matrix.join('\n')}`,
      );
    await admin?.end();
    await ledger?.close();
    await server?.destroy();
    await cleanupChildren();
  });

  const newTable = async (): Promise<string> => {
    const table = `journal_crash_${++n}`;
    await makeJournalTable(admin, table);
    return table;
  };
  const env = (table: string, extra: Record<string, string>): Record<string, string> => ({
    BASE_URL: ledger.url,
    PG_URL: server.appUrl,
    PG_TABLE: table,
    ...extra,
  });
  /** Every row of the journal table: open, claimed or tombstone. */
  const rows = async (table: string): Promise<Array<{ key: string; claimed: boolean; settled: boolean; intent: string | null }>> =>
    (
      await admin.query<{ key: string; claimed: boolean; settled: boolean; intent: string | null }>(
        `SELECT key, claimed_until IS NOT NULL AS claimed, settled_at IS NOT NULL AS settled, intent FROM ${table} ORDER BY key`,
      )
    ).rows;

  async function crash(table: string, operation: RouteName, point: Point): Promise<string> {
    let child: Child;
    let key: string;
    if (point === 'after the service executed, before the answer') {
      const executed = ledger.holdAnswer(operation);
      child = await startChild(env(table, { ROLE: 'call', OPERATION: operation }));
      key = await executed;
    } else {
      child = await startChild(
        env(table, { ROLE: 'call', OPERATION: operation, PAUSE_AT: point === 'before sending' ? 'record' : 'settle' }),
      );
      key = String((await child.next('paused'))['key']);
    }
    await child.kill();
    expect(child.process.signalCode).toBe('SIGKILL');
    return key;
  }

  async function recover(table: string): Promise<Reported[]> {
    const child = await startChild(env(table, { ROLE: 'recover' }));
    const report = await child.next('report');
    await child.exited;
    return report['intents'] as Reported[];
  }

  for (const operation of OPERATIONS) {
    for (const point of POINTS) {
      it(
        `${operation}, killed ${point}: one effect, the recovery gives the order, no row left`,
        async () => {
          const table = await newTable();
          const key = await crash(table, operation, point);
          const executedBefore = ledger.effects(key);
          expect(executedBefore).toBe(point === 'before sending' ? 0 : 1);
          expect((await rows(table)).map((r) => r.key)).toEqual([key]);

          const report = await recover(table);

          expect(report).toHaveLength(1);
          const [entry] = report;
          expect(entry).toMatchObject({ key, outcome: 'resent', settled: true, replayed: executedBefore === 1 });
          expect(ledger.effects(key)).toBe(1);
          expect(ledger.executedKeys().filter((k) => k === key)).toHaveLength(1);
          expect(entry!.result).toEqual(ledger.answer(key)!.body as Record<string, unknown>);
          expect(await rows(table)).toEqual([]);
          matrix.push(
            `${operation} | ${point} | ${executedBefore} -> ${ledger.effects(key)} | ${entry!.outcome}${entry!.replayed ? ' (replayed)' : ' (executed by the resend)'} | 0`,
          );
        },
        LIMIT,
      );
    }
  }

  for (const point of ['before sending', 'after the service executed, before the answer'] as const) {
    it(
      `card activation, killed ${point}: reported for a check of the card, never resent, no PIN in the table`,
      async () => {
        const table = await newTable();
        const key = await crash(table, 'activation', point);
        const executedBefore = ledger.effects(key);
        const [row] = await rows(table);
        expect(row!.intent).toContain('"withheld":true');
        expect(row!.intent).not.toContain(ACTIVATION_PIN);

        const report = await recover(table);

        expect(report).toEqual([expect.objectContaining({ key, outcome: 'withheld', settled: true })]);
        expect(ledger.received(key)).toHaveLength(executedBefore);
        expect(await rows(table)).toEqual([]);
        matrix.push(`activation | ${point} | ${executedBefore} -> ${ledger.effects(key)} | withheld (card check, not resent) | 0`);
      },
      LIMIT,
    );
  }

  it(
    'two processes recovering together resend each intent once',
    async () => {
      const table = await newTable();
      const pool = poolOf(server.appUrl, 2);
      const client = new MerchantClient({
        baseUrl: ledger.url,
        clientId: CLIENT_ID,
        apiKey: API_KEY,
        signingKey: SIGNING_KEY,
        journal: new PostgresJournal({ pool, table, statementTimeoutMs: 120_000 }),
        maxRetries: 0,
      });
      ledger.interpose('withdrawal', () => ({ reset: true }));
      const keys: string[] = [];
      for (let i = 0; i < 6; i++)
        keys.push(
          String(((await failure(client.member('ext-crash').withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string }).idempotencyKey),
        );
      await client.close();
      await pool.end();
      expect((await rows(table)).map((r) => r.key).sort()).toEqual([...keys].sort());
      // The first two resends are held until both are in flight: both processes provably recover at once.
      let release!: () => void;
      const bothInFlight = new Promise<void>((resolve) => (release = resolve));
      let inFlight = 0;
      ledger.interpose('withdrawal', async () => {
        if (++inFlight === 2) release();
        if (inFlight <= 2) await bothInFlight;
        return undefined;
      });

      const children = [
        await startChild(env(table, { ROLE: 'recover', WAIT_GO: '1' })),
        await startChild(env(table, { ROLE: 'recover', WAIT_GO: '1' })),
      ];
      await Promise.all(children.map((c) => c.next('ready')));
      for (const c of children) c.send({ type: 'go' });
      const reports: ChildMessage[] = await Promise.all(children.map((c) => c.next('report')));
      await Promise.all(children.map((c) => c.exited));
      ledger.interpose('withdrawal', undefined);

      const resent = reports.flatMap((r) => (r['intents'] as Reported[]).map((i) => i.key));
      expect([...resent].sort()).toEqual([...keys].sort());
      for (const report of reports) expect((report['intents'] as Reported[]).length).toBeGreaterThan(0);
      for (const key of keys) {
        expect(ledger.received(key)).toHaveLength(2);
        expect(ledger.effects(key)).toBe(1);
      }
      expect(await rows(table)).toEqual([]);
    },
    LIMIT,
  );
});

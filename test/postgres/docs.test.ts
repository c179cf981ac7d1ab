/**
 * docs/postgres.md against the code and a real server: its table SQL is what `ensureSchema()`
 * runs, and its grants, run verbatim on tables its SQL created as the owner, are all the
 * application's role needs for every statement of every store.
 */
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventSchema,
  journalSchema,
  payoutSchema,
  PostgresEventStore,
  PostgresJournal,
  PostgresPayoutStore,
} from '../../src/postgres/index.js';
import { payoutRecord } from '../payouts/helpers/records.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';

const doc = readFileSync(new URL('../../docs/postgres.md', import.meta.url), 'utf8');
const sqlBlocks = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
const tablesSql = sqlBlocks.find((b) => b.includes('CREATE TABLE'))!;
const grantsSql = sqlBlocks.find((b) => b.includes('GRANT'))!;
const payoutSql = sqlBlocks.find((b) => b.includes('CREATE TABLE') && b !== tablesSql)!;
const payoutGrantSql = sqlBlocks.find((b) => b.includes('GRANT') && b !== grantsSql)!;
const statements = (block: string): string[] =>
  block
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s !== '');

describe('docs/postgres.md', () => {
  it('shows exactly the SQL ensureSchema() runs', () => {
    expect(statements(tablesSql)).toEqual([...journalSchema(), ...eventSchema()]);
    expect(statements(payoutSql)).toEqual(payoutSchema());
  });

  describe.skipIf(!POSTGRES_AVAILABLE)('its grants, on a real server', () => {
    let server: PostgresServer;
    let owner: pg.Pool;
    let app: pg.Pool;
    beforeAll(async () => {
      server = await startPostgres();
      owner = poolOf(server.url, 1);
      app = poolOf(server.appUrl, 4);
      for (const s of statements(tablesSql)) await owner.query(s);
      for (const s of statements(grantsSql)) await owner.query(s);
      for (const s of [...statements(payoutSql), ...statements(payoutGrantSql)]) await owner.query(s);
    }, 120_000);
    afterAll(async () => {
      await app?.end();
      await owner?.end();
      await server?.destroy();
    });

    it('are enough for every statement of both stores, and ensureSchema is the owner’s', async () => {
      const journal = new PostgresJournal({ pool: app, statementTimeoutMs: 120_000 });
      const intent = {
        key: 'k1',
        scope: 's1',
        endpoint: 'member.withdrawals.create',
        method: 'POST',
        path: '/v1/withdrawals',
        body: '{}',
        withheld: false,
        member: 'ext-1',
        createdAt: 1,
      };
      await journal.record(intent);
      expect(await journal.openAfter({ scope: 's1', createdAfter: 0, limit: 5 })).toEqual({ total: 1, intents: [intent] });
      expect(await journal.claim({ scope: 's1', createdBefore: 10, leaseMs: 1000, limit: 5 })).toEqual([intent]);
      await journal.settle('s1', 'k1');

      const events = new PostgresEventStore({ pool: app, statementTimeoutMs: 120_000 });
      expect(await events.claim('e1', 1000)).toBe('claimed');
      await events.release('e1');
      expect(await events.claim('e1', 1000)).toBe('claimed');
      await events.complete('e1');
      const tx = await events.claimInTransaction('e2', { ttlMs: 60_000, waitMs: 1000 });
      expect(tx.result).toBe('claimed');
      if (tx.result === 'claimed') await tx.commit();
      expect(await events.claim('e2', 1000)).toBe('duplicate');
      expect(await events.prune()).toBe(0);

      await expect(journal.ensureSchema()).rejects.toMatchObject({ kind: 'misconfigured', code: '42501' });
    });

    it('are enough for every statement of the payout store, with no DELETE', async () => {
      const payouts = new PostgresPayoutStore({ pool: app, statementTimeoutMs: 120_000 });
      const r1 = payoutRecord({ reference: 'ord-doc' });
      expect(await payouts.create(r1)).toEqual({ created: true, record: r1 });
      expect(await payouts.create(r1)).toEqual({ created: false, record: r1 });
      expect(await payouts.replace({ ...r1, version: 2, state: 'debited' })).toBe(true);
      expect((await payouts.list({ states: ['debited'], limit: 5 })).records.map((r) => r.version)).toEqual([2]);
      expect(await payouts.now()).toBeGreaterThan(0);
      await expect(app.query('DELETE FROM merchant_stablecoin_payouts')).rejects.toMatchObject({ code: '42501' });
    });
  });
});

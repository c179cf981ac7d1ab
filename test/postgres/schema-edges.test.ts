/**
 * The schema check's edges on a scripted pool (no server): which catalog failure is named as a
 * table locked by another session (only `55P03`, the lock wait that ran out), and the journal's
 * primary key named by its purpose when it is missing.
 */
import { describe, expect, it } from 'vitest';
import { PostgresEventStore, PostgresJournal, PostgresStoreError } from '../../src/postgres/index.js';
import type { PostgresClientLike, PostgresPoolLike } from '../../src/postgres/connection.js';
import { journalLayout } from '../../src/postgres/schema.js';
import { failure } from '../helpers/client.js';
import { fittingCatalogRows } from './helpers/fitting-catalog.js';

/** A pool whose catalog read answers `catalog()`; BEGIN and COMMIT answer. */
function scriptedPool(catalog: () => Promise<{ rows: Record<string, unknown>[] }>): PostgresPoolLike {
  const client: PostgresClientLike = {
    query: (text: string) => (text.includes('to_regclass') ? catalog() : Promise.resolve({ rows: [] })),
    release: () => undefined,
  };
  return { connect: () => Promise.resolve(client) };
}
const sqlError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('the schema check on a scripted pool', () => {
  it('a lock wait that ran out (55P03) is named as the table locked by another session', async () => {
    const store = new PostgresEventStore({
      pool: scriptedPool(() => Promise.reject(sqlError('55P03', 'canceling statement due to lock timeout'))),
    });
    const err = await failure(store.verifySchema());
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind: 'unavailable', code: '55P03', executed: false });
    expect((err as Error).message).toMatch(/the table is locked by another session \(a migration, a LOCK TABLE\)/);
  });

  it.each([
    ['57014', 'canceling statement due to statement timeout', 'unavailable'],
    ['42501', 'permission denied for function pg_get_indexdef', 'misconfigured'],
  ])('any other catalog failure (%s) keeps its own words, never a lock held elsewhere', async (code, message, kind) => {
    const journal = new PostgresJournal({ pool: scriptedPool(() => Promise.reject(sqlError(code, message))) });
    const err = await failure(journal.verifySchema());
    expect(err).toMatchObject({ kind, code });
    expect((err as Error).message).toContain(message);
    expect((err as Error).message).not.toMatch(/locked by another session/);
  });

  it('a journal table without its primary key: named as that index, for the primary key', async () => {
    const layout = journalLayout();
    const rows = fittingCatalogRows(layout).filter((r) => !(r['kind'] === 'index' && JSON.stringify(r['columns']) === '["scope","key"]'));
    const journal = new PostgresJournal({ pool: scriptedPool(() => Promise.resolve({ rows })) });
    const err = await failure(journal.verifySchema());
    expect(err).toMatchObject({ kind: 'misconfigured', code: undefined });
    expect((err as Error).message).toMatch(/no unique index on \(scope, key\), for the primary key/);
  });
});

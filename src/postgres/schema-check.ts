/**
 * A store's table checked against its layout (schema.ts) in PostgreSQL's catalogs: the columns,
 * their types and `NOT NULL`, and the indexes by their definition (uniqueness, method, key
 * columns, predicate), never by their name. One read-only statement on `pg_attribute`,
 * `pg_index`, `pg_class` and `pg_am`, which every role may read: the least-privilege role of
 * docs/postgres.md can run it.
 */
import type { PostgresClientLike, PostgresRunner } from './connection.js';
import { PostgresStoreError } from './failures.js';
import type { IndexLayout, TableLayout } from './schema.js';

/** SQLSTATE `undefined_table`: what PostgreSQL itself answers for a missing table. */
const UNDEFINED_TABLE = '42P01';

// The table (when it exists), its live columns and its indexes, in one round trip. Deparsing an
// index takes an ACCESS SHARE lock on the table: behind a migration's ACCESS EXCLUSIVE lock the
// verify waits no longer than its lock wait (`lock_timeout`), then says that lock is the cause.
const CATALOG = `WITH t AS (SELECT to_regclass($1) AS oid)
SELECT 'table' AS kind, NULL AS name, NULL AS type, NULL::boolean AS not_null, NULL::boolean AS has_default,
       NULL::boolean AS is_unique, NULL AS method, NULL::text[] AS columns, NULL AS predicate, NULL::boolean AS valid,
       NULL::text AS collation
FROM t WHERE t.oid IS NOT NULL
UNION ALL
SELECT 'column', a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef, NULL, NULL, NULL, NULL, NULL,
       (SELECT co.collname::text FROM pg_collation co WHERE co.oid = a.attcollation)
FROM pg_attribute a, t WHERE a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'index', c.relname, NULL, NULL, NULL, i.indisunique, am.amname,
       array(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) AS k ORDER BY k),
       pg_get_expr(i.indpred, i.indrelid, true), i.indisvalid AND i.indisready, NULL
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam, t
WHERE i.indrelid = t.oid`;

/** The table as the catalogs show it; `exists: false` when there is none by that name. */
interface FoundTable {
  readonly exists: boolean;
  readonly rows: ReadonlyArray<Record<string, unknown>>;
}

/** SQLSTATE `lock_not_available`: the lock wait ran out. */
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * Reads the table's columns and indexes from the catalogs (read-only), in a transaction whose
 * lock wait is `lockWaitMs` (default: the statement timeout), so that a table locked by another
 * session is named as such instead of ending as a statement without an answer.
 */
async function inspectTable<C extends PostgresClientLike>(
  db: PostgresRunner<C>,
  operation: string,
  lockWaitMs = db.timeoutMs,
): Promise<FoundTable> {
  const { rows } = await db.withClient(operation, [db.table], async (client) => {
    // A failure below destroys the client (withClient), which ends the transaction on the server.
    await client.query(`BEGIN READ ONLY; SET LOCAL lock_timeout = ${Math.max(1, Math.floor(lockWaitMs))}`);
    const found = await client.query(CATALOG, [db.table]).catch((err: unknown) => {
      throw (err as { code?: unknown }).code === LOCK_NOT_AVAILABLE ? lockedElsewhere() : err;
    });
    await client.query('COMMIT');
    return found;
  });
  return { exists: rows.some((r) => r['kind'] === 'table'), rows: rows.filter((r) => r['kind'] !== 'table') };
}

/** A catalog read that waited out its lock wait: a session holds the table (a migration). */
const lockedElsewhere = (): Error =>
  Object.assign(new Error('the table is locked by another session (a migration, a LOCK TABLE) for longer than the verify could wait'), {
    code: LOCK_NOT_AVAILABLE,
  });

const describeIndex = (index: IndexLayout): string =>
  `${index.unique ? 'unique ' : ''}index on (${index.columns.join(', ')})${index.where === undefined ? '' : ` WHERE ${index.where}`}`;

/** Whether a catalog row is a usable index with exactly `index`'s definition. */
function matches(row: Record<string, unknown>, index: IndexLayout): boolean {
  // Only an index row has `valid` set.
  return (
    row['valid'] === true &&
    row['method'] === 'btree' &&
    row['is_unique'] === index.unique &&
    (row['predicate'] ?? undefined) === index.where &&
    JSON.stringify(row['columns']) === JSON.stringify(index.columns)
  );
}

/** The indexes of `layout` that no usable index of the table defines. */
function missingIndexes(found: FoundTable, layout: TableLayout): IndexLayout[] {
  return layout.indexes.filter((index) => !found.rows.some((row) => matches(row, index)));
}

/** Every way the table differs from `layout`, one phrase each; empty when it fits. */
function differences(found: FoundTable, layout: TableLayout): string[] {
  const columns = new Map(found.rows.filter((r) => r['kind'] === 'column').map((r) => [String(r['name']), r]));
  const out: string[] = [];
  for (const want of layout.columns) {
    const have = columns.get(want.name);
    if (have === undefined) out.push(`column ${want.name} is missing (${want.type})`);
    else if (have['type'] !== want.type) out.push(`column ${want.name} is ${String(have['type'])}, not ${want.type}`);
    else if (have['not_null'] !== want.notNull)
      out.push(`column ${want.name} is ${want.notNull ? 'nullable, not NOT NULL' : 'NOT NULL, not nullable'}`);
    else if (want.collation !== undefined && have['collation'] !== want.collation)
      out.push(`column ${want.name} has collation ${String(have['collation'])}, not "${want.collation}"`);
    columns.delete(want.name);
  }
  // A column of the team's own is fine, unless the store's inserts cannot fill it.
  for (const [name, extra] of columns)
    if (extra['not_null'] === true && extra['has_default'] !== true) out.push(`column ${name} is NOT NULL without a default`);
  for (const index of missingIndexes(found, layout)) out.push(`no ${describeIndex(index)}, for ${index.purpose}`);
  return out;
}

/**
 * The misconfiguration of a table that does not fit: `42P01` when it does not exist (as
 * PostgreSQL would answer), else every difference named. Never sent, so `executed: false`.
 */
function schemaError(found: FoundTable, layout: TableLayout, operation: string): PostgresStoreError | undefined {
  if (!found.exists)
    return new PostgresStoreError(
      'misconfigured',
      `the table "${layout.table}" does not exist: run ensureSchema() or the migration (SQLSTATE ${UNDEFINED_TABLE})`,
      { code: UNDEFINED_TABLE, operation, unsent: true },
    );
  const diffs = differences(found, layout);
  if (diffs.length === 0) return undefined;
  return new PostgresStoreError(
    'misconfigured',
    `the table "${layout.table}" differs from what the store needs: ${diffs.join('; ')}. Fix it with a migration (the SQL of docs/postgres.md), then call verifySchema()`,
    { code: undefined, operation, unsent: true },
  );
}

/** Reads the table and rejects with {@link schemaError} when it does not fit `layout`. */
export async function verifyTable<C extends PostgresClientLike>(
  db: PostgresRunner<C>,
  layout: TableLayout,
  operation: string,
  lockWaitMs?: number,
): Promise<void> {
  const error = schemaError(await inspectTable(db, operation, lockWaitMs), layout, operation);
  if (error !== undefined) throw error;
}

/**
 * The DDL of `ensureSchema()`: creates the table when missing, then each index of the layout that
 * no index of the table defines already (whatever its name: an upgraded database never gets a
 * second one). The store then verifies the whole table.
 */
export async function createTable<C extends PostgresClientLike>(
  db: PostgresRunner<C>,
  layout: TableLayout,
  operation: string,
): Promise<void> {
  await db.query(operation, layout.createTable);
  const found = await inspectTable(db, operation);
  const missing = missingIndexes(found, layout).filter((index) => index.create !== undefined);
  for (const index of missing) await db.query(operation, index.create!);
}

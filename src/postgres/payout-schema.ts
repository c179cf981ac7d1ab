/**
 * The payout table of `PostgresPayoutStore`, as SQL: what its `ensureSchema()` runs and what
 * docs/postgres.md shows for teams that run their migrations themselves (a test compares them);
 * and the layout its `verifySchema()` checks the table against (schema-check.ts).
 */
import { quotedTable } from './connection.js';
import { col, indexName, type TableLayout } from './schema.js';

/** Default table of {@link PostgresPayoutStore}. */
export const DEFAULT_PAYOUT_TABLE = 'merchant_stablecoin_payouts';

/**
 * The payout table: one row per payout `reference`. `record` is the record's JSON as written
 * (text, not `jsonb`: handed back exactly, and a row that no longer parses is reported, never
 * refused); `version`, `state`, `created_at` and the rest are copies the statements filter and
 * order on. `reference` is `COLLATE "C"`: byte order, the same on every server, whatever the
 * database's locale (see docs/postgres.md, "Payouts").
 */
export function payoutSchema(table = DEFAULT_PAYOUT_TABLE): string[] {
  const layout = payoutLayout(table);
  return [layout.createTable, layout.indexes[1]!.create!, layout.indexes[2]!.create!];
}

/** The payout table as {@link payoutSchema} creates it. */
export function payoutLayout(table = DEFAULT_PAYOUT_TABLE): TableLayout {
  const t = quotedTable(table);
  return {
    table,
    createTable: `CREATE TABLE IF NOT EXISTS ${t} (
  reference text COLLATE "C" PRIMARY KEY,
  version integer NOT NULL,
  state text NOT NULL,
  member text NOT NULL,
  asset text NOT NULL,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  record text NOT NULL
)`,
    columns: [
      col('reference', 'text', true, 'C'),
      col('version', 'integer', true),
      col('state', 'text', true),
      col('member', 'text', true),
      col('asset', 'text', true),
      col('created_at', 'bigint', true),
      col('updated_at', 'bigint', true),
      col('record', 'text', true),
    ],
    indexes: [
      { purpose: 'the primary key', unique: true, columns: ['reference'] },
      {
        purpose: 'list() by state',
        unique: false,
        columns: ['state', 'created_at', 'reference'],
        create: `CREATE INDEX IF NOT EXISTS ${indexName(table, 'state')} ON ${t} (state, created_at, reference)`,
      },
      {
        purpose: 'list()',
        unique: false,
        columns: ['created_at', 'reference'],
        create: `CREATE INDEX IF NOT EXISTS ${indexName(table, 'created')} ON ${t} (created_at, reference)`,
      },
    ],
  };
}

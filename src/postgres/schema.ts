/**
 * The tables of the PostgreSQL stores, as SQL: what `ensureSchema()` runs, and what
 * docs/postgres.md shows for teams that run their migrations themselves (a test compares them);
 * and, beside each, the layout `verifySchema()` checks a table against (schema-check.ts).
 */
import { quotedTable } from './connection.js';

/** Default table of {@link PostgresJournal}. */
export const DEFAULT_JOURNAL_TABLE = 'merchant_stablecoin_journal';
/** Default table of {@link PostgresEventStore}. */
export const DEFAULT_EVENT_TABLE = 'merchant_stablecoin_webhook_events';

/** PostgreSQL's longest identifier, in bytes (`NAMEDATALEN - 1`); table names are ASCII here. */
const MAX_IDENTIFIER = 63;

/** FNV-1a (32 bits) of `text`, as 8 hex digits: a short, deterministic mark of a long name. */
function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * The name of the table's index `suffix`, quoted (unqualified: an index lives in its table's
 * schema). `<table>_<suffix>` when it fits in 63 bytes, as it always was (an upgraded database
 * keeps its index); past that, the table's name is shortened and a hash of the whole name added,
 * so that PostgreSQL never cuts it to a name it already holds (the table's own).
 */
export function indexName(table: string, suffix: string): string {
  const full = `${table.split('.').pop()!}_${suffix}`;
  if (full.length <= MAX_IDENTIFIER) return `"${full}"`;
  const keep = MAX_IDENTIFIER - suffix.length - 10; // `_<suffix>_<8 hex>`
  return `"${full.slice(0, keep)}_${suffix}_${shortHash(full)}"`;
}

/**
 * A column as the catalog shows it (`format_type`): name, type, whether it is `NOT NULL`, and,
 * when the store's order depends on it, its collation (`C`: byte order).
 */
export interface ColumnLayout {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
  readonly collation?: string;
}

/** An index by its definition (not its name): unique or not, btree key columns, predicate. */
export interface IndexLayout {
  /** What it serves, for the message that names a missing one. */
  readonly purpose: string;
  readonly unique: boolean;
  readonly columns: readonly string[];
  /** The partial index's predicate as `pg_get_expr(..., true)` prints it. */
  readonly where?: string;
  /** The statement that creates it; none for the primary key (created with the table). */
  readonly create?: string;
}

/** What a store needs of its table: the statement that creates it, its columns and indexes. */
export interface TableLayout {
  readonly table: string;
  readonly createTable: string;
  readonly columns: readonly ColumnLayout[];
  readonly indexes: readonly IndexLayout[];
}

const TS = 'timestamp with time zone';
/** A {@link ColumnLayout}; `collation` only where the store's order depends on it. */
export const col = (name: string, type: string, notNull = false, collation?: string): ColumnLayout =>
  collation === undefined ? { name, type, notNull } : { name, type, notNull, collation };

/**
 * The journal: one row per open intent (`scope`, `key`). `intent` is the JSON text as written
 * (text, not jsonb: a record that does not parse is still returned as unreadable, never refused);
 * `record_id` names the write; `claimed_until` is the end of a recovery's lease on the
 * database's clock; `settled_at` marks the rare tombstone of an intent settled after its record's
 * answer was lost (that record, landing late, then changes nothing).
 */
export function journalSchema(table = DEFAULT_JOURNAL_TABLE): string[] {
  const layout = journalLayout(table);
  return [layout.createTable, layout.indexes[1]!.create!];
}

/** The journal's table as {@link journalSchema} creates it. */
export function journalLayout(table = DEFAULT_JOURNAL_TABLE): TableLayout {
  const t = quotedTable(table);
  return {
    table,
    createTable: `CREATE TABLE IF NOT EXISTS ${t} (
  scope text NOT NULL,
  key text NOT NULL,
  created_at bigint NOT NULL,
  intent text,
  record_id text,
  claimed_until timestamptz,
  settled_at timestamptz,
  PRIMARY KEY (scope, key)
)`,
    columns: [
      col('scope', 'text', true),
      col('key', 'text', true),
      col('created_at', 'bigint', true),
      col('intent', 'text'),
      col('record_id', 'text'),
      col('claimed_until', TS),
      col('settled_at', TS),
    ],
    indexes: [
      { purpose: 'the primary key', unique: true, columns: ['scope', 'key'] },
      {
        purpose: 'claims and openAfter',
        unique: false,
        columns: ['scope', 'created_at'],
        where: 'settled_at IS NULL',
        create: `CREATE INDEX IF NOT EXISTS ${indexName(table, 'open')} ON ${t} (scope, created_at) WHERE settled_at IS NULL`,
      },
    ],
  };
}

/**
 * The webhook events: one row per event id. `state` is `completed` once processed (a
 * transactional delivery writes it in the merchant's own transaction), `in_progress` while a
 * plain `claim` holds it until `lease_until` (the database's clock); `marker` names that claim.
 */
export function eventSchema(table = DEFAULT_EVENT_TABLE): string[] {
  const layout = eventLayout(table);
  return [layout.createTable, layout.indexes[1]!.create!];
}

/** The event table as {@link eventSchema} creates it. */
export function eventLayout(table = DEFAULT_EVENT_TABLE): TableLayout {
  const t = quotedTable(table);
  return {
    table,
    createTable: `CREATE TABLE IF NOT EXISTS ${t} (
  event_id text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  lease_until timestamptz,
  marker text,
  completed_at timestamptz
)`,
    columns: [
      col('event_id', 'text', true),
      col('state', 'text', true),
      col('lease_until', TS),
      col('marker', 'text'),
      col('completed_at', TS),
    ],
    indexes: [
      { purpose: 'the primary key', unique: true, columns: ['event_id'] },
      {
        purpose: 'prune',
        unique: false,
        columns: ['completed_at'],
        create: `CREATE INDEX IF NOT EXISTS ${indexName(table, 'completed_at')} ON ${t} (completed_at)`,
      },
    ],
  };
}

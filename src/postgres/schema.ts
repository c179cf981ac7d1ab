/**
 * The tables of the PostgreSQL stores, as SQL: what `ensureSchema()` runs, and what
 * docs/postgres.md shows for teams that run their migrations themselves (a test compares them).
 */
import { indexName, quotedTable } from './connection.js';

/** Default table of {@link PostgresJournal}. */
export const DEFAULT_JOURNAL_TABLE = 'merchant_stablecoin_journal';
/** Default table of {@link PostgresEventStore}. */
export const DEFAULT_EVENT_TABLE = 'merchant_stablecoin_webhook_events';

/**
 * The journal: one row per open intent (`scope`, `key`). `intent` is the JSON text as written
 * (text, not jsonb: a record that does not parse is still returned as unreadable, never refused);
 * `record_id` names the write; `claimed_until` is the end of a recovery's lease on the
 * database's clock; `settled_at` marks the rare tombstone of an intent settled after its record's
 * answer was lost (that record, landing late, then changes nothing).
 */
export function journalSchema(table = DEFAULT_JOURNAL_TABLE): string[] {
  const t = quotedTable(table);
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
  scope text NOT NULL,
  key text NOT NULL,
  created_at bigint NOT NULL,
  intent text,
  record_id text,
  claimed_until timestamptz,
  settled_at timestamptz,
  PRIMARY KEY (scope, key)
)`,
    `CREATE INDEX IF NOT EXISTS ${indexName(table, 'open')} ON ${t} (scope, created_at) WHERE settled_at IS NULL`,
  ];
}

/**
 * The webhook events: one row per event id. `state` is `completed` once processed (a
 * transactional delivery writes it in the merchant's own transaction), `in_progress` while a
 * plain `claim` holds it until `lease_until` (the database's clock); `marker` names that claim.
 */
export function eventSchema(table = DEFAULT_EVENT_TABLE): string[] {
  const t = quotedTable(table);
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
  event_id text PRIMARY KEY,
  state text NOT NULL CHECK (state IN ('in_progress', 'completed')),
  lease_until timestamptz,
  marker text,
  completed_at timestamptz
)`,
    `CREATE INDEX IF NOT EXISTS ${indexName(table, 'completed_at')} ON ${t} (completed_at)`,
  ];
}

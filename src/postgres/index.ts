/**
 * `merchant-stablecoin/postgres`: the intent journal, the webhook event store and the payout
 * store in the merchant's own PostgreSQL, where payments data is backed up, replicated and
 * audited; webhook events processed inside the merchant's transaction, exactly once (see
 * docs/postgres.md).
 *
 * Nothing here imports `pg` at run time: pass your own `pg.Pool`.
 */
export type { PostgresClientLike, PostgresPoolLike, PostgresQueryResult, PostgresStoreOptions } from './connection.js';
export { PostgresStoreError, type PostgresFailureKind } from './failures.js';
export { PostgresJournal, type PostgresJournalOptions } from './journal.js';
export { PostgresEventStore, type PostgresEventStoreOptions } from './event-store.js';
export { journalSchema, eventSchema, DEFAULT_JOURNAL_TABLE, DEFAULT_EVENT_TABLE } from './schema.js';
export { PostgresPayoutStore, type PostgresPayoutStoreOptions } from './payout-store.js';
export { payoutSchema, DEFAULT_PAYOUT_TABLE } from './payout-schema.js';

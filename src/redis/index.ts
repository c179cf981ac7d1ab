/**
 * `merchant-stablecoin/redis`: fleet mode. Token, webhook-dedup, rate-limit and intent-journal
 * state shared by many instances through a Redis the caller already runs (see docs/fleet.md).
 *
 * Nothing here imports ioredis at run time: pass your own connected `Redis` or `Cluster`.
 */
export type { RedisClientLike, RedisStoreOptions } from './connection.js';
export { RedisStoreError, type RedisFailureKind } from './failures.js';
export { RedisTokenStore, type RedisTokenStoreOptions } from './token-store.js';
export { RedisEventStore, type RedisEventStoreOptions, type WhileRedisIsDown } from './event-store.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './rate-limiter.js';
export { RedisJournal, type RedisJournalOptions } from './journal.js';
export { RedisPayoutStore, type RedisPayoutStoreOptions } from './payout-store.js';
export { UnreadablePayoutRecordError } from './payout-records.js';

/**
 * The payout stores on real servers, opened the same way by the tests and by their child
 * processes: `RedisPayoutStore` under a prefix, `PostgresPayoutStore` on a table. Each open is
 * its own connection (another worker's view of the same data).
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import type { PayoutStore } from '../../../src/payouts/store.js';
import { PostgresPayoutStore } from '../../../src/postgres/index.js';
import { RedisPayoutStore } from '../../../src/redis/index.js';

/** Which server. */
export type StoreKind = 'redis' | 'postgres';

/** Where one test's payouts live. */
export interface StoreAddress {
  readonly kind: StoreKind;
  /** The server's URL. */
  readonly url: string;
  /** The Redis prefix, or the PostgreSQL table. */
  readonly name: string;
}

/** An open store and how to close its connection. */
export interface OpenStore {
  readonly store: PayoutStore;
  close(): Promise<void>;
}

/** A healthy server answering slowly on a loaded machine is not an outage. */
const TIMEOUT_MS = 120_000;

/** Opens the store at `address` on a connection of its own. */
export function openStore(address: StoreAddress): OpenStore {
  if (address.kind === 'redis') {
    const redis = new Redis(address.url, { maxRetriesPerRequest: 1 });
    // ioredis prints connection errors nobody listens for; the store reports its own.
    redis.on('error', () => undefined);
    const store = new RedisPayoutStore({ redis, prefix: address.name, commandTimeoutMs: TIMEOUT_MS });
    return { store, close: () => redis.quit().then(() => undefined) };
  }
  const pool = new pg.Pool({ connectionString: address.url, max: 2 });
  pool.on('error', () => undefined);
  const store = new PostgresPayoutStore({ pool, table: address.name, statementTimeoutMs: TIMEOUT_MS });
  return { store, close: () => pool.end() };
}

/** Creates what the store needs before its first use (the PostgreSQL table, as a migration would). */
export async function prepareStore(address: StoreAddress): Promise<void> {
  if (address.kind === 'redis') return;
  const pool = new pg.Pool({ connectionString: address.url, max: 1 });
  try {
    await new PostgresPayoutStore({ pool, table: address.name }).ensureSchema();
  } finally {
    await pool.end();
  }
}

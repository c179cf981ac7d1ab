import { randomUUID } from 'node:crypto';
import { log } from '../core/logger.js';
import { sleep } from '../core/sleep.js';
import { MemoryTokenStore, type StoredToken, type TokenStore } from '../core/token-store.js';
import { positiveNumber } from '../core/checks.js';
import { RedisGuard, type RedisStoreOptions } from './connection.js';
import { DELETE_TOKEN_IF, EXTEND_LOCK, TRY_LOCK, UNLOCK } from './scripts.js';

/** Settings of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions extends RedisStoreOptions {
  /**
   * Lease of the renewal lock in ms (default 5000). The holder extends it while its exchange
   * runs; a crashed holder's lock frees after at most this long.
   */
  readonly lockTtlMs?: number;
  /** How often an instance waiting for another's renewal looks again, in ms (default 25, plus jitter). */
  readonly lockPollMs?: number;
  /**
   * Longest wait for another instance's renewal, in ms (default 30 000); past it the instance
   * renews on its own rather than fail a call.
   */
  readonly lockWaitMs?: number;
}

/**
 * A {@link TokenStore} shared by a fleet through Redis: one token per (base URL, client id), and
 * one renewal for the whole fleet.
 *
 * - The token lives under the key the client gives (`merchant-stablecoin:token:<sha256 prefix>`,
 *   no secret in it) as JSON, with a TTL a little past `expired_at`.
 * - Renewal takes a short lock (`{<key>}:lock`, SET NX PX with a random owner). The holder makes
 *   the one exchange, stores the token and counts the renewal (`{<key>}:renewals`); the others
 *   poll, see the count move and return the new token without an exchange (or, if the holder
 *   failed, take the lock in turn). The lock is released by a compare-and-delete script (only by
 *   its owner), extended while the holder's exchange runs, and expires on its own within
 *   `lockTtlMs` if the holder dies.
 * - `delete` is compare-and-delete in Lua: a revoked token is dropped, a newer one never is.
 * - If Redis fails or is slow, the store answers from this process's memory (the last token it
 *   saw) and renews without the fleet lock; one line is logged. See docs/fleet.md.
 *
 * The token is stored, never logged, and not shown by `util.inspect` or `JSON.stringify`.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { RedisTokenStore } from 'merchant-stablecoin/redis';
 * const client = new MerchantClient({ tokenStore: new RedisTokenStore({ redis: new Redis(url) }) });
 */
export class RedisTokenStore implements TokenStore {
  readonly #guard: RedisGuard;
  readonly #local = new MemoryTokenStore();
  readonly #lockTtlMs: number;
  readonly #lockPollMs: number;
  readonly #lockWaitMs: number;
  readonly #logger: RedisStoreOptions['logger'];

  /** @param options - The Redis client and timings. */
  constructor(options: RedisTokenStoreOptions) {
    this.#guard = new RedisGuard('the token store', options);
    this.#logger = options.logger;
    this.#lockTtlMs = Math.ceil(positiveNumber('lockTtlMs', options.lockTtlMs, 5000));
    this.#lockPollMs = positiveNumber('lockPollMs', options.lockPollMs, 25);
    this.#lockWaitMs = positiveNumber('lockWaitMs', options.lockWaitMs, 30_000);
  }

  /** The token stored for `key` fleet-wide, or undefined (from memory while Redis is unreachable). */
  get(key: string): Promise<StoredToken | undefined> {
    return this.#guard.run(
      async (redis) => {
        const token = decode(await redis.call('GET', key));
        // Remembered locally so that an outage starts from the last token seen, not from none.
        if (token !== undefined) this.#local.set(key, token);
        return token;
      },
      () => this.#local.get(key),
    );
  }

  /** Stores `token` for `key` fleet-wide; Redis drops it a little after its `expired_at`. */
  async set(key: string, token: StoredToken): Promise<void> {
    this.#local.set(key, token);
    // Kept a little past expiry: readers check freshness themselves; the TTL only cleans up.
    const ttlMs = Math.max(1000, Math.round(token.expiresAt * 1000 - Date.now()) + 5 * 60_000);
    await this.#guard.run(
      (redis) => redis.call('SET', key, JSON.stringify({ token: token.token, expiresAt: token.expiresAt }), 'PX', ttlMs),
      () => undefined,
    );
  }

  /** Removes the token under `key` only if it is still `token` (compare-and-delete, atomic in Redis). */
  async delete(key: string, token: string): Promise<void> {
    this.#local.delete(key, token);
    await this.#guard.run(
      (redis) => this.#guard.script(redis, DELETE_TOKEN_IF, [key], [token]),
      () => undefined,
    );
  }

  /**
   * Runs `renew` while holding the fleet-wide renewal lock of `key`, waiting while another
   * instance holds it. Without Redis it runs `renew` at once (this process's single-flight
   * still holds).
   */
  async withRenewalLock<T>(key: string, renew: () => Promise<T>): Promise<T> {
    // One hash tag for both keys: a Redis Cluster keeps them in one slot for the scripts.
    const keys = [`{${key}}:lock`, `{${key}}:renewals`];
    const owner = randomUUID();
    const waitUntil = Date.now() + this.#lockWaitMs;
    let seen = '';
    for (;;) {
      const reply = await this.#guard.run(
        async (redis) => (await this.#guard.script(redis, TRY_LOCK, keys, [owner, this.#lockTtlMs, seen])) as [number, string | Buffer],
        () => undefined,
      );
      // Redis unavailable: this process's own single-flight still holds.
      if (reply === undefined) return renew();
      const [state, counter] = reply;
      if (state === 1) return this.#holding(keys, owner, renew);
      // Another instance renewed while we waited: `renew` finds its token and exchanges nothing.
      if (state === 2) return renew();
      seen ||= String(counter);
      if (Date.now() >= waitUntil) {
        log(
          this.#logger,
          'warn',
          `merchant-stablecoin/redis: waited ${this.#lockWaitMs} ms for another instance's token renewal; renewing here.`,
        );
        return renew();
      }
      await sleep(this.#lockPollMs + Math.random() * this.#lockPollMs);
    }
  }

  async #holding<T>(keys: string[], owner: string, renew: () => Promise<T>): Promise<T> {
    // Extends the lease while the exchange runs (slow network, retries); stops if we crash.
    const keepAlive = setInterval(
      () => {
        void this.#guard.run(
          (redis) => this.#guard.script(redis, EXTEND_LOCK, [keys[0]!], [owner, this.#lockTtlMs]),
          () => undefined,
        );
      },
      Math.max(10, Math.floor(this.#lockTtlMs / 3)),
    );
    keepAlive.unref?.();
    let succeeded = false;
    try {
      const result = await renew();
      succeeded = true;
      return result;
    } finally {
      clearInterval(keepAlive);
      // If this fails the lock still expires on its own within lockTtlMs.
      await this.#guard.run(
        (redis) => this.#guard.script(redis, UNLOCK, keys, [owner, succeeded ? '1' : '0']),
        () => undefined,
      );
    }
  }

  /** Never reveal tokens through inspection. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisTokenStore { degraded: ${this.#guard.degraded} }`;
  }

  /** What `JSON.stringify` shows: the health only, never a token. */
  toJSON(): Record<string, unknown> {
    return { degraded: this.#guard.degraded };
  }
}

function decode(raw: unknown): StoredToken | undefined {
  if (typeof raw !== 'string' && !Buffer.isBuffer(raw)) return undefined;
  try {
    const v = JSON.parse(raw.toString()) as { token?: unknown; expiresAt?: unknown };
    if (typeof v.token === 'string' && v.token !== '' && typeof v.expiresAt === 'number' && Number.isFinite(v.expiresAt)) {
      return { token: v.token, expiresAt: v.expiresAt };
    }
  } catch {
    // A value we cannot read is treated as absent; the next renewal overwrites it.
  }
  return undefined;
}

import { randomUUID } from 'node:crypto';
import { positiveNumber } from '../core/errors/setting-checks.js';
import { log } from '../core/telemetry/logger.js';
import { sleep } from '../core/time/sleep.js';
import { MemoryTokenStore, type StoredToken, type TokenStore } from '../core/credentials/token-store.js';
import type { RedisCommands } from './commands.js';
import { RedisGuard, type RedisStoreOptions, type RunOptions } from './connection.js';
import type { RedisStoreError } from './failures.js';
import { keyDigest } from './keyspace.js';
import { DELETE_TOKEN_IF, EXTEND_LOCK, TRY_LOCK, UNLOCK } from './scripts.js';

/** Settings of {@link RedisTokenStore}. */
export interface RedisTokenStoreOptions extends RedisStoreOptions {
  /**
   * Lease of the renewal lock in ms (default 5000). The holder extends it while its exchange
   * runs; a crashed holder's lock frees after at most this long. It is also how long an instance
   * taking part in a renewal waits out a Redis stall before renewing on its own.
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

/** The Redis keys of one token: one hash tag, so a Cluster keeps them in one slot for the scripts. */
interface TokenKeys {
  readonly token: string;
  readonly lock: string;
  readonly renewals: string;
}

/** A renewal this instance takes part in (holding the lock or waiting for it). */
interface Renewal {
  /** Instances of the store's callers in it (several clients may share one store). */
  count: number;
  /** Redis failed during it: its remaining commands fall back at once. */
  gaveUp: boolean;
}

/**
 * A {@link TokenStore} shared by a fleet through Redis: one token per (base URL, client id), and
 * one renewal for the whole fleet.
 *
 * - The client's key (which holds no secret) is digested into `<prefix>:token:{<32 hex>}`, where
 *   the token is stored as JSON with a TTL a little past `expired_at`.
 * - Renewal takes a short lock (`<prefix>:token:{<32 hex>}:lock`, SET NX PX with a random
 *   owner). The holder makes the one exchange, stores the token and counts the renewal
 *   (`...:renewals`); the others poll, see the count move and return the new token without an
 *   exchange (or, if the holder failed, take the lock in turn). The lock is released by a
 *   compare-and-delete script (only by its owner), extended while the holder's exchange runs,
 *   and expires on its own within `lockTtlMs` if the holder dies.
 * - While a renewal is under way, a Redis stall shorter than `lockTtlMs` is waited out (its
 *   commands are still queued on the connection), so that a stall does not turn one exchange
 *   into one per instance.
 * - `delete` is compare-and-delete in Lua: a revoked token is dropped, a newer one never is.
 * - If Redis fails or is slow, the store answers from this process's memory (the last token it
 *   saw) and renews without the fleet lock; one line is logged. A refusal only Redis'
 *   configuration can fix (`NOPERM`, ...) is logged as an error naming the code, command and key.
 *   See docs/fleet.md.
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
  readonly #renewals = new Map<string, Renewal>();

  /** @param options - The Redis client, key prefix and timings. */
  constructor(options: RedisTokenStoreOptions) {
    this.#guard = new RedisGuard(
      'the token store',
      options,
      'this operation was answered from this process memory (a renewal without the fleet lock makes one token exchange per instance).',
    );
    this.#logger = options.logger;
    this.#lockTtlMs = Math.ceil(positiveNumber('lockTtlMs', options.lockTtlMs, 5000));
    this.#lockPollMs = positiveNumber('lockPollMs', options.lockPollMs, 25);
    this.#lockWaitMs = positiveNumber('lockWaitMs', options.lockWaitMs, 30_000);
  }

  /** The token stored for `key` fleet-wide, or undefined (from memory while Redis is unreachable). */
  get(key: string): Promise<StoredToken | undefined> {
    const k = this.#keysOf(key);
    return this.#run(
      key,
      async (redis) => {
        const token = decode(await redis.call('GET', [k.token]));
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
    // expiresAt is on the service's clock, which Date.now() approximates (not a wait).
    const ttlMs = Math.max(1000, Math.round(token.expiresAt * 1000 - Date.now()) + 5 * 60_000);
    const value = JSON.stringify({ token: token.token, expiresAt: token.expiresAt });
    await this.#run(
      key,
      (redis) => redis.call('SET', [this.#keysOf(key).token], [value, 'PX', ttlMs]),
      () => undefined,
    );
  }

  /** Removes the token under `key` only if it is still `token` (compare-and-delete, atomic in Redis). */
  async delete(key: string, token: string): Promise<void> {
    this.#local.delete(key, token);
    await this.#run(
      key,
      (redis) => redis.script(DELETE_TOKEN_IF, [this.#keysOf(key).token], [token]),
      () => undefined,
    );
  }

  /**
   * Runs `renew` while holding the fleet-wide renewal lock of `key`, waiting while another
   * instance holds it. Without Redis it runs `renew` at once (this process's single-flight
   * still holds).
   */
  async withRenewalLock<T>(key: string, renew: () => Promise<T>): Promise<T> {
    const keys = this.#keysOf(key);
    const owner = randomUUID();
    const waitUntil = performance.now() + this.#lockWaitMs;
    const renewal = this.#enter(key);
    try {
      let seen = '';
      for (;;) {
        const reply = await this.#run(
          key,
          async (redis) =>
            (await redis.script(TRY_LOCK, [keys.lock, keys.renewals], [owner, this.#lockTtlMs, seen])) as [number, string | Buffer],
          () => undefined,
        );
        // Redis unavailable: this process's own single-flight still holds.
        if (reply === undefined) return await renew();
        const [state, counter] = reply;
        if (state === 1) return await this.#holding(key, keys, owner, renew);
        // Another instance renewed while we waited: `renew` finds its token and exchanges nothing.
        if (state === 2) return await renew();
        seen ||= String(counter);
        if (performance.now() >= waitUntil) {
          log(
            this.#logger,
            'warn',
            `merchant-stablecoin/redis: waited ${this.#lockWaitMs} ms for another instance's token renewal; renewing here.`,
          );
          return await renew();
        }
        await sleep(this.#lockPollMs + Math.random() * this.#lockPollMs);
      }
    } finally {
      if (--renewal.count === 0) this.#renewals.delete(key);
    }
  }

  async #holding<T>(key: string, keys: TokenKeys, owner: string, renew: () => Promise<T>): Promise<T> {
    // Extends the lease while the exchange runs (slow network, retries); stops if we crash.
    const keepAlive = setInterval(
      () => {
        void this.#run(
          key,
          (redis) => redis.script(EXTEND_LOCK, [keys.lock], [owner, this.#lockTtlMs]),
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
      await this.#run(
        key,
        (redis) => redis.script(UNLOCK, [keys.lock, keys.renewals], [owner, succeeded ? '1' : '0']),
        () => undefined,
      );
    }
  }

  /**
   * One Redis operation on `key`'s keys. Inside a renewal, a stall is waited out (up to
   * `lockTtlMs`, even while the connection is considered down): the renewal's commands are
   * queued on the connection and their answers decide whether the fleet needs one exchange or
   * one per instance. Once Redis has failed during the renewal, the rest falls back at once.
   */
  #run<T>(key: string, op: (redis: RedisCommands) => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    const renewal = this.#renewals.get(key);
    const patient = renewal !== undefined && !renewal.gaveUp;
    const options: RunOptions = patient ? { patienceMs: this.#lockTtlMs, evenIfDown: true } : {};
    return this.#guard.run(
      op,
      (failure: RedisStoreError) => {
        if (patient && failure.kind !== 'misconfigured') renewal.gaveUp = true;
        return fallback();
      },
      options,
    );
  }

  #enter(key: string): Renewal {
    let renewal = this.#renewals.get(key);
    if (renewal === undefined) {
      renewal = { count: 0, gaveUp: false };
      this.#renewals.set(key, renewal);
    }
    renewal.count++;
    return renewal;
  }

  #keysOf(key: string): TokenKeys {
    const tag = keyDigest(key);
    const ks = this.#guard.keys;
    return { token: ks.tagged('token', tag), lock: ks.tagged('token', tag, 'lock'), renewals: ks.tagged('token', tag, 'renewals') };
  }

  /** Never reveal tokens through inspection. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisTokenStore { prefix: '${this.#guard.keys.prefix}', degraded: ${this.#guard.degraded} }`;
  }

  /** What `JSON.stringify` shows: the prefix and the health only, never a token. */
  toJSON(): Record<string, unknown> {
    return { prefix: this.#guard.keys.prefix, degraded: this.#guard.degraded };
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

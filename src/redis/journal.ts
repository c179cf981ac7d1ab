import type { IntentJournal, JournalClaimRequest, JournalIntent } from '../core/journal.js';
import { positiveNumber } from '../core/checks.js';
import { log } from '../core/logger.js';
import { checkPrefix, RedisGuard, type RedisStoreOptions } from './connection.js';
import { CLAIM_INTENTS, RECORD_INTENT, SETTLE_INTENT } from './journal-scripts.js';

/** Settings of {@link RedisJournal}. */
export interface RedisJournalOptions extends RedisStoreOptions {
  /**
   * Key prefix (default `merchant-stablecoin`), as for the other fleet stores: every key starts
   * with it, so an ACL key pattern `~<prefix>:*` covers the journal.
   */
  readonly prefix?: string;
}

/** Thrown when Redis cannot take or give an intent: a journal has no in-memory fallback. */
class JournalUnavailableError extends Error {
  override name = 'JournalUnavailableError';
}

/**
 * An intent journal ({@link IntentJournal}) in Redis, shared by the fleet: a money-moving call is
 * written there before it is sent, and any instance's `client.recover()` finishes it after the
 * instance that sent it died.
 *
 * - Per client scope (a digest of base URL and client id) three keys share one hash tag, so a
 *   Redis Cluster keeps them in one slot: `<prefix>:journal:{<scope>}:intents` (hash, key → the
 *   intent as JSON), `...:open` (sorted set, key → `createdAt`) and `...:claims` (hash, key → end
 *   of the current claim, on Redis' clock).
 * - `record` is one Lua script (HSETNX + ZADD NX: the first record of a key stays), `settle` one
 *   more (HDEL, ZREM, HDEL), `claim` a third: it walks the open intents oldest first, skips those
 *   under an unexpired claim, and claims the rest up to `limit` for `leaseMs`, atomically, so two
 *   instances never claim the same intent.
 * - **No in-memory fallback**, unlike the other stores: an intent held only in this process's
 *   memory would not survive the crash it is written for. While Redis fails or answers slower
 *   than `commandTimeoutMs`, `record` rejects, so money-moving calls fail before sending
 *   (`CallInterruptedError`, `call.sent: 'no'`: nothing moved) and calls that move no funds go on.
 *   One `warn` line is logged per outage, as for the other stores.
 * - The journal is as durable as the Redis under it: run it with persistence (AOF) and
 *   `maxmemory-policy noeviction`, or a crash of Redis loses the open intents. Keys have no TTL;
 *   `recover()` removes what it finishes.
 *
 * Intents hold no token, signature or PIN (a card activation's body is never kept); they do hold
 * the bodies of money-moving calls (addresses, amounts) and member ids: protect Redis as for any
 * payments data.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { RedisJournal } from 'merchant-stablecoin/redis';
 * const client = new MerchantClient({ journal: new RedisJournal({ redis: new Redis(url) }) });
 * await client.recover(); // at start-up: finish what a dead instance left open
 */
export class RedisJournal implements IntentJournal {
  readonly #guard: RedisGuard;
  readonly #prefix: string;
  readonly #logger: RedisStoreOptions['logger'];
  readonly #timeoutMs: number;

  /** @param options - The Redis client, key prefix and timings. */
  constructor(options: RedisJournalOptions) {
    this.#guard = new RedisGuard('the intent journal', options);
    this.#prefix = checkPrefix(options.prefix, 'merchant-stablecoin');
    this.#logger = options.logger;
    this.#timeoutMs = positiveNumber('commandTimeoutMs', options.commandTimeoutMs, 1000);
  }

  /** Writes the intent (the first record of a key stays); rejects when Redis cannot take it. */
  async record(intent: JournalIntent): Promise<void> {
    await this.#run('record', (redis) =>
      this.#guard.script(redis, RECORD_INTENT, this.#keys(intent.scope), [intent.key, JSON.stringify(intent), intent.createdAt]),
    );
  }

  /**
   * Removes the intent and its claim. Always sent, even while Redis is considered down: after a
   * `record` that timed out, this settle follows it on the same connection, so a record that
   * lands late is removed right after (its call was refused, and must never be resent).
   */
  async settle(scope: string, key: string): Promise<void> {
    const sent = this.#guard.script(this.#guard.redis, SETTLE_INTENT, this.#keys(scope), [key]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(unavailable('settle')), this.#timeoutMs);
    });
    sent.catch(() => undefined);
    try {
      await Promise.race([sent, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Claims open intents of the scope atomically (see the class comment). */
  async claim(request: JournalClaimRequest): Promise<readonly JournalIntent[]> {
    const reply = await this.#run('claim', (redis) =>
      this.#guard.script(redis, CLAIM_INTENTS, this.#keys(request.scope), [
        Math.floor(request.createdBefore),
        Math.max(1, Math.ceil(request.leaseMs)),
        request.limit,
      ]),
    );
    const intents: JournalIntent[] = [];
    for (const raw of Array.isArray(reply) ? (reply as unknown[]) : []) {
      const intent = decode(raw);
      if (intent !== undefined) intents.push(intent);
      // Left claimed, not deleted: it may be a newer version's record, or readable by a person.
      else log(this.#logger, 'warn', 'merchant-stablecoin/redis: an unreadable journal record was skipped', { prefix: this.#prefix });
    }
    return intents;
  }

  #keys(scope: string): string[] {
    const base = `${this.#prefix}:journal:{${scope}}`;
    return [`${base}:intents`, `${base}:open`, `${base}:claims`];
  }

  #run(what: string, op: Parameters<RedisGuard['run']>[0]): Promise<unknown> {
    return this.#guard.run(op, () => {
      throw new JournalUnavailableError(
        `merchant-stablecoin/redis: the intent journal could not ${what} (Redis unavailable; see docs/fleet.md).`,
      );
    });
  }

  /** Inspection shows the prefix and health only. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisJournal { prefix: '${this.#prefix}', degraded: ${this.#guard.degraded} }`;
  }
}

function unavailable(what: string): JournalUnavailableError {
  return new JournalUnavailableError(
    `merchant-stablecoin/redis: the intent journal could not ${what} (Redis unavailable; see docs/fleet.md).`,
  );
}

/** An intent read back from Redis, or undefined when the record is not one. */
function decode(raw: unknown): JournalIntent | undefined {
  try {
    const v = JSON.parse(String(raw)) as Record<string, unknown>;
    const text = (k: string): boolean => typeof v[k] === 'string';
    const textOrNull = (k: string): boolean => text(k) || v[k] === null;
    if (['key', 'scope', 'endpoint', 'method', 'path'].every(text) && textOrNull('body') && textOrNull('member')) {
      if (typeof v['withheld'] === 'boolean' && Number.isFinite(v['createdAt'])) return Object.freeze(v) as unknown as JournalIntent;
    }
  } catch {
    // Not JSON: skipped below.
  }
  return undefined;
}

import {
  decodeIntent,
  type ClaimedRecord,
  type IntentJournal,
  type JournalClaimRequest,
  type JournalIntent,
  type JournalLeased,
  type JournalLeasedRequest,
  type JournalOpenAfter,
  type JournalOpenAfterRequest,
} from '../core/journal/intent-journal.js';
import { log } from '../core/telemetry/logger.js';
import { RedisGuard, type RedisStoreOptions } from './connection.js';
import type { RedisCommands } from './commands.js';
import { RedisStoreError } from './failures.js';
import { keyDigest } from './keyspace.js';
import { CLAIM_INTENTS, LEASED_INTENTS, OPEN_AFTER, RECORD_INTENT, SETTLE_INTENT } from './journal-scripts.js';

/** Settings of {@link RedisJournal}: those every fleet store shares (`redis`, `prefix`, `logger`, timings). */
export type RedisJournalOptions = RedisStoreOptions;

/**
 * An intent journal ({@link IntentJournal}) in Redis, shared by the fleet: a money-moving call is
 * written there before it is sent, and any instance's `client.recover()` finishes it after the
 * instance that sent it died.
 *
 * - Per client scope (a digest of base URL and client id) three keys share one hash tag after the
 *   prefix, so an ACL key pattern `~<prefix>:*` grants them and a Redis Cluster keeps them in one
 *   slot: `<prefix>:journal:{<scope>}:intents` (hash, key → the intent as JSON), `...:open`
 *   (sorted set, key → `createdAt`) and `...:claims` (hash, key → end of the current claim, on
 *   Redis' clock).
 * - `record` is one Lua script (HSETNX + ZADD NX: the first record of a key stays), `settle` one
 *   more (HDEL, ZREM, HDEL), `claim` a third: it walks the open intents oldest first, skips those
 *   under an unexpired claim, and claims the rest up to `limit` for `leaseMs`, atomically, so two
 *   instances never claim the same intent.
 * - **No in-memory fallback**, unlike the token store and the limiter: an intent held only in
 *   this process's memory would not survive the crash it is written for. While Redis cannot
 *   answer (or answers slower than `commandTimeoutMs`, or its connection is not ready by then, as
 *   when it is unreachable from the start), and when it refuses the command (`NOPERM`,
 *   `OOM`, ...), `record` rejects with a `RedisStoreError` that says which, so money-moving calls
 *   fail before sending (`CallInterruptedError`, `call.sent: 'no'`, that error as `cause`: nothing
 *   moved) and calls that move no funds go on. Outages and refusals are logged as for the other
 *   stores (one `warn` line per outage, one `error` line per refusal).
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
  readonly #logger: RedisStoreOptions['logger'];
  /** Records not answered yet, by scope and key: stopped by a settle while still unsent. */
  readonly #waiting = new Map<string, RedisCommands[]>();

  /** @param options - The Redis client, key prefix and timings. */
  constructor(options: RedisJournalOptions) {
    this.#guard = new RedisGuard(
      'the intent journal',
      options,
      'money-moving calls are refused before sending (nothing moves) until Redis accepts the command.',
    );
    this.#logger = options.logger;
  }

  /**
   * Writes the intent (the first record of a key stays).
   *
   * Waits for the client's connection to be ready (up to `commandTimeoutMs`) and is never put in
   * its offline queue: a record that was not sent rejects with `executed: false`.
   *
   * @throws RedisStoreError when Redis cannot take it (down, not ready, slow, or refusing the command).
   */
  async record(intent: JournalIntent): Promise<void> {
    const id = pendingId(intent.scope, intent.key);
    let mine: RedisCommands | undefined;
    try {
      await this.#guard.run(
        (redis) => redis.script(RECORD_INTENT, this.#keys(intent.scope), [intent.key, JSON.stringify(intent), intent.createdAt]),
        refuse,
        { started: (commands) => this.#waiting.set(id, [...(this.#waiting.get(id) ?? []), (mine = commands)]) },
      );
    } finally {
      const rest = (this.#waiting.get(id) ?? []).filter((c) => c !== mine);
      if (rest.length === 0) this.#waiting.delete(id);
      else this.#waiting.set(id, rest);
    }
  }

  /**
   * Removes the intent and its claim. Sent even while Redis is considered down: after a `record`
   * that timed out, this settle follows it on the same connection, so a record that lands late is
   * removed right after (its call was refused, and must never be resent). A `record` of the key
   * that this journal has not handed to the client yet (its connection is not ready) is stopped
   * instead, and never sent: nothing of it can land, and this settle resolves at once.
   *
   * @throws RedisStoreError when Redis does not confirm it.
   */
  async settle(scope: string, key: string): Promise<void> {
    const waiting = this.#waiting.get(pendingId(scope, key)) ?? [];
    const stopped = new RedisStoreError('unreachable', 'its call ended while the connection was not ready; nothing was sent', {
      command: 'EVALSHA',
      key: this.#keys(scope)[0],
      unsent: true,
    });
    // Every record of the key still waiting for the connection is stopped: none reaches Redis.
    if (waiting.length > 0 && waiting.map((c) => c.stop(stopped, true)).every(Boolean)) return;
    await this.#guard.run((redis) => redis.script(SETTLE_INTENT, this.#keys(scope), [key]), refuse, { evenIfDown: true });
  }

  /**
   * Claims open intents of the scope atomically (see the class comment). A record that does not
   * read back as an intent (corrupt, or a newer version's) is claimed like the others and
   * returned as unreadable, with its key: left in Redis for a person, never hiding the rest.
   *
   * @throws RedisStoreError when Redis cannot answer or refuses the command.
   */
  async claim(request: JournalClaimRequest): Promise<readonly ClaimedRecord[]> {
    const reply = await this.#guard.run(
      (redis) =>
        redis.script(CLAIM_INTENTS, this.#keys(request.scope), [
          Math.floor(request.createdBefore),
          Math.max(1, Math.ceil(request.leaseMs)),
          request.limit,
        ]),
      refuse,
    );
    const pairs = Array.isArray(reply) ? (reply as unknown[]) : [];
    const records: ClaimedRecord[] = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const key = String(pairs[i]);
      const intent = decodeIntent(pairs[i + 1]);
      if (typeof intent !== 'string' && intent.key === key && intent.scope === request.scope) records.push(intent);
      else {
        const problem = typeof intent === 'string' ? intent : 'its key or scope differs from where it is stored';
        log(this.#logger, 'warn', 'merchant-stablecoin/redis: an unreadable journal record was claimed and set aside', {
          prefix: this.#guard.keys.prefix,
          idempotencyKey: key,
          problem,
        });
        records.push(Object.freeze({ unreadable: true, key, scope: request.scope, problem }));
      }
    }
    return records;
  }

  /**
   * Lists the scope's open intents recorded after `createdAfter` (the oldest, up to `limit`) and
   * counts them, claiming none: what `recover()` leaves for later.
   *
   * @throws RedisStoreError when Redis cannot answer or refuses the command.
   */
  async openAfter(request: JournalOpenAfterRequest): Promise<JournalOpenAfter> {
    const reply = await this.#guard.run(
      (redis) => redis.script(OPEN_AFTER, this.#keys(request.scope), [Math.floor(request.createdAfter), request.limit]),
      refuse,
    );
    const [total, ...records] = Array.isArray(reply) ? (reply as unknown[]) : [0];
    const intents = records.map((r) => decodeIntent(r)).filter((i): i is JournalIntent => typeof i !== 'string');
    return { total: Number(total), intents };
  }

  /**
   * Lists the scope's open intents recorded by `createdBefore` that are under an unexpired claim,
   * with the ms left of each claim on Redis' clock (the one that set it), claiming none: what
   * `recover()` leaves to another recoverer.
   *
   * @throws RedisStoreError when Redis cannot answer or refuses the command.
   */
  async leased(request: JournalLeasedRequest): Promise<JournalLeased> {
    const reply = await this.#guard.run(
      (redis) =>
        redis.script(LEASED_INTENTS, this.#keys(request.scope), [Math.floor(request.createdBefore), request.limit, ...request.exceptKeys]),
      refuse,
    );
    const [total, ...pairs] = Array.isArray(reply) ? (reply as unknown[]) : [0];
    const leases = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) leases.push({ key: String(pairs[i]), endsInMs: Number(pairs[i + 1]) });
    return { total: Number(total), leases };
  }

  /** The scope's three keys: one hash tag, one Cluster slot. */
  #keys(scope: string): string[] {
    // The SDK's scopes are hex digests; anything else (braces would move the hash tag) is digested.
    const tag = /^[\w.-]{1,64}$/.test(scope) ? scope : `sha256-${keyDigest(scope)}`;
    const ks = this.#guard.keys;
    return [ks.tagged('journal', tag, 'intents'), ks.tagged('journal', tag, 'open'), ks.tagged('journal', tag, 'claims')];
  }

  /** Inspection shows the prefix and health only. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisJournal { prefix: '${this.#guard.keys.prefix}', degraded: ${this.#guard.degraded} }`;
  }
}

/** Where a record of `(scope, key)` waits; a newline appears in neither. */
function pendingId(scope: string, key: string): string {
  return `${scope}\n${key}`;
}

/** The journal's fallback: none. A failure, outage or refusal, reaches the caller as it is. */
function refuse(failure: RedisStoreError): never {
  throw failure;
}

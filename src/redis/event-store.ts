import { randomUUID } from 'node:crypto';
import { positiveNumber } from '../core/errors/setting-checks.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import type { ClaimResult, EventStore } from '../webhooks/event-store.js';
import { MemoryEventStore } from '../webhooks/memory-event-store.js';
import { RedisGuard, type RedisStoreOptions } from './connection.js';
import type { RedisStoreError } from './failures.js';
import { keyDigest } from './keyspace.js';
import { CLAIM_EVENT, RELEASE_EVENT } from './scripts.js';

/**
 * What {@link RedisEventStore} does with a delivery when Redis cannot answer:
 * - `'answer-503'` (the default): `claim` throws, the receiver answers 503 and the service
 *   delivers the event again later (spec: a non-2xx answer triggers retries with backoff). No
 *   event is ever processed without the fleet-wide check.
 * - `'process-risking-duplicates'`: the event is claimed in `fallback` (this process's memory)
 *   and processed. This instance still never processes it twice, but a redelivery reaching
 *   another instance during the outage is processed there again.
 */
export type WhileRedisIsDown = 'answer-503' | 'process-risking-duplicates';

/** Settings of {@link RedisEventStore}. */
export interface RedisEventStoreOptions extends RedisStoreOptions {
  /**
   * How long a processed event id is remembered, in ms (default 72 hours). The spec does not
   * show the service's redelivery schedule: keep it days, not minutes.
   */
  readonly retentionMs?: number;
  /** What a delivery gets while Redis cannot answer (default `'answer-503'`); see {@link WhileRedisIsDown}. */
  readonly whileRedisIsDown?: WhileRedisIsDown;
  /**
   * With `whileRedisIsDown: 'process-risking-duplicates'` only: this process's record of the
   * events it claimed (default: a new {@link MemoryEventStore} with the same retention). `claim`
   * consults it before Redis, whether Redis is up or not, so that an event this instance
   * processed while Redis was down is not processed again here once Redis is back.
   */
  readonly fallback?: EventStore;
}

/**
 * An open claim of this process: its Redis marker, when Redis took it. (Opted into
 * `'process-risking-duplicates'`, the fallback holds every open claim too.)
 */
interface Placement {
  readonly marker: string | undefined;
}

// Claims this process holds and has not settled yet; bounded in case a caller never settles.
const MAX_OPEN_CLAIMS = 10_000;

/**
 * A webhook {@link EventStore} shared by a fleet of receivers through Redis, so that of the
 * instances a delivery (or its redeliveries) reaches, exactly one processes the event.
 *
 * - `claim` is one Lua script on `<prefix>:webhook-event:<event id>`: absent → set
 *   `claim:<random>` with the lease as TTL and answer `claimed`; `done` → `duplicate`; a live
 *   claim → `in_progress`.
 * - `complete` sets `done` with the retention as TTL; `release` deletes this instance's claim
 *   only (never `done`, never a claim another instance took after ours expired).
 * - When Redis cannot answer, `claim` throws a `RedisStoreError` and the receiver answers 503
 *   (the service redelivers), unless `whileRedisIsDown: 'process-risking-duplicates'` opts into
 *   per-process deduplication meanwhile. A refusal only Redis' configuration can fix (`NOPERM`,
 *   `OOM`, ...) is always thrown, and logged as what it is. See docs/fleet.md.
 *
 * What survives a Redis restart or failover depends on Redis' persistence and replication:
 * see "What Redis must provide" in docs/fleet.md.
 *
 * @example
 * const handler = createWebhookHandler({ verify, onEvent, store: new RedisEventStore({ redis }) });
 */
export class RedisEventStore implements EventStore {
  readonly #guard: RedisGuard;
  readonly #retentionMs: number;
  /** The per-process record, only when opted in. */
  readonly #fallback: EventStore | undefined;
  readonly #open = new Map<string, Placement>();

  /** @param options - The Redis client, key prefix, retention, and what to do while Redis is down. */
  constructor(options: RedisEventStoreOptions) {
    const mode = options?.whileRedisIsDown ?? 'answer-503';
    if (mode !== 'answer-503' && mode !== 'process-risking-duplicates')
      throw new InvalidArgumentError('whileRedisIsDown', "must be 'answer-503' or 'process-risking-duplicates'.");
    if (options?.fallback !== undefined && mode !== 'process-risking-duplicates')
      throw new InvalidArgumentError(
        'fallback',
        "is used only with whileRedisIsDown: 'process-risking-duplicates' (processing while Redis is down risks a second processing on another instance); by default the receiver answers 503 and the service delivers again.",
      );
    this.#guard = new RedisGuard(
      'the webhook event store',
      options,
      'the delivery is answered 503 and nothing is processed until Redis accepts the command.',
    );
    this.#retentionMs = Math.ceil(positiveNumber('retentionMs', options.retentionMs, 72 * 60 * 60 * 1000));
    this.#fallback =
      mode === 'process-risking-duplicates' ? (options.fallback ?? new MemoryEventStore({ retentionMs: this.#retentionMs })) : undefined;
  }

  /**
   * Atomically claims `eventId` for processing, across every instance.
   *
   * @param eventId - The `z-event-id`.
   * @param ttlMs - Lease of the in-progress claim, after which it expires.
   * @throws RedisStoreError when Redis cannot answer (unless opted into processing meanwhile) or refuses the command.
   */
  async claim(eventId: string, ttlMs: number): Promise<ClaimResult> {
    const fallback = this.#fallback;
    if (fallback === undefined) {
      const shared = await this.#claimShared(eventId, ttlMs, rethrow);
      if (shared.result === 'claimed') this.#remember(eventId, { marker: shared.marker });
      return shared.result;
    }
    // This process's own record first: what it processed while Redis was down stays processed.
    const local = await fallback.claim(eventId, ttlMs);
    if (local !== 'claimed') return local;
    let shared: { result: ClaimResult | undefined; marker: string | undefined };
    try {
      shared = await this.#claimShared(eventId, ttlMs, (failure) => {
        // An outage: processed on this process's claim alone. A configuration mistake is not an outage.
        if (failure.kind === 'misconfigured') throw failure;
        return undefined;
      });
    } catch (err) {
      await fallback.release(eventId);
      throw err;
    }
    if (shared.result === undefined || shared.result === 'claimed') {
      this.#remember(eventId, { marker: shared.marker });
      return 'claimed';
    }
    await fallback.release(eventId);
    return shared.result;
  }

  /** Records `eventId` as processed (after `onEvent` succeeded), so redeliveries are skipped. */
  async complete(eventId: string): Promise<void> {
    this.#open.delete(eventId);
    // Recorded here first: this process never processes it again, whatever Redis keeps.
    if (this.#fallback !== undefined) await this.#fallback.complete(eventId);
    await this.#guard.run(
      (redis) => redis.call('SET', [this.#key(eventId)], ['done', 'PX', this.#retentionMs]),
      (failure) => {
        // The work is done either way. Without a local record the handler logs that a
        // redelivery may run it again (once the claim's lease has expired).
        if (this.#fallback === undefined) throw failure;
      },
    );
  }

  /** Drops the in-progress claim of `eventId` (after `onEvent` failed), so a redelivery is processed. */
  async release(eventId: string): Promise<void> {
    const placement = this.#open.get(eventId);
    this.#open.delete(eventId);
    if (placement === undefined) return;
    await this.#fallback?.release(eventId);
    const marker = placement.marker;
    if (marker === undefined) return;
    // If Redis is down the claim frees when its lease expires.
    await this.#guard.run(
      (redis) => redis.script(RELEASE_EVENT, [this.#key(eventId)], [marker]),
      () => undefined,
    );
  }

  /** The Redis claim: its result, or what `onFailure` returns when Redis cannot answer. */
  async #claimShared<F extends undefined>(
    eventId: string,
    ttlMs: number,
    onFailure: (failure: RedisStoreError) => F,
  ): Promise<{ result: ClaimResult | F; marker: string | undefined }> {
    const marker = `claim:${randomUUID()}`;
    const lease = Math.max(1, Math.ceil(ttlMs));
    const result = await this.#guard.run<ClaimResult | F>(
      async (redis) => toClaimResult(await redis.script(CLAIM_EVENT, [this.#key(eventId)], [marker, lease])),
      onFailure,
    );
    return { result, marker: result === 'claimed' ? marker : undefined };
  }

  #key(eventId: string): string {
    // Event ids are public identifiers; an unusually long or odd one is digested.
    const id = /^[\w.:-]{1,128}$/.test(eventId) ? eventId : `sha256:${keyDigest(eventId)}`;
    return this.#guard.keys.key('webhook-event', id);
  }

  #remember(eventId: string, placement: Placement): void {
    this.#open.set(eventId, placement);
    if (this.#open.size > MAX_OPEN_CLAIMS) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisEventStore { prefix: '${this.#guard.keys.prefix}', whileRedisIsDown: '${this.#fallback === undefined ? 'answer-503' : 'process-risking-duplicates'}', degraded: ${this.#guard.degraded} }`;
  }
}

function rethrow(failure: RedisStoreError): never {
  throw failure;
}

function toClaimResult(reply: unknown): ClaimResult {
  const text = Buffer.isBuffer(reply) ? reply.toString() : reply;
  if (text === 'claimed' || text === 'duplicate' || text === 'in_progress') return text;
  throw new Error(`unexpected claim reply from Redis: ${typeof reply}`);
}

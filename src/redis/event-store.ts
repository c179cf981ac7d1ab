import { randomUUID } from 'node:crypto';
import type { ClaimResult, EventStore } from '../webhooks/event-store.js';
import { MemoryEventStore } from '../webhooks/memory-event-store.js';
import { positiveNumber } from '../core/checks.js';
import { checkPrefix, keyDigest, RedisGuard, type RedisStoreOptions } from './connection.js';
import { CLAIM_EVENT, RELEASE_EVENT } from './scripts.js';

/** Settings of {@link RedisEventStore}. */
export interface RedisEventStoreOptions extends RedisStoreOptions {
  /** Key prefix (default `merchant-stablecoin`); keys are `<prefix>:webhook-event:<event id>`. */
  readonly prefix?: string;
  /**
   * How long a processed event id is remembered, in ms (default 72 hours). The spec does not
   * show the service's redelivery schedule: keep it days, not minutes.
   */
  readonly retentionMs?: number;
  /** Store used while Redis is unreachable (default: a new {@link MemoryEventStore}). */
  readonly fallback?: EventStore;
}

type Placement = { readonly where: 'redis'; readonly marker: string } | { readonly where: 'fallback' };

// Claims this process holds and has not settled yet; bounded in case a caller never settles.
const MAX_OPEN_CLAIMS = 10_000;

/**
 * A webhook {@link EventStore} shared by a fleet of receivers through Redis, so that of the
 * instances a delivery (or its redeliveries) reaches, exactly one processes the event.
 *
 * - `claim` is one Lua script: absent → set `claim:<random>` with the lease as TTL and answer
 *   `claimed`; `done` → `duplicate`; a live claim → `in_progress`.
 * - `complete` sets `done` with the retention as TTL; `release` deletes this instance's claim
 *   only (never `done`, never a claim another instance took after ours expired).
 * - If Redis fails or is slow, claims go to the in-memory fallback and one line is logged: the
 *   receivers keep answering, but deduplication is per process until Redis is back (a
 *   redelivery reaching another instance may then be processed again). See docs/fleet.md.
 *
 * @example
 * const handler = createWebhookHandler({ verify, onEvent, store: new RedisEventStore({ redis }) });
 */
export class RedisEventStore implements EventStore {
  readonly #guard: RedisGuard;
  readonly #prefix: string;
  readonly #retentionMs: number;
  readonly #fallback: EventStore;
  readonly #open = new Map<string, Placement>();

  /** @param options - The Redis client, key prefix, retention and fallback. */
  constructor(options: RedisEventStoreOptions) {
    this.#guard = new RedisGuard('the webhook event store', options);
    this.#prefix = checkPrefix(options.prefix, 'merchant-stablecoin');
    this.#retentionMs = Math.ceil(positiveNumber('retentionMs', options.retentionMs, 72 * 60 * 60 * 1000));
    this.#fallback = options.fallback ?? new MemoryEventStore({ retentionMs: this.#retentionMs });
  }

  /**
   * Atomically claims `eventId` for processing, across every instance.
   *
   * @param eventId - The `z-event-id`.
   * @param ttlMs - Lease of the in-progress claim, after which it expires.
   */
  async claim(eventId: string, ttlMs: number): Promise<ClaimResult> {
    const marker = `claim:${randomUUID()}`;
    const lease = Math.max(1, Math.ceil(ttlMs));
    const result = await this.#guard.run(
      async (redis) => toClaimResult(await this.#guard.script(redis, CLAIM_EVENT, [this.#key(eventId)], [marker, lease])),
      () => undefined,
    );
    if (result === undefined) {
      const local = await this.#fallback.claim(eventId, ttlMs);
      if (local === 'claimed') this.#remember(eventId, { where: 'fallback' });
      return local;
    }
    if (result === 'claimed') this.#remember(eventId, { where: 'redis', marker });
    return result;
  }

  /** Records `eventId` as processed (after `onEvent` succeeded), so redeliveries are skipped. */
  async complete(eventId: string): Promise<void> {
    const placement = this.#open.get(eventId);
    this.#open.delete(eventId);
    if (placement?.where === 'fallback') {
      await this.#fallback.complete(eventId);
      return;
    }
    let stored = true;
    await this.#guard.run(
      (redis) => redis.call('SET', this.#key(eventId), 'done', 'PX', this.#retentionMs),
      () => {
        stored = false;
      },
    );
    // At least this process will not process it again.
    if (!stored) await this.#fallback.complete(eventId);
  }

  /** Drops the in-progress claim of `eventId` (after `onEvent` failed), so a redelivery is processed. */
  async release(eventId: string): Promise<void> {
    const placement = this.#open.get(eventId);
    this.#open.delete(eventId);
    if (placement?.where === 'fallback') {
      await this.#fallback.release(eventId);
      return;
    }
    if (placement === undefined) return;
    // If Redis is down the claim frees when its lease expires.
    await this.#guard.run(
      (redis) => this.#guard.script(redis, RELEASE_EVENT, [this.#key(eventId)], [placement.marker]),
      () => undefined,
    );
  }

  #key(eventId: string): string {
    // Event ids are public identifiers; an unusually long or odd one is digested.
    const id = /^[\w.:-]{1,128}$/.test(eventId) ? eventId : `sha256:${keyDigest(eventId)}`;
    return `${this.#prefix}:webhook-event:${id}`;
  }

  #remember(eventId: string, placement: Placement): void {
    this.#open.set(eventId, placement);
    if (this.#open.size > MAX_OPEN_CLAIMS) {
      const oldest = this.#open.keys().next().value;
      if (oldest !== undefined) this.#open.delete(oldest);
    }
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisEventStore { prefix: '${this.#prefix}', degraded: ${this.#guard.degraded} }`;
  }
}

function toClaimResult(reply: unknown): ClaimResult {
  const text = Buffer.isBuffer(reply) ? reply.toString() : reply;
  if (text === 'claimed' || text === 'duplicate' || text === 'in_progress') return text;
  throw new Error(`unexpected claim reply from Redis: ${typeof reply}`);
}

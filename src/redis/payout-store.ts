import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '../core/errors/errors.js';
import { log } from '../core/telemetry/logger.js';
import { PAYOUT_STATES, type PayoutRecord, type PayoutState } from '../payouts/record.js';
import type { PayoutCreated, PayoutCursor, PayoutListQuery, PayoutPage, PayoutStore } from '../payouts/store.js';
import { RedisGuard, type RedisStoreOptions } from './connection.js';
import { RedisStoreError } from './failures.js';
import { lexRange, orderMember, positionOf } from './payout-order.js';
import { checkWritable, readRecord, UnreadablePayoutRecordError } from './payout-records.js';
import { CREATE_PAYOUT, LIST_PAYOUTS, PAYOUT_TIME, REPLACE_PAYOUT } from './payout-scripts.js';

/** Settings of {@link RedisPayoutStore}: those every fleet store shares (`redis`, `prefix`, `logger`, timings). */
export type RedisPayoutStoreOptions = RedisStoreOptions;

/** The one hash tag of every payout key of a prefix: one Cluster slot, so one script sees them all. */
const TAG = 'all';

/**
 * A {@link PayoutStore} in Redis, for the payout workflow (`merchant-stablecoin/payouts`) of a
 * fleet: every instance's workflow over the same payouts, each write a compare-and-set on the
 * record's version in one Lua script.
 *
 * - Keys (one hash tag after the prefix, so an ACL pattern `~<prefix>:*` grants them and a
 *   Cluster keeps them in one slot): `<prefix>:payouts:{all}:records` (hash, reference → the
 *   record as the JSON text the workflow wrote), `...:meta` (hash, reference → the id of the write
 *   that stored it and its place in the state sets) and `...:state:<state>` (one sorted set per
 *   state, every score 0, one member per record, ordered by `(createdAt, reference)`).
 * - `create` and `replace` are one script each (check, write the record, move it between state
 *   sets), so a record and its place in the lists never disagree and of racing replaces of one
 *   version exactly one stores. A replace whose reply was lost and that ioredis sends again after
 *   reconnecting answers `true` (the script sees its own write id), never `false` for its own write
 *   and never a second write.
 * - `list` reads only the sets of the states asked for: listing the open payouts costs nothing
 *   for the final ones piling up. The order is the contract's exactly, references compared by
 *   UTF-16 code units (see payout-order.ts: Redis alone would compare UTF-8 bytes).
 * - `now` is Redis `TIME` (ms) read by a script on the node that holds the payouts.
 * - **No in-memory fallback**, as for the journal: while Redis cannot answer (or answers slower
 *   than `commandTimeoutMs`, or its connection is not ready by then) and when it refuses the
 *   command (`NOPERM`, `OOM`, ...), every method rejects with a `RedisStoreError`; its `executed`
 *   is `false` when the command certainly did not run (nothing was written), `undefined` when a
 *   write may have landed (the workflow reads the record again).
 * - A stored record that does not read back (corrupt, edited by hand) is reported by reference
 *   ({@link UnreadablePayoutRecordError}) and left in Redis; `list` leaves it out with a `warn` line.
 * - As durable as the Redis under it: run it with `appendonly yes`, `appendfsync always` (a
 *   write acknowledged is on disk: the workflow pays only after the hand-out resolved) and
 *   `maxmemory-policy noeviction`. Keys have no TTL.
 *
 * Records hold member ids, amounts and addresses, no secret: protect Redis as payments data.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { RedisPayoutStore } from 'merchant-stablecoin/redis';
 * const store = new RedisPayoutStore({ redis: new Redis(url) });
 */
export class RedisPayoutStore implements PayoutStore {
  readonly #guard: RedisGuard;
  readonly #logger: RedisStoreOptions['logger'];
  readonly #records: string;
  readonly #meta: string;
  readonly #states: ReadonlyMap<PayoutState, string>;

  /** @param options - The Redis client, key prefix and timings. */
  constructor(options: RedisPayoutStoreOptions) {
    this.#guard = new RedisGuard(
      'the payout store',
      options,
      "the payout workflow's store call fails and the payout stays where it is until Redis accepts the command.",
    );
    this.#logger = options.logger;
    const ks = this.#guard.keys;
    this.#records = ks.tagged('payouts', TAG, 'records');
    this.#meta = ks.tagged('payouts', TAG, 'meta');
    this.#states = new Map(PAYOUT_STATES.map((s) => [s, ks.tagged('payouts', TAG, `state:${s}`)]));
  }

  /**
   * Stores the record unless its reference exists (one script).
   *
   * @throws RedisStoreError when Redis cannot take it; UnreadablePayoutRecordError when the stored record of the reference does not read back.
   */
  async create(record: PayoutRecord): Promise<PayoutCreated> {
    checkWritable(record);
    const json = JSON.stringify(record);
    const keys = [this.#records, this.#meta, this.#stateKey(record.state)];
    const args = [record.reference, json, orderMember(record.createdAt, record.reference), writeId()];
    const reply = await this.#guard.run((redis) => redis.script(CREATE_PAYOUT, keys, args), refuse);
    const [created, stored] = Array.isArray(reply) ? (reply as unknown[]) : [];
    if (Number(created) === 1) return { created: true, record: JSON.parse(json) as PayoutRecord };
    return { created: false, record: readRecord(stored, record.reference, this.#records) };
  }

  /**
   * The stored record of `reference`, or undefined.
   *
   * @throws RedisStoreError when Redis cannot answer; UnreadablePayoutRecordError when the stored record does not read back.
   */
  async get(reference: string): Promise<PayoutRecord | undefined> {
    if (typeof reference !== 'string') throw new InvalidArgumentError('reference', 'must be a string.');
    const stored = await this.#guard.run((redis) => redis.call('HGET', [this.#records], [reference]), refuse);
    return stored === null || stored === undefined ? undefined : readRecord(stored, reference, this.#records);
  }

  /**
   * Replaces the record when the stored version is `next.version - 1` (one script: compare, write,
   * move between state sets).
   *
   * @throws RedisStoreError when Redis cannot answer (`executed` undefined: it may have landed);
   * UnreadablePayoutRecordError when the stored record does not read back (nothing stored).
   */
  async replace(next: PayoutRecord): Promise<boolean> {
    checkWritable(next);
    const states = [...this.#states.values()];
    const keys = [this.#records, this.#meta, ...states];
    const args = [
      next.reference,
      JSON.stringify(next),
      next.version - 1,
      orderMember(next.createdAt, next.reference),
      states.indexOf(this.#stateKey(next.state)) + 1,
      writeId(),
      next.version,
    ];
    const reply = Number(await this.#guard.run((redis) => redis.script(REPLACE_PAYOUT, keys, args), refuse));
    if (reply === -1)
      throw new UnreadablePayoutRecordError(next.reference, 'it does not read as JSON with a numeric version', this.#records);
    return reply === 1;
  }

  /**
   * A page of records, oldest first by `(createdAt, reference)` (one script over the sets of the
   * states asked for). A record that does not read back is left out with a `warn` line naming its
   * reference; `next` then may point past the last record returned.
   *
   * @throws RedisStoreError when Redis cannot answer.
   */
  async list(query: PayoutListQuery): Promise<PayoutPage> {
    checkQuery(query);
    const limit = Math.max(1, Math.floor(query.limit));
    const wanted = query.states;
    const keys = PAYOUT_STATES.filter((s) => wanted === undefined || wanted.includes(s)).map((s) => this.#stateKey(s));
    if (keys.length === 0) return { records: [], next: undefined };
    const { min, max } = lexRange(query);
    const reply = await this.#guard.run(
      (redis) => redis.script(LIST_PAYOUTS, [this.#records, this.#meta, ...keys], [min, max, limit]),
      refuse,
    );
    const [more, ...pairs] = Array.isArray(reply) ? (reply as unknown[]) : [0];
    const records: PayoutRecord[] = [];
    let last: PayoutCursor | undefined;
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const position = positionOf(String(pairs[i]));
      last = position ?? last;
      const record = this.#listed(position?.reference, pairs[i + 1]);
      if (record !== undefined) records.push(record);
    }
    return { records, next: Number(more) === 1 ? last : undefined };
  }

  /**
   * Redis' clock (`TIME`) in whole milliseconds.
   *
   * @throws RedisStoreError when Redis cannot answer.
   */
  async now(): Promise<number> {
    const reply = await this.#guard.run((redis) => redis.script(PAYOUT_TIME, [this.#records], []), refuse);
    const [seconds, micros] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const ms = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    if (!Number.isFinite(ms))
      throw new RedisStoreError('misconfigured', 'TIME answered something that is not a time', { command: 'EVALSHA', key: this.#records });
    return ms;
  }

  /** A listed record, or undefined (logged) when it does not read back. */
  #listed(reference: string | undefined, stored: unknown): PayoutRecord | undefined {
    try {
      if (reference === undefined) throw new UnreadablePayoutRecordError('', 'its index entry is not one of this store', this.#records);
      if (stored === null || stored === undefined)
        throw new UnreadablePayoutRecordError(reference, 'its index entry has no record', this.#records);
      return readRecord(stored, reference, this.#records);
    } catch (err) {
      const problem = err instanceof UnreadablePayoutRecordError ? err.problem : 'unexpected';
      log(
        this.#logger,
        'warn',
        'merchant-stablecoin/redis: an unreadable payout record was left out of a list; it stays in Redis for a person',
        {
          prefix: this.#guard.keys.prefix,
          reference,
          problem,
        },
      );
      return undefined;
    }
  }

  #stateKey(state: PayoutState): string {
    return this.#states.get(state)!;
  }

  /** Inspection shows the prefix and health only. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `RedisPayoutStore { prefix: '${this.#guard.keys.prefix}', degraded: ${this.#guard.degraded} }`;
  }
}

/** The filters and cursor of a list query, checked before anything is sent. */
function checkQuery(query: PayoutListQuery): void {
  if (query === null || typeof query !== 'object') throw new InvalidArgumentError('query', 'must be a list query.');
  if (typeof query.limit !== 'number' || !Number.isFinite(query.limit)) throw new InvalidArgumentError('limit', 'must be a finite number.');
  for (const name of ['createdFrom', 'createdBefore'] as const) {
    const value = query[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value)))
      throw new InvalidArgumentError(name, 'must be a finite number (Unix ms).');
  }
  const after = query.after;
  if (
    after !== undefined &&
    (typeof after?.createdAt !== 'number' || !Number.isFinite(after.createdAt) || typeof after.reference !== 'string')
  )
    throw new InvalidArgumentError('after', 'must be the `next` of a previous page.');
}

/** A random id per write call: a resent script recognises its own write by it. */
function writeId(): string {
  return randomBytes(16).toString('hex');
}

/** The store's fallback: none. A failure reaches the caller as it is. */
function refuse(failure: RedisStoreError): never {
  throw failure;
}

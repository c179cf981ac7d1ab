/**
 * A command is handed to the merchant's client only once the client is ready (issue 39, item 5),
 * without a server: a scripted fake with ioredis' `status` and its `ready` / `end` events stands
 * for the client, and records what it was given. The real-process proof is
 * test/fleet/not-ready.test.ts.
 */
import { EventEmitter } from 'node:events';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RedisEventStore, RedisJournal, RedisStoreError, RedisTokenStore, type RedisClientLike } from '../../src/redis/index.js';
import type { JournalIntent } from '../../src/index.js';

afterEach(() => void vi.restoreAllMocks());

/** A client whose status the test moves; every command answers `1` (an EVALSHA of the claim: `claimed`). */
class FakeClient extends EventEmitter implements RedisClientLike {
  status: string;
  readonly calls: string[] = [];
  connects = 0;
  constructor(status: string) {
    super();
    this.status = status;
  }
  call(command: string, ...args: Array<string | number>): Promise<unknown> {
    this.calls.push(`${command} ${this.status}`);
    const claim = args.some((a) => String(a).includes('webhook-event'));
    return Promise.resolve(claim ? 'claimed' : 1);
  }
  connect(): Promise<void> {
    this.connects++;
    this.status = 'connecting';
    return Promise.resolve();
  }
  /** ioredis sets the status, then emits it on the next tick. */
  become(status: string): void {
    this.status = status;
    process.nextTick(() => this.emit(status));
  }
}

const intent = (key: string): JournalIntent => ({
  key,
  scope: 'scope1',
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{}',
  withheld: false,
  member: null,
  createdAt: 1,
});

const settled = <T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('a command waits for the client to be ready, and is never handed over before', () => {
  it('a record made while connecting is sent once the client is ready, and not before', async () => {
    const redis = new FakeClient('connecting');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const recorded = journal.record(intent('k1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.calls).toEqual([]);
    redis.become('ready');
    await recorded;
    expect(redis.calls).toEqual(['EVALSHA ready']);
  });

  it('twenty waiting commands share one pair of listeners, removed once the client is ready', async () => {
    const redis = new FakeClient('reconnecting');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const records = Array.from({ length: 20 }, (_, i) => journal.record(intent(`k${i}`)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(['ready', 'end', 'close'].map((e) => redis.listenerCount(e))).toEqual([1, 1, 1]);
    redis.become('ready');
    await Promise.all(records);
    expect(redis.calls).toHaveLength(20);
    expect(['ready', 'end', 'close'].map((e) => redis.listenerCount(e))).toEqual([0, 0, 0]);
  });

  it('a client created with lazyConnect (status wait) is asked to connect, as ioredis does on a first command', async () => {
    const redis = new FakeClient('wait');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const recorded = journal.record(intent('k1'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.connects).toBe(1);
    expect(redis.calls).toEqual([]);
    redis.become('ready');
    await recorded;
    expect(redis.calls).toEqual(['EVALSHA ready']);
  });

  it('a client that becomes ready and is closed again before the command goes waits on, then refuses it unsent when it ends', async () => {
    const redis = new FakeClient('connecting');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const recorded = settled(journal.record(intent('k1')));
    await new Promise((resolve) => setImmediate(resolve));
    redis.emit('ready'); // a stale event: the status says it is not ready
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.calls).toEqual([]);
    redis.become('end');
    const { error } = await recorded;
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toMatchObject({ kind: 'unreachable', executed: false, command: 'EVALSHA' });
    expect((error as Error).message).toContain('the client has closed its connection (status end); nothing was sent');
    expect(redis.calls).toEqual([]);
  });

  it('a connection attempt that closes before it is ready refuses the waiting command unsent (no wait for the bound)', async () => {
    const redis = new FakeClient('connecting');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const recorded = settled(journal.record(intent('k1')));
    await new Promise((resolve) => setImmediate(resolve));
    redis.become('close');
    const { error } = await recorded;
    expect(error).toMatchObject({ kind: 'unreachable', executed: false, command: 'EVALSHA' });
    expect((error as Error).message).toBe(
      'Redis unreachable (EVALSHA on merchant-stablecoin:journal:{scope1}:intents): the connection closed before it was ready (status close); nothing was sent.',
    );
    redis.become('ready');
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.calls).toEqual([]);
    expect([redis.listenerCount('ready'), redis.listenerCount('close')]).toEqual([0, 0]);
  });

  it('a closed client (status end): refused at once, unsent, nothing handed over', async () => {
    const redis = new FakeClient('end');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const { error } = await settled(journal.record(intent('k1')));
    expect(error).toMatchObject({ name: 'RedisStoreError', kind: 'unreachable', executed: false, command: 'EVALSHA' });
    expect((error as RedisStoreError).key).toBe('merchant-stablecoin:journal:{scope1}:intents');
    expect(redis.calls).toEqual([]);
  });

  it('never ready within commandTimeoutMs: the record and the settle are refused unsent, and never sent afterwards', async () => {
    const redis = new FakeClient('reconnecting');
    const warnings: string[] = [];
    const journal = new RedisJournal({ redis, logger: { warn: (m: string) => warnings.push(m) }, commandTimeoutMs: 20, retryAfterMs: 1 });
    const record = await settled(journal.record(intent('k1')));
    // An outage, logged and marked as one (unlike a stop by the store's caller).
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^merchant-stablecoin\/redis: Redis unreachable \(EVALSHA on /);
    expect(inspect(journal)).toContain('degraded: true');
    expect(record.error).toMatchObject({ kind: 'unreachable', executed: false, command: 'EVALSHA' });
    expect((record.error as Error).message).toBe(
      'Redis unreachable (EVALSHA on merchant-stablecoin:journal:{scope1}:intents): the connection was not ready within 20 ms (status reconnecting); nothing was sent.',
    );
    const settle = await settled(journal.settle('scope1', 'k1'));
    expect(settle.error).toMatchObject({ kind: 'unreachable', executed: false, command: 'EVALSHA' });
    redis.become('ready');
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.calls).toEqual([]);
  });

  it('a settle stops a record of its key still waiting: neither is sent, the settle resolves, the record rejects unsent', async () => {
    const redis = new FakeClient('connecting');
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    const waiting = settled(journal.record(intent('k1')));
    const other = journal.record(intent('k2'));
    await new Promise((resolve) => setImmediate(resolve));
    await journal.settle('scope1', 'k1');
    const { error } = await waiting;
    expect(error).toMatchObject({ kind: 'unreachable', executed: false });
    expect((error as Error).message).toContain('its call ended while the connection was not ready; nothing was sent');
    redis.become('ready');
    await other;
    // Only the other key's record goes out; a settle of a key already sent goes to Redis.
    expect(redis.calls).toEqual(['EVALSHA ready']);
    await journal.settle('scope1', 'k2');
    expect(redis.calls).toEqual(['EVALSHA ready', 'EVALSHA ready']);
    // The stop was the caller's, not news about Redis: the store was never marked down.
    expect(inspect(journal)).toContain('degraded: false');
  });

  it('the event store: a claim on a client that is not ready is refused unsent (503), and never sent afterwards', async () => {
    const redis = new FakeClient('reconnecting');
    const store = new RedisEventStore({ redis, logger: {}, commandTimeoutMs: 20, retryAfterMs: 1 });
    const { error } = await settled(store.claim('evt_1', 60_000));
    expect(error).toMatchObject({ kind: 'unreachable', executed: false, command: 'EVALSHA' });
    redis.become('ready');
    // Past retryAfterMs (1 ms) on the monotonic clock the store reads, so that the next claim asks Redis again.
    const now = performance.now();
    vi.spyOn(performance, 'now').mockImplementation(() => now + 1_000);
    expect(redis.calls).toEqual([]);
    expect(await store.claim('evt_1', 60_000)).toBe('claimed');
  });

  it('the token store answers from memory instead of queueing its command', async () => {
    const redis = new FakeClient('reconnecting');
    const store = new RedisTokenStore({ redis, logger: {}, commandTimeoutMs: 20 });
    expect(await store.get('client-key')).toBeUndefined();
    redis.become('ready');
    await new Promise((resolve) => setImmediate(resolve));
    expect(redis.calls).toEqual([]);
  });

  it('a client without a status (anything with call) is taken at its word', async () => {
    const calls: string[] = [];
    const redis: RedisClientLike = { call: (command) => (calls.push(command), Promise.resolve(1)) };
    await new RedisJournal({ redis, logger: {} }).record(intent('k1'));
    expect(calls).toEqual(['EVALSHA']);
  });
});

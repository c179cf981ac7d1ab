/**
 * `RedisEventStore` without a server, at the edges: the commands it sends (retention, release of
 * its own claim only), what a webhook receiver gets for each reply (with and without the opt-in
 * `whileRedisIsDown: 'process-risking-duplicates'`), its bound on the claims it remembers, and the
 * log lines that name it. A scripted fake stands for the client and records every command. The
 * real-server behaviour is in test/fleet/stores.test.ts and test/fleet/redis-faults.test.ts.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import type { LogFields } from '../../src/index.js';
import { RedisEventStore, RedisStoreError, type RedisClientLike } from '../../src/redis/index.js';
import { MemoryEventStore } from '../../src/webhooks/index.js';

type Answer = (args: Array<string | number>) => unknown;

/** A client answering from `answers` (by command); `down` makes every command fail as a lost connection. */
function scripted(answers: Record<string, Answer> = {}): RedisClientLike & { calls: Array<Array<string | number>>; down: boolean } {
  const client = {
    calls: [] as Array<Array<string | number>>,
    down: false,
    call(command: string, ...args: Array<string | number>): Promise<unknown> {
      client.calls.push([command, ...args]);
      if (client.down) return Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'));
      try {
        return Promise.resolve((answers[command] ?? (() => 'OK'))(args));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
  return client;
}

const claims = (client: { calls: Array<Array<string | number>> }): number => client.calls.filter((c) => c[0] === 'EVALSHA').length;
/** Moves the monotonic clock the stores read `ms` ahead (restored after each test). */
const stepClock = (ms: number): void => {
  const now = performance.now();
  vi.spyOn(performance, 'now').mockImplementation(() => now + ms);
};
afterEach(() => void vi.restoreAllMocks());

describe('RedisEventStore at the edges (scripted client)', () => {
  it('construction: a missing options object is named as the missing client; each refusal says why', () => {
    expect(() => new RedisEventStore(undefined as never)).toThrow(InvalidArgumentError);
    expect(() => new RedisEventStore(undefined as never)).toThrow(/^redis: must be a connected ioredis client/);
    const redis = scripted();
    expect(() => new RedisEventStore({ redis, whileRedisIsDown: 'maybe' as never })).toThrow(
      "whileRedisIsDown: must be 'answer-503' or 'process-risking-duplicates'.",
    );
    expect(() => new RedisEventStore({ redis, fallback: new MemoryEventStore() })).toThrow(
      /^fallback: is used only with whileRedisIsDown: 'process-risking-duplicates'/,
    );
    // With the opt-in, a fallback of one's own is taken.
    expect(
      () => new RedisEventStore({ redis, whileRedisIsDown: 'process-risking-duplicates', fallback: new MemoryEventStore() }),
    ).not.toThrow();
  });

  it('complete keeps the processed mark 72 hours by default, or the retention given', async () => {
    const redis = scripted();
    await new RedisEventStore({ redis, logger: {} }).complete('evt_1');
    await new RedisEventStore({ redis, logger: {}, retentionMs: 1500.2 }).complete('evt_2');
    expect(redis.calls).toEqual([
      ['SET', 'merchant-stablecoin:webhook-event:evt_1', 'done', 'PX', 259_200_000],
      ['SET', 'merchant-stablecoin:webhook-event:evt_2', 'done', 'PX', 1501],
    ]);
  });

  it('names itself and what a delivery gets in the log lines of a refusal and of an outage', async () => {
    const lines: Array<[string, string]> = [];
    const logger = { warn: (m: string) => lines.push(['warn', m]), error: (m: string, _f?: LogFields) => lines.push(['error', m]) };
    const refusing = scripted({
      EVALSHA: () => {
        throw new Error('NOPERM this user has no permissions to access one of the keys used as arguments');
      },
    });
    await expect(new RedisEventStore({ redis: refusing, logger }).claim('evt_1', 1000)).rejects.toBeInstanceOf(RedisStoreError);
    expect(lines).toHaveLength(1);
    expect(lines[0]![1]).toContain(
      'Seen by the webhook event store; the delivery is answered 503 and nothing is processed until Redis accepts the command.',
    );
    const down = scripted();
    down.down = true;
    await expect(new RedisEventStore({ redis: down, logger }).claim('evt_1', 1000)).rejects.toMatchObject({ kind: 'unreachable' });
    expect(lines[1]![0]).toBe('warn');
    expect(lines[1]![1]).toContain('Seen by the webhook event store.');
  });

  it('a claim reply Redis should never give is refused as a configuration problem, naming its type only', async () => {
    const redis = scripted({ EVALSHA: () => 'weird' });
    const err = (await new RedisEventStore({ redis, logger: {} }).claim('evt_1', 1000).catch((e: unknown) => e)) as RedisStoreError;
    expect(err).toMatchObject({ kind: 'misconfigured' });
    expect(err.message).toContain('unexpected reply (unexpected claim reply from Redis: string)');
  });

  describe("opted into 'process-risking-duplicates'", () => {
    const optIn = (redis: RedisClientLike, more: object = {}) =>
      new RedisEventStore({ redis, logger: {}, whileRedisIsDown: 'process-risking-duplicates', retryAfterMs: 1, ...more });

    it('Redis says duplicate or in progress: that answer, and the local claim is given back', async () => {
      let reply = 'duplicate';
      const redis = scripted({ EVALSHA: () => reply });
      const store = optIn(redis);
      expect(await store.claim('evt_1', 60_000)).toBe('duplicate');
      reply = 'in_progress';
      expect(await store.claim('evt_1', 60_000)).toBe('in_progress');
      // Not held locally: once Redis has it free, this instance claims it.
      reply = 'claimed';
      expect(await store.claim('evt_1', 60_000)).toBe('claimed');
    });

    it('a claim Redis took is released in Redis with its own marker; one taken while Redis was down is released locally, and nothing goes to Redis', async () => {
      const redis = scripted({ EVALSHA: () => 'claimed' });
      const store = optIn(redis);
      expect(await store.claim('evt_1', 60_000)).toBe('claimed');
      const marker = redis.calls[0]![4];
      expect(String(marker)).toMatch(/^claim:[0-9a-f-]{36}$/);
      await store.release('evt_1');
      expect(redis.calls).toHaveLength(2);
      expect(redis.calls[1]).toEqual(['EVALSHA', expect.any(String), 1, 'merchant-stablecoin:webhook-event:evt_1', marker]);

      redis.down = true;
      expect(await store.claim('evt_2', 60_000)).toBe('claimed');
      redis.down = false;
      stepClock(1_000); // past retryAfterMs (1 ms): Redis is asked again
      const sent = redis.calls.length;
      await store.release('evt_2');
      expect(redis.calls.length).toBe(sent);
      // The local claim was given back: the redelivery is claimed (in Redis, now up).
      expect(await store.claim('evt_2', 60_000)).toBe('claimed');
    });

    it('says so when inspected', () => {
      expect(inspect(optIn(scripted(), { prefix: 'app' }))).toBe(
        "RedisEventStore { prefix: 'app', whileRedisIsDown: 'process-risking-duplicates', degraded: false }",
      );
    });

    it('the local record keeps the retention given', async () => {
      const redis = scripted();
      redis.down = true;
      const store = optIn(redis, { retentionMs: 1 });
      expect(await store.claim('evt_1', 60_000)).toBe('claimed');
      await store.complete('evt_1').catch(() => undefined);
      stepClock(1_000);
      // Past its 1 ms retention the local mark is gone; Redis is still down, so it is claimed again locally.
      expect(await store.claim('evt_1', 60_000)).toBe('claimed');
    });
  });

  it('remembers at most 10,000 open claims: the oldest is then forgotten (its claim frees at its lease); answers that claimed nothing take no room', async () => {
    let answer = 'claimed';
    const redis = scripted({ EVALSHA: (args) => (args.length === 5 ? answer : 1) });
    const store = new RedisEventStore({ redis, logger: {} });
    await store.claim('evt_mine', 60_000);
    answer = 'duplicate';
    for (let i = 0; i < 10_001; i++) await store.claim(`dup_${i}`, 60_000);
    let sent = claims(redis);
    await store.release('evt_mine'); // still remembered: released in Redis
    expect(claims(redis)).toBe(sent + 1);

    answer = 'claimed';
    for (let i = 0; i < 10_000; i++) await store.claim(`evt_${i}`, 60_000);
    sent = claims(redis);
    await store.release('evt_0'); // 10,000 held: none forgotten yet
    expect(claims(redis)).toBe(sent + 1);
    await store.claim('evt_10000', 60_000);
    await store.claim('evt_10001', 60_000); // 10,001 held: the oldest (evt_1) is forgotten
    sent = claims(redis);
    await store.release('evt_1');
    expect(claims(redis)).toBe(sent);
    await store.release('evt_2');
    expect(claims(redis)).toBe(sent + 1);
  });
});

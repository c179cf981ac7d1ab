/**
 * The Redis stores without a Redis server: option checks at construction, argument checks that
 * never reach Redis, the script fallback when a node does not know a script yet, and what the
 * stores answer when a command fails (the process's memory, until Redis answers again).
 *
 * A scripted fake stands for the client: it records every command and answers from a table.
 * The real-server behaviour is in test/fleet/stores.test.ts.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import { RedisEventStore, RedisRateLimiter, RedisStoreError, RedisTokenStore, type RedisClientLike } from '../../src/redis/index.js';
import { MemoryEventStore } from '../../src/webhooks/index.js';

type Answer = (args: Array<string | number>) => unknown;

/** A client whose commands answer from `answers` (by command name); anything else fails. */
function fakeRedis(answers: Record<string, Answer> = {}): RedisClientLike & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    call(command: string, ...args: Array<string | number>): Promise<unknown> {
      calls.push([command, ...args.map(String)]);
      const answer = answers[command];
      if (answer === undefined) return Promise.reject(new Error(`connection refused (${command})`));
      try {
        return Promise.resolve(answer(args));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}

const quiet = { logger: {} };

function refusedArgument(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return (err as InvalidArgumentError).argument;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('options are checked at construction', () => {
  it('refuses a missing client and out-of-range settings, naming each', () => {
    const redis = fakeRedis();
    expect(refusedArgument(() => new RedisTokenStore({ redis: undefined as unknown as RedisClientLike }))).toBe('redis');
    expect(refusedArgument(() => new RedisTokenStore({ redis, commandTimeoutMs: 0 }))).toBe('commandTimeoutMs');
    expect(refusedArgument(() => new RedisTokenStore({ redis, retryAfterMs: -1 }))).toBe('retryAfterMs');
    expect(refusedArgument(() => new RedisTokenStore({ redis, lockTtlMs: 0 }))).toBe('lockTtlMs');
    expect(refusedArgument(() => new RedisEventStore({ redis, retentionMs: Number.NaN }))).toBe('retentionMs');
    expect(refusedArgument(() => new RedisEventStore({ redis, prefix: 'has space' }))).toBe('prefix');
    expect(refusedArgument(() => new RedisRateLimiter({ redis, prefix: '{tag}' }))).toBe('prefix');
    expect(refusedArgument(() => new RedisTokenStore({ redis, prefix: 'app*' }))).toBe('prefix');
    expect(refusedArgument(() => new RedisTokenStore({ redis, prefix: '' }))).toBe('prefix');
    expect(refusedArgument(() => new RedisRateLimiter({ redis, account: '' }))).toBe('account');
    expect(refusedArgument(() => new RedisRateLimiter({ redis, windowMs: 0 }))).toBe('windowMs');
    expect(refusedArgument(() => new RedisRateLimiter({ redis, marginMs: -1 }))).toBe('marginMs');
    expect(refusedArgument(() => new RedisRateLimiter({ redis, quotas: { token: 5 } as never }))).toBe('quotas.token');
    expect(refusedArgument(() => new RedisRateLimiter({ redis, quotas: { orders: 0 } }))).toBe('quotas.orders');
    expect(redis.calls).toEqual([]);
  });
});

describe('RedisRateLimiter without reaching Redis', () => {
  it('refuses an unknown bucket, and an aborted wait rejects with its reason', async () => {
    const redis = fakeRedis();
    const limiter = new RedisRateLimiter({ redis, ...quiet });
    await expect(limiter.acquire('token' as never)).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: 'bucket' });
    const reason = new Error('caller gave up');
    await expect(limiter.acquire('orders', AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(redis.calls).toEqual([]);
  });

  it('ignores a pause of an unknown bucket or of no positive length', () => {
    const redis = fakeRedis();
    const limiter = new RedisRateLimiter({ redis, ...quiet });
    limiter.pause('token' as never, 1000);
    limiter.pause('orders', 0);
    limiter.pause('orders', -5);
    limiter.pause('orders', Number.NaN);
    expect(redis.calls).toEqual([]);
  });

  it('sets the shared pause by script, loading the script on a node that does not know it', async () => {
    let evalSeen: () => void = () => undefined;
    const evaluated = new Promise<void>((resolve) => (evalSeen = resolve));
    const redis = fakeRedis({
      EVALSHA: () => {
        throw new Error('NOSCRIPT No matching script. Please use EVAL.');
      },
      EVAL: () => {
        evalSeen();
        return 'OK';
      },
    });
    const limiter = new RedisRateLimiter({ redis, account: 'cli_1', ...quiet });
    limiter.pause('orders', 1500.2);
    await evaluated;
    expect(redis.calls.map((c) => c[0])).toEqual(['EVALSHA', 'EVAL']);
    const evalCall = redis.calls[1]!;
    const keyAt = evalCall.findIndex((a) => a.endsWith(':orders:pause'));
    expect(evalCall[keyAt]).toMatch(/^merchant-stablecoin:rate:\{[0-9a-f]{16}\}:orders:pause$/);
    // After the key: the pause rounded up to whole milliseconds, then the clock slot ('' = Redis' own TIME).
    expect(evalCall.slice(keyAt + 1)).toEqual(['1501', '']);
  });

  it('shows its keys and quotas when inspected, never the account', () => {
    const limiter = new RedisRateLimiter({ redis: fakeRedis(), account: 'cli_secretish', quotas: { orders: 7 }, ...quiet });
    const text = inspect(limiter);
    expect(text).toMatch(/^RedisRateLimiter \{ keys: 'merchant-stablecoin:rate:\{[0-9a-f]{16}\}:<bucket>'/);
    expect(text).toContain('"orders":7');
    expect(text).not.toContain('cli_secretish');
  });
});

describe('RedisEventStore when commands fail', () => {
  it('by default, throws while Redis is unreachable (the receiver answers 503) and claims nothing anywhere', async () => {
    const redis = fakeRedis();
    const store = new RedisEventStore({ redis, ...quiet });
    await expect(store.claim('evt_1', 1000)).rejects.toMatchObject({
      name: 'RedisStoreError',
      kind: 'unreachable',
      command: 'EVALSHA',
      key: 'merchant-stablecoin:webhook-event:evt_1',
    });
    // Still down (skipped for retryAfterMs): the same answer, without asking Redis again.
    await expect(store.claim('evt_1', 1000)).rejects.toBeInstanceOf(RedisStoreError);
    expect(redis.calls).toHaveLength(1);
    expect(inspect(store)).toBe("RedisEventStore { prefix: 'merchant-stablecoin', whileRedisIsDown: 'answer-503', degraded: true }");
  });

  it("with whileRedisIsDown: 'process-risking-duplicates', claims and completes in memory while Redis is unreachable", async () => {
    const redis = fakeRedis();
    const store = new RedisEventStore({ redis, whileRedisIsDown: 'process-risking-duplicates', ...quiet });
    expect(await store.claim('evt_1', 1000)).toBe('claimed');
    expect(await store.claim('evt_1', 1000)).toBe('in_progress');
    await store.complete('evt_1');
    expect(await store.claim('evt_1', 1000)).toBe('duplicate');
  });

  it('a fallback without the opt-in, or an unknown mode, is refused at construction', () => {
    const redis = fakeRedis();
    expect(refusedArgument(() => new RedisEventStore({ redis, fallback: new MemoryEventStore() }))).toBe('fallback');
    expect(refusedArgument(() => new RedisEventStore({ redis, whileRedisIsDown: 'answer-503', fallback: new MemoryEventStore() }))).toBe(
      'fallback',
    );
    expect(refusedArgument(() => new RedisEventStore({ redis, whileRedisIsDown: 'fallback' as never }))).toBe('whileRedisIsDown');
    expect(redis.calls).toEqual([]);
  });

  it('reads a claim answered as bytes, releases it by script, and releases nothing it never claimed', async () => {
    const redis = fakeRedis({ EVALSHA: () => Buffer.from('claimed') });
    const store = new RedisEventStore({ redis, ...quiet });
    expect(await store.claim('evt_2', 1000)).toBe('claimed');
    await store.release('evt_2');
    await store.release('evt_never_claimed');
    expect(redis.calls.map((c) => c[0])).toEqual(['EVALSHA', 'EVALSHA']);
    expect(redis.calls[1]).toContain('merchant-stablecoin:webhook-event:evt_2');
  });

  it('digests an event id that is not a plain identifier in the key name', async () => {
    const redis = fakeRedis({ EVALSHA: () => 'claimed' });
    const store = new RedisEventStore({ redis, ...quiet });
    await store.claim('evt with spaces/and slashes', 1000);
    expect(redis.calls[0]!.find((a) => a.includes(':webhook-event:'))).toMatch(/:webhook-event:sha256:[0-9a-f]{32}$/);
  });

  it('a completion that cannot be stored throws by default (the handler logs it), and is kept in memory when opted in', async () => {
    const strict = new RedisEventStore({ redis: fakeRedis({ EVALSHA: () => 'claimed' }), ...quiet });
    expect(await strict.claim('evt_3', 1000)).toBe('claimed');
    // SET is not in the table: it fails.
    await expect(strict.complete('evt_3')).rejects.toMatchObject({ name: 'RedisStoreError', command: 'SET' });

    const lenient = new RedisEventStore({
      redis: fakeRedis({ EVALSHA: () => 'claimed' }),
      whileRedisIsDown: 'process-risking-duplicates',
      ...quiet,
    });
    expect(await lenient.claim('evt_3', 1000)).toBe('claimed');
    await lenient.complete('evt_3');
    expect(await lenient.claim('evt_3', 1000)).toBe('duplicate');
  });

  it('an unexpected claim reply is a configuration mistake: thrown, even when opted into processing while Redis is down', async () => {
    for (const whileRedisIsDown of ['answer-503', 'process-risking-duplicates'] as const) {
      const store = new RedisEventStore({ redis: fakeRedis({ EVALSHA: () => 42 }), whileRedisIsDown, ...quiet });
      await expect(store.claim('evt_4', 1000)).rejects.toMatchObject({ name: 'RedisStoreError', kind: 'misconfigured' });
      // Nothing was left claimed in memory either: the redelivery meets the same check.
      await expect(store.claim('evt_4', 1000)).rejects.toMatchObject({ kind: 'misconfigured' });
    }
  });
});

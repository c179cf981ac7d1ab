/**
 * Issue 24, points 4 and 5, without a Redis server: every key a store writes starts with its
 * prefix (an ACL grants `~<prefix>:*`) while the keys of one script share a hash tag; and a Redis
 * reply that only its configuration can fix is reported as what it is (code, command, key, never
 * an argument value), apart from an outage, without putting the connection down for the other
 * stores. The real-server versions are in test/fleet/acl.test.ts.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LogFields } from '../../src/core/telemetry/logger.js';
import { TokenManager } from '../../src/core/credentials/token-manager.js';
import { RedisEventStore, RedisRateLimiter, RedisStoreError, RedisTokenStore, type RedisClientLike } from '../../src/redis/index.js';
import { classify } from '../../src/redis/failures.js';
import * as scripts from '../../src/redis/scripts.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A Redis error reply as ioredis makes it (name ReplyError), carrying the command's arguments as ioredis does. */
function replyError(message: string, args: unknown[] = []): Error {
  const err = new Error(message);
  err.name = 'ReplyError';
  (err as Error & { command?: unknown }).command = { name: 'x', args };
  return err;
}

type Answer = (args: Array<string | number>) => unknown;

/** A client answering by command (or failing with `connection refused`), recording every call. */
function fakeRedis(answers: Record<string, Answer> = {}): RedisClientLike & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    call(command, ...args) {
      calls.push([command, ...args.map(String)]);
      const answer = answers[command];
      if (answer === undefined) return Promise.reject(new Error(`connect ECONNREFUSED 127.0.0.1:6379 (${command})`));
      try {
        return Promise.resolve(answer(args));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}

function capture(): {
  logger: Record<string, (m: string, f?: LogFields) => void>;
  lines: Array<{ level: string; message: string; fields?: LogFields }>;
} {
  const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
  const push = (level: string) => (message: string, fields?: LogFields) => lines.push({ level, message, ...(fields ? { fields } : {}) });
  return { logger: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

const token = (value: string) => ({ token: value, expiresAt: Math.floor(Date.now() / 1000) + 1800 });

describe('key names: one prefix, hash tags after it', () => {
  it('every key of the three stores starts with `<prefix>:`, and the keys one script touches share one hash tag', async () => {
    const replies = new Map<string, unknown>([
      [scripts.TRY_LOCK.sha, [1, '0']],
      [scripts.UNLOCK.sha, 1],
      [scripts.ACQUIRE.sha, 0],
      [scripts.PAUSE.sha, 1],
      [scripts.CLAIM_EVENT.sha, 'claimed'],
    ]);
    const redis = fakeRedis({ EVALSHA: (args) => replies.get(String(args[0])), GET: () => null, SET: () => 'OK', PING: () => 'PONG' });
    const opts = { redis, prefix: 'shop-7', logger: {} };
    const manager = new TokenManager({
      store: new RedisTokenStore(opts),
      key: 'merchant-stablecoin:token:0123456789abcdef0123456789abcdef',
      exchange: () => Promise.resolve(token('tok_1')),
      now: Date.now,
      renewBeforeSeconds: 60,
    });
    await manager.get();
    const limiter = new RedisRateLimiter({ ...opts, account: 'cli_1' });
    await limiter.acquire('orders', undefined, 'qrpay_quotes:ext-1');
    limiter.pause('orders', 1000, 'qrpay_quotes:ext-1');
    await redis.call('PING'); // the pause's script was sent before this
    const events = new RedisEventStore(opts);
    expect(await events.claim('evt_1', 1000)).toBe('claimed');
    await events.complete('evt_1');

    const keysOf = (call: string[]): string[] => {
      if (call[0] === 'EVALSHA') return call.slice(3, 3 + Number(call[2]));
      return call[0] === 'PING' ? [] : [call[1]!];
    };
    const keys = redis.calls.flatMap(keysOf);
    // GET, TRY_LOCK (2 keys), GET, SET, UNLOCK (2), ACQUIRE (3), PAUSE, CLAIM, SET.
    expect(keys).toHaveLength(13);
    for (const key of keys) expect(key.startsWith('shop-7:')).toBe(true);
    const tokenKeys = keys.filter((k) => k.startsWith('shop-7:token:'));
    expect(new Set(tokenKeys)).toEqual(
      new Set([
        expect.stringMatching(/^shop-7:token:\{[0-9a-f]{32}\}$/),
        expect.stringMatching(/^shop-7:token:\{[0-9a-f]{32}\}:lock$/),
        expect.stringMatching(/^shop-7:token:\{[0-9a-f]{32}\}:renewals$/),
      ]),
    );
    expect(new Set(tokenKeys.map((k) => /\{(.*?)\}/.exec(k)![1])).size).toBe(1);
    const rate = keys.filter((k) => k.startsWith('shop-7:rate:'));
    for (const k of rate) expect(k).toMatch(/^shop-7:rate:\{[0-9a-f]{16}\}:orders(:pause|:sub:[0-9a-f]{16}:pause)?$/);
    expect(new Set(rate.map((k) => /\{(.*?)\}/.exec(k)![1])).size).toBe(1);
    expect(keys.filter((k) => k.startsWith('shop-7:webhook-event:'))).toEqual(['shop-7:webhook-event:evt_1', 'shop-7:webhook-event:evt_1']);
    expect(redis.calls.filter((c) => c[0] === 'EVAL')).toEqual([]);
  });

  it('the token key digests the client’s key: the same client key is the same Redis key, and no part of it shows', async () => {
    const redis = fakeRedis({ GET: () => null });
    const store = new RedisTokenStore({ redis, logger: {} });
    await store.get('merchant-stablecoin:token:aaaa');
    await store.get('merchant-stablecoin:token:aaaa');
    await store.get('merchant-stablecoin:token:bbbb');
    const [a1, a2, b] = redis.calls.map((c) => c[1]!);
    expect(a1).toBe(a2);
    expect(a1).not.toBe(b);
    expect(a1).toMatch(/^merchant-stablecoin:token:\{[0-9a-f]{32}\}$/);
    expect(inspect(store)).toBe("RedisTokenStore { prefix: 'merchant-stablecoin', degraded: false }");
    expect(JSON.stringify(store)).toBe('{"prefix":"merchant-stablecoin","degraded":false}');
  });
});

describe('what a failure is', () => {
  it.each([
    ['NOPERM this user has no permissions to access one of the keys used as arguments', 'misconfigured', 'NOPERM'],
    [
      "ERR The user executing the script can't run this command or subcommand script: 36470718, on @user_script:1.",
      'misconfigured',
      'NOPERM',
    ],
    [
      "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments",
      'misconfigured',
      'NOPERM',
    ],
    ["CROSSSLOT Keys in request don't hash to the same slot", 'misconfigured', 'CROSSSLOT'],
    ['WRONGTYPE Operation against a key holding the wrong kind of value', 'misconfigured', 'WRONGTYPE'],
    ['NOSCRIPT No matching script. Please use EVAL.', 'misconfigured', 'NOSCRIPT'],
    ["OOM command not allowed when used memory > 'maxmemory'.", 'misconfigured', 'OOM'],
    ['MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.', 'misconfigured', 'MISCONF'],
    ['NOAUTH Authentication required.', 'misconfigured', 'NOAUTH'],
    ['WRONGPASS invalid username-password pair or user is disabled.', 'misconfigured', 'WRONGPASS'],
    ["ERR unknown command 'EVALSHA', with args beginning with: ", 'misconfigured', 'ERR'],
    ['MOVED 3999 127.0.0.1:6381', 'misconfigured', 'MOVED'],
    ["READONLY You can't write against a read only replica.", 'unavailable', 'READONLY'],
    ['LOADING Redis is loading the dataset in memory', 'unavailable', 'LOADING'],
    ['BUSY Redis is busy running a script.', 'unavailable', 'BUSY'],
    ['MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.', 'unavailable', 'MASTERDOWN'],
    ['CLUSTERDOWN The cluster is down', 'unavailable', 'CLUSTERDOWN'],
    ['TRYAGAIN Multiple keys request during rehashing of slot', 'unavailable', 'TRYAGAIN'],
  ] as const)('%s → %s', (message, kind, code) => {
    expect(classify(replyError(message))).toEqual({ kind, code });
    // A client that does not name its reply errors is read by the code alone.
    expect(classify(new Error(message))).toEqual({ kind, code });
  });

  it.each([
    'connect ECONNREFUSED 127.0.0.1:6379',
    'Connection is closed.',
    'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
    "Stream isn't writeable and enableOfflineQueue options is false",
    'ETIMEDOUT',
    '',
  ])('%j → unreachable', (message) => {
    expect(classify(new Error(message))).toEqual({ kind: 'unreachable', code: undefined });
  });
});

describe('a configuration mistake is reported as what it is', () => {
  it('NOPERM on the token lock: an error line naming NOPERM, the command and the key; the connection stays up for the limiter; no token shown', async () => {
    const secret = 'tok_secret_value_123456';
    const redis = fakeRedis({
      GET: () => null,
      SET: (args) => {
        throw replyError('NOPERM this user has no permissions to access one of the keys used as arguments', args);
      },
      EVALSHA: (args) => {
        if (String(args[2]).includes(':token:'))
          throw replyError('NOPERM this user has no permissions to access one of the keys used as arguments', args);
        return 0; // the limiter's acquire: admitted
      },
    });
    const { logger, lines } = capture();
    const store = new RedisTokenStore({ redis, logger });
    const limiter = new RedisRateLimiter({ redis, logger });
    let exchanges = 0;
    const manager = new TokenManager({
      store,
      key: 'merchant-stablecoin:token:k',
      exchange: () => Promise.resolve(token(`${secret}${++exchanges}`)),
      now: Date.now,
      renewBeforeSeconds: 60,
    });
    // The renewal goes ahead without the fleet lock (a payment never waits on Redis' configuration).
    expect(await manager.get()).toBe(`${secret}1`);
    await limiter.acquire('orders');
    await limiter.acquire('orders');

    const errors = lines.filter((l) => l.level === 'error');
    // One line per (code, command): the lock's EVALSHA and the token's SET.
    expect(errors.map((l) => l.fields)).toEqual([
      {
        component: 'the token store',
        code: 'NOPERM',
        command: 'EVALSHA',
        key: expect.stringMatching(/^merchant-stablecoin:token:\{[0-9a-f]{32}\}:lock$/),
      },
      {
        component: 'the token store',
        code: 'NOPERM',
        command: 'SET',
        key: expect.stringMatching(/^merchant-stablecoin:token:\{[0-9a-f]{32}\}$/),
      },
    ]);
    expect(errors[0]!.message).toMatch(
      /^merchant-stablecoin\/redis: Redis refused EVALSHA on merchant-stablecoin:token:\{[0-9a-f]{32}\}:lock: NOPERM this user has no permissions to access one of the keys used as arguments\. A configuration mistake, not an outage: see "What Redis must allow" in docs\/fleet\.md\. The fleet's user needs the key pattern ~merchant-stablecoin:\* and the commands docs\/fleet\.md lists\. Seen by the token store; /,
    );
    expect(lines.some((l) => l.message.includes('unreachable'))).toBe(false);
    expect(JSON.stringify(lines)).not.toContain(secret);
    // The limiter on the same connection kept counting in Redis: two acquires reached it.
    const acquires = redis.calls.filter((c) => c[0] === 'EVALSHA' && c[3]!.includes(':rate:'));
    expect(acquires).toHaveLength(2);
    expect(inspect(limiter)).toContain('degraded: false');
  });

  it('the error a store throws names code, command and key, masks argument values, and keeps no client error (ioredis puts the arguments there)', async () => {
    const redis = fakeRedis({
      EVALSHA: (args) => {
        // A reply that echoes an argument: masked.
        throw replyError(`OOM command not allowed when used memory > 'maxmemory' (${String(args.at(-2))})`, args);
      },
    });
    const store = new RedisEventStore({ redis, logger: {} });
    const err = (await store.claim('evt_oom', 60_000).catch((e: unknown) => e)) as RedisStoreError;
    expect(err).toBeInstanceOf(RedisStoreError);
    expect(err).toMatchObject({ kind: 'misconfigured', code: 'OOM', command: 'EVALSHA', key: 'merchant-stablecoin:webhook-event:evt_oom' });
    const marker = String(redis.calls[0]!.at(-2));
    expect(marker).toMatch(/^claim:/);
    expect(err.message).toBe(
      `Redis refused EVALSHA on merchant-stablecoin:webhook-event:evt_oom: OOM command not allowed when used memory > 'maxmemory' (***). A configuration mistake, not an outage: see "What Redis must allow" in docs/fleet.md.`,
    );
    expect(err.cause).toBeUndefined();
    expect(inspect(err)).not.toContain(marker);
    expect(JSON.stringify(err)).not.toContain(marker);
  });

  it('NOSCRIPT that EVAL cannot repair is reported with the EVAL refusal', async () => {
    const redis = fakeRedis({
      EVALSHA: () => {
        throw replyError('NOSCRIPT No matching script. Please use EVAL.');
      },
      EVAL: () => {
        throw replyError("NOPERM this user has no permissions to run the 'eval' command");
      },
    });
    const store = new RedisEventStore({ redis, logger: {} });
    await expect(store.claim('evt_ns', 1000)).rejects.toMatchObject({
      kind: 'misconfigured',
      code: 'NOPERM',
      command: 'EVAL',
      message: expect.stringContaining(
        "the script was not loaded (NOSCRIPT) and EVAL failed: NOPERM this user has no permissions to run the 'eval' command",
      ),
    });
  });

  it('is logged again only after 5 minutes on the monotonic clock while it lasts', async () => {
    const now = performance.now();
    const monotonic = vi.spyOn(performance, 'now').mockReturnValue(now);
    const redis = fakeRedis({
      EVALSHA: () => {
        throw replyError("CROSSSLOT Keys in request don't hash to the same slot");
      },
    });
    const { logger, lines } = capture();
    const limiter = new RedisRateLimiter({ redis, logger, quotas: { orders: 1000 } });
    for (let i = 0; i < 3; i++) await limiter.acquire('orders');
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(1);
    monotonic.mockReturnValue(now + 5 * 60_000);
    await limiter.acquire('orders');
    expect(lines.filter((l) => l.level === 'error')).toHaveLength(2);
    // Every acquire asked Redis: a configuration mistake does not put the connection down.
    expect(redis.calls).toHaveLength(4);
  });
});

describe('an outage', () => {
  it('READONLY (a replica, or a master a failover demoted) is an outage, logged by name with what to do', async () => {
    const redis = fakeRedis({
      EVALSHA: () => {
        throw replyError("READONLY You can't write against a read only replica.");
      },
    });
    const { logger, lines } = capture();
    const store = new RedisEventStore({ redis, logger });
    await expect(store.claim('evt_ro', 1000)).rejects.toMatchObject({ kind: 'unavailable', code: 'READONLY' });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('warn');
    expect(lines[0]!.message).toContain(
      "merchant-stablecoin/redis: Redis cannot serve EVALSHA on merchant-stablecoin:webhook-event:evt_ro now: READONLY You can't write against a read only replica.. The connection reached a replica (or a master a failover demoted): the client must reconnect to the current master.",
    );
    expect(inspect(store)).toContain('degraded: true');
  });

  it('Redis is skipped for retryAfterMs on the monotonic clock: a backward wall-clock step does not keep it skipped', async () => {
    const now = performance.now();
    const monotonic = vi.spyOn(performance, 'now').mockReturnValue(now);
    const wall = vi.spyOn(Date, 'now').mockReturnValue(Date.UTC(2026, 0, 1));
    let up = false;
    const redis = fakeRedis({
      EVALSHA: () => {
        if (!up) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
        return 'claimed';
      },
    });
    const { logger, lines } = capture();
    const store = new RedisEventStore({ redis, logger, retryAfterMs: 5000 });
    await expect(store.claim('evt_1', 1000)).rejects.toMatchObject({ kind: 'unreachable' });
    up = true;
    wall.mockReturnValue(Date.UTC(2026, 0, 1) - 3_600_000);
    monotonic.mockReturnValue(now + 4999);
    await expect(store.claim('evt_1', 1000)).rejects.toMatchObject({ kind: 'unreachable' });
    expect(redis.calls).toHaveLength(1);
    monotonic.mockReturnValue(now + 5000);
    expect(await store.claim('evt_1', 1000)).toBe('claimed');
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
  });
});

/**
 * The three Redis stores against a real redis-server, in one process with several connections
 * (each connection stands for one instance). The multi-process proofs are in fleet.test.ts.
 */
import { inspect } from 'node:util';
import { Redis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFields } from '../../src/core/logger.js';
import { TokenManager } from '../../src/core/token-manager.js';
import { RedisEventStore, RedisRateLimiter, RedisTokenStore, type RedisClientLike } from '../../src/redis/index.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';

// Compile-time: ioredis' Redis and Cluster fit the minimal client interface.
export const redisFits = (r: Redis): RedisClientLike => r;
export const clusterFits = (c: Cluster): RedisClientLike => c;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function capture(): { logger: Record<string, (m: string, f?: LogFields) => void>; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (m: string, f?: LogFields) => lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
  return { logger: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

describe.skipIf(REDIS_SERVER === undefined)('Redis fleet stores (real redis-server)', () => {
  let server: RedisServer;
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const r = new Redis(server.url, { maxRetriesPerRequest: 1 });
    connections.push(r);
    return r;
  };
  let admin: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = connect();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
    await server?.stop();
  });

  describe('RedisTokenStore', () => {
    const token = (value: string, inSeconds = 1800) => ({ token: value, expiresAt: Math.floor(Date.now() / 1000) + inSeconds });

    it('stores one token per key for every instance, with a TTL past expiry', async () => {
      const a = new RedisTokenStore({ redis: connect() });
      const b = new RedisTokenStore({ redis: connect() });
      const t = token('tok_shared_1');
      await a.set('merchant-stablecoin:token:k1', t);
      expect(await b.get('merchant-stablecoin:token:k1')).toEqual(t);
      const ttl = await admin.pttl('merchant-stablecoin:token:k1');
      expect(ttl).toBeGreaterThan(1800_000);
      expect(ttl).toBeLessThanOrEqual(2100_000);
      expect(await b.get('merchant-stablecoin:token:absent')).toBeUndefined();
    });

    it('compare-and-delete removes only the token it was given', async () => {
      const a = new RedisTokenStore({ redis: connect() });
      await a.set('merchant-stablecoin:token:k2', token('tok_new'));
      await a.delete('merchant-stablecoin:token:k2', 'tok_old');
      expect((await a.get('merchant-stablecoin:token:k2'))?.token).toBe('tok_new');
      await a.delete('merchant-stablecoin:token:k2', 'tok_new');
      expect(await admin.exists('merchant-stablecoin:token:k2')).toBe(0);
    });

    it('ten instances renewing at once make one exchange; the others read its token', async () => {
      let exchanges = 0;
      const managers = Array.from(
        { length: 10 },
        () =>
          new TokenManager({
            store: new RedisTokenStore({ redis: connect() }),
            key: 'merchant-stablecoin:token:k3',
            exchange: async () => {
              exchanges++;
              await sleep(80);
              return token(`tok_${exchanges}`);
            },
            now: Date.now,
            renewBeforeSeconds: 60,
          }),
      );
      const got = await Promise.all(managers.map((m) => Promise.resolve(m.get())));
      expect(exchanges).toBe(1);
      expect(new Set(got)).toEqual(new Set(['tok_1']));
      expect(await admin.exists('{merchant-stablecoin:token:k3}:lock')).toBe(0);
    });

    it("a crashed holder's lock blocks renewal only until it expires", async () => {
      // A holder that died mid-renewal: its lock stays until its PX runs out.
      await admin.set('{merchant-stablecoin:token:k4}:lock', 'dead-owner', 'PX', 600);
      // A store that gave up only after lockWaitMs would outlive the test's time limit.
      const store = new RedisTokenStore({ redis: connect(), lockWaitMs: 120_000 });
      const started = Date.now();
      const result = await store.withRenewalLock('merchant-stablecoin:token:k4', async () => 'renewed');
      expect(result).toBe('renewed');
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    });

    it('a live holder keeps its lock past the lease while its exchange runs, and releases it on failure', async () => {
      const a = new RedisTokenStore({ redis: connect(), lockTtlMs: 200 });
      const b = new RedisTokenStore({ redis: connect(), lockTtlMs: 200 });
      const order: string[] = [];
      const first = a.withRenewalLock('merchant-stablecoin:token:k5', async () => {
        order.push('a:start');
        await sleep(700);
        order.push('a:end');
        throw new Error('exchange failed');
      });
      await sleep(30);
      const second = b.withRenewalLock('merchant-stablecoin:token:k5', async () => {
        order.push('b:start');
        return 'b';
      });
      await expect(first).rejects.toThrow('exchange failed');
      expect(await second).toBe('b');
      expect(order).toEqual(['a:start', 'a:end', 'b:start']);
      expect(await admin.exists('{merchant-stablecoin:token:k5}:lock')).toBe(0);
    });

    it('never logs or shows the token', async () => {
      const { logger, lines } = capture();
      const store = new RedisTokenStore({ redis: connect(), logger });
      await store.set('merchant-stablecoin:token:k6', token('tok_secret_value_123'));
      await store.get('merchant-stablecoin:token:k6');
      await store.withRenewalLock('merchant-stablecoin:token:k6', async () => undefined);
      await store.delete('merchant-stablecoin:token:k6', 'tok_secret_value_123');
      expect(lines.join('\n')).not.toContain('tok_secret_value_123');
      expect(inspect(store)).not.toContain('tok_secret');
      expect(JSON.stringify(store)).not.toContain('tok_secret');
    });
  });

  describe('RedisEventStore', () => {
    it('of many concurrent claims from five instances exactly one wins', async () => {
      const stores = Array.from({ length: 5 }, () => new RedisEventStore({ redis: connect() }));
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 5]!.claim('evt_race_1', 60_000)));
      expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
      expect(results.filter((r) => r === 'in_progress')).toHaveLength(49);
    });

    it('complete makes later claims duplicates for the retention; release lets a redelivery in', async () => {
      const a = new RedisEventStore({ redis: connect(), retentionMs: 3_600_000 });
      const b = new RedisEventStore({ redis: connect(), retentionMs: 3_600_000 });
      expect(await a.claim('evt_done_1', 60_000)).toBe('claimed');
      await a.complete('evt_done_1');
      expect(await b.claim('evt_done_1', 60_000)).toBe('duplicate');
      await b.release('evt_done_1');
      expect(await admin.get('merchant-stablecoin:webhook-event:evt_done_1')).toBe('done');
      const ttl = await admin.pttl('merchant-stablecoin:webhook-event:evt_done_1');
      expect(ttl).toBeGreaterThan(3_590_000);

      expect(await a.claim('evt_fail_1', 60_000)).toBe('claimed');
      await a.release('evt_fail_1');
      expect(await b.claim('evt_fail_1', 60_000)).toBe('claimed');
    });

    it("an expired claim can be taken over, and the first holder's late release leaves the new claim", async () => {
      const a = new RedisEventStore({ redis: connect() });
      const b = new RedisEventStore({ redis: connect() });
      expect(await a.claim('evt_lease_1', 150)).toBe('claimed');
      expect(await b.claim('evt_lease_1', 150)).toBe('in_progress');
      await sleep(200);
      expect(await b.claim('evt_lease_1', 60_000)).toBe('claimed');
      await a.release('evt_lease_1');
      expect(await a.claim('evt_lease_1', 60_000)).toBe('in_progress');
    });

    it('digests odd or long event ids in key names', async () => {
      const a = new RedisEventStore({ redis: connect(), prefix: 'fleet-test' });
      expect(await a.claim(`evt_${'x'.repeat(300)}`, 60_000)).toBe('claimed');
      expect(await a.claim('evt with spaces', 60_000)).toBe('claimed');
      const keys = await admin.keys('fleet-test:*');
      expect(keys.every((k) => /^fleet-test:webhook-event:sha256:[0-9a-f]{32}$/.test(k))).toBe(true);
    });
  });

  describe('RedisRateLimiter', () => {
    it('counts one bucket across instances in a sliding window', async () => {
      const WINDOW = 1500;
      const opts = { account: 'cid_window', quotas: { orders: 5 }, windowMs: WINDOW, marginMs: 0 };
      const a = new RedisRateLimiter({ redis: connect(), ...opts });
      const b = new RedisRateLimiter({ redis: connect(), ...opts });
      const started = Date.now();
      const pending = Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).acquire('orders').then(() => Date.now() - started));
      // Other buckets are not affected: reads go through while orders are still waiting.
      let ordersDone = 0;
      for (const p of pending) void p.then(() => ordersDone++);
      await a.acquire('reads');
      expect(ordersDone).toBeLessThan(8);
      const times = (await Promise.all(pending)).sort((x, y) => x - y);
      // Five fit in one window; the other three waited for the first admissions to leave it.
      expect(times[4]! - times[0]!).toBeLessThan(WINDOW);
      expect(times[5]! - times[0]!).toBeGreaterThanOrEqual(WINDOW - 20);
    });

    it('queues the waiters of one process locally, in order, with one Redis poller per bucket', async () => {
      const redis = connect();
      let scriptCalls = 0;
      const counting: RedisClientLike = {
        call: (command, ...args) => {
          if (command === 'EVALSHA' || command === 'EVAL') scriptCalls++;
          return redis.call(command, ...args);
        },
      };
      const limiter = new RedisRateLimiter({ redis: counting, account: 'cid_queue', quotas: { orders: 5 }, windowMs: 300, marginMs: 0 });
      const admitted: number[] = [];
      await Promise.all(Array.from({ length: 20 }, (_, i) => limiter.acquire('orders').then(() => admitted.push(i))));
      expect(admitted).toEqual(Array.from({ length: 20 }, (_, i) => i));
      // One script call per admission plus the head's polls while the window is full; 15
      // waiters each polling at every free slot would make several times more.
      expect(scriptCalls).toBeLessThan(40);
    });

    it('a waiter aborted in the local queue rejects at once, takes no slot and does not hold up the next', async () => {
      const limiter = new RedisRateLimiter({
        redis: connect(),
        account: 'cid_queue_abort',
        quotas: { deposits: 1 },
        windowMs: 400,
        marginMs: 0,
      });
      await limiter.acquire('deposits');
      const head = limiter.acquire('deposits'); // waits in Redis for the window
      const controller = new AbortController();
      const queued = limiter.acquire('deposits', controller.signal); // waits behind the head
      const next = limiter.acquire('deposits');
      let headDone = false;
      void head.then(() => (headDone = true));
      controller.abort(new Error('caller gave up'));
      await expect(queued).rejects.toThrow('caller gave up');
      // Rejected while the head still waited in Redis: a queued waiter never reaches Redis, so
      // it cannot have taken a slot; and the one behind it is still admitted.
      expect(headDone).toBe(false);
      await head;
      await expect(next).resolves.toBeUndefined();
    });

    it('a pause set by one instance holds every instance, for that bucket only', async () => {
      const opts = { account: 'cid_pause', windowMs: 60_000 };
      const a = new RedisRateLimiter({ redis: connect(), ...opts });
      const b = new RedisRateLimiter({ redis: connect(), ...opts });
      a.pause('orders', 400);
      await sleep(30);
      const t0 = Date.now();
      let ordersDone = false;
      const orders = b.acquire('orders').then(() => (ordersDone = true));
      await b.acquire('deposits');
      expect(ordersDone).toBe(false); // deposits flowed while orders stayed paused
      await orders;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
      // A shorter pause never shortens a longer one.
      a.pause('reads', 500);
      a.pause('reads', 10);
      await sleep(30);
      expect(await admin.pttl(`merchant-stablecoin:rate:{${await hashTagOf(admin, 'reads')}}:reads:pause`)).toBeGreaterThan(300);
    });

    it('an aborted acquire rejects with the reason and takes no slot', async () => {
      const limiter = new RedisRateLimiter({
        redis: connect(),
        account: 'cid_abort',
        quotas: { deposits: 1 },
        windowMs: 5000,
        marginMs: 0,
      });
      await limiter.acquire('deposits');
      const controller = new AbortController();
      const pending = limiter.acquire('deposits', controller.signal);
      setTimeout(() => controller.abort(new Error('caller gave up')), 50);
      await expect(pending).rejects.toThrow('caller gave up');
      const [key] = await admin.keys('merchant-stablecoin:rate:*:deposits');
      expect(await admin.zcard(key!)).toBe(1);
    });

    it('keeps the account out of key names, with one hash tag per account', async () => {
      const limiter = new RedisRateLimiter({ redis: connect(), account: 'client-id-in-clear' });
      await limiter.acquire('members_write');
      const keys = await admin.keys('merchant-stablecoin:rate:*');
      expect(keys.join(' ')).not.toContain('client-id-in-clear');
      expect(keys.every((k) => /^merchant-stablecoin:rate:\{[0-9a-f]{16}\}:(orders|reads|deposits|members_write)(:pause)?$/.test(k))).toBe(
        true,
      );
    });

    it('rejects settings that are not buckets or not positive integers', () => {
      const redis = connect();
      expect(() => new RedisRateLimiter({ redis, quotas: { nope: 1 } as never })).toThrow(/quotas.nope/);
      expect(() => new RedisRateLimiter({ redis, windowMs: 0 })).toThrow(/windowMs/);
      expect(() => new RedisTokenStore({ redis: {} as never })).toThrow(/redis/);
    });
  });
});

/** The hash tag of the rate-limit keys that hold `bucket` (any account seen so far). */
async function hashTagOf(admin: Redis, bucket: string): Promise<string> {
  const keys = await admin.keys(`merchant-stablecoin:rate:*:${bucket}:pause`);
  return /\{([0-9a-f]+)\}/.exec(keys[0] ?? '')?.[1] ?? '';
}

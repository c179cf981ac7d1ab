/**
 * The three Redis stores against a real redis-server, in one process with several connections
 * (each connection stands for one instance). The multi-process proofs are in fleet.test.ts.
 */
import { inspect } from 'node:util';
import { Redis, type Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFields } from '../../src/core/telemetry/logger.js';
import { TokenManager } from '../../src/core/credentials/token-manager.js';
import { RedisEventStore, RedisRateLimiter, RedisTokenStore, type RedisClientLike } from '../../src/redis/index.js';
import * as scripts from '../../src/redis/scripts.js';
import { manualClock, type ManualClock } from '../helpers/time.js';
import { bucketKey, tokenKeys } from './helpers/keys.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';

// Compile-time: ioredis' Redis and Cluster fit the minimal client interface.
export const redisFits = (r: Redis): RedisClientLike => r;
export const clusterFits = (c: Cluster): RedisClientLike => c;

/**
 * These tests are not about outages (fallback.test.ts is): a healthy Redis answering slowly on a
 * loaded machine must not switch a store to its in-memory fallback. The test's own time limit is
 * the hang guard.
 */
const NO_FALLBACK = { commandTimeoutMs: 120_000 } as const;

/** A script run as seen by the store: which script, and what Redis answered. */
interface ScriptRun {
  readonly sha: string;
  readonly reply: unknown;
}

/**
 * Wraps a connection so that a test can await what the store's scripts answered (an event)
 * instead of sleeping and hoping the store got there. The scripts are loaded beforehand, so
 * every run is one EVALSHA.
 */
function observe(redis: Redis): { client: RedisClientLike; runs: ScriptRun[]; next(match: (r: ScriptRun) => boolean): Promise<ScriptRun> } {
  const runs: ScriptRun[] = [];
  const waiters: Array<{ match: (r: ScriptRun) => boolean; resolve: (r: ScriptRun) => void }> = [];
  return {
    runs,
    client: {
      async call(command, ...args) {
        const reply = await redis.call(command, ...args);
        if (command === 'EVALSHA') {
          const run: ScriptRun = { sha: String(args[0]), reply };
          runs.push(run);
          for (const w of [...waiters]) {
            if (!w.match(run)) continue;
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(run);
          }
        }
        return reply;
      },
    },
    next(match) {
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** Resolves once `count` more sleepers have started waiting on `clock`. */
function sleepsOn(clock: ManualClock, count = 1): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    clock.onSleep(() => {
      if (++seen === count) resolve();
    });
  });
}

/** Admission times (the sorted set's scores) of one account's bucket. */
async function admissions(r: Redis, account: string, bucket: string): Promise<number[]> {
  const flat = await r.zrange(bucketKey(account, bucket), '0', '-1', 'WITHSCORES');
  return flat.filter((_, i) => i % 2 === 1).map(Number);
}

/** Redis' own clock, in ms. */
async function redisNow(r: Redis): Promise<number> {
  const [s, us] = await r.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

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
    // Loaded up front: a store's first EVALSHA never meets NOSCRIPT (and a second command).
    for (const script of Object.values(scripts)) await admin.call('SCRIPT', 'LOAD', script.source);
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
      const ttl = await admin.pttl(tokenKeys('merchant-stablecoin:token:k1').token);
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
      expect(await admin.exists(tokenKeys('merchant-stablecoin:token:k2').token)).toBe(0);
    });

    it('ten instances renewing at once make one exchange; the others wait for it and read its token', async () => {
      let exchanges = 0;
      // The exchange holds until the nine other instances have found the lock taken: they were
      // waiting for it (not merely late), whatever the machine's speed.
      let openGate!: () => void;
      const gate = new Promise<void>((r) => (openGate = r));
      const waited = new Set<number>();
      const managers = Array.from({ length: 10 }, (_, i) => {
        const redis = observe(connect());
        void redis
          .next((r) => r.sha === scripts.TRY_LOCK.sha && (r.reply as [number])[0] === 0)
          .then(() => {
            waited.add(i);
            if (waited.size === 9) openGate();
          });
        return new TokenManager({
          store: new RedisTokenStore({ redis: redis.client, lockTtlMs: 60_000, lockWaitMs: 120_000, ...NO_FALLBACK }),
          key: 'merchant-stablecoin:token:k3',
          exchange: async () => {
            exchanges++;
            await gate;
            return token(`tok_${exchanges}`);
          },
          now: Date.now,
          renewBeforeSeconds: 60,
        });
      });
      const got = await Promise.all(managers.map((m) => Promise.resolve(m.get())));
      expect(exchanges).toBe(1);
      expect(waited.size).toBe(9);
      expect(new Set(got)).toEqual(new Set(['tok_1']));
      expect(await admin.exists(tokenKeys('merchant-stablecoin:token:k3').lock)).toBe(0);
    });

    it("a crashed holder's lock blocks renewal only until it expires", async () => {
      const lock = tokenKeys('merchant-stablecoin:token:k4').lock;
      // A store that gave up only after lockWaitMs would outlive the test's time limit.
      const store = new RedisTokenStore({ redis: connect(), lockWaitMs: 120_000, ...NO_FALLBACK });
      const before = await redisNow(admin);
      // A holder that died mid-renewal: its lock stays until its PX runs out.
      await admin.set(lock, 'dead-owner', 'PX', 600);
      let holderDuringRenewal: string | null = null;
      const result = await store.withRenewalLock('merchant-stablecoin:token:k4', async () => {
        holderDuringRenewal = await admin.get(lock);
        return 'renewed';
      });
      expect(result).toBe('renewed');
      // It renewed under a lock of its own, taken once the dead one had expired on Redis' clock.
      expect(holderDuringRenewal).not.toBeNull();
      expect(holderDuringRenewal).not.toBe('dead-owner');
      expect((await redisNow(admin)) - before).toBeGreaterThanOrEqual(600);
    });

    it('a live holder keeps its lock past the lease while its exchange runs, and releases it on failure', async () => {
      // A lease is a bet on the holder's heartbeat (every third of the lease): this one tolerates
      // a holder stalled for up to a second.
      const LEASE = 1500;
      const key = 'merchant-stablecoin:token:k5';
      const lock = tokenKeys(key).lock;
      const ra = observe(connect());
      const a = new RedisTokenStore({ redis: ra.client, lockTtlMs: LEASE, ...NO_FALLBACK });
      const b = new RedisTokenStore({ redis: connect(), lockTtlMs: LEASE, lockWaitMs: 120_000, ...NO_FALLBACK });
      const order: string[] = [];
      let aStarted!: () => void;
      const started = new Promise<void>((r) => (aStarted = r));
      const first = a.withRenewalLock(key, async () => {
        order.push('a:start');
        const lockedBy = await redisNow(admin);
        aStarted();
        // Hold the lock, extension after extension, until Redis' clock is past the first lease.
        while ((await redisNow(admin)) <= lockedBy + LEASE) await ra.next((r) => r.sha === scripts.EXTEND_LOCK.sha && r.reply === 1);
        expect(await admin.pttl(lock)).toBeGreaterThan(0);
        order.push('a:end');
        throw new Error('exchange failed');
      });
      await started;
      const second = b.withRenewalLock(key, async () => {
        order.push('b:start');
        return 'b';
      });
      await expect(first).rejects.toThrow('exchange failed');
      expect(await second).toBe('b');
      expect(order).toEqual(['a:start', 'a:end', 'b:start']);
      expect(await admin.exists(lock)).toBe(0);
    });

    it('a Redis stall longer than commandTimeoutMs during a renewal still makes one exchange: the instances wait it out (SIGSTOP, SIGCONT)', async () => {
      // The commands time out well inside the stall; the renewal's patience (lockTtlMs) is far above it.
      const COMMAND_TIMEOUT = 300;
      const STALL = 3 * COMMAND_TIMEOUT;
      const key = 'merchant-stablecoin:token:stall';
      let exchanges = 0;
      let openGate!: () => void;
      const gate = new Promise<void>((r) => (openGate = r));
      const waited = new Set<number>();
      const { logger, lines } = capture();
      const managers = Array.from({ length: 10 }, (_, i) => {
        const redis = observe(connect());
        void redis
          .next((r) => r.sha === scripts.TRY_LOCK.sha && (r.reply as [number])[0] === 0)
          .then(() => {
            waited.add(i);
            if (waited.size === 9) openGate();
          });
        return new TokenManager({
          store: new RedisTokenStore({
            redis: redis.client,
            logger,
            commandTimeoutMs: COMMAND_TIMEOUT,
            lockTtlMs: 60_000,
            lockWaitMs: 120_000,
          }),
          key,
          exchange: async () => {
            exchanges++;
            // Every other instance is polling for the lock: Redis stalls under them.
            await gate;
            server.signal('SIGSTOP');
            await new Promise((r) => setTimeout(r, STALL));
            server.signal('SIGCONT');
            return token(`tok_stall_${exchanges}`);
          },
          now: Date.now,
          renewBeforeSeconds: 60,
        });
      });
      const got = await Promise.all(managers.map((m) => Promise.resolve(m.get())));
      expect(exchanges).toBe(1);
      expect(new Set(got)).toEqual(new Set(['tok_stall_1']));
      expect(await admin.exists(tokenKeys(key).lock)).toBe(0);
      expect(lines.filter((l) => l.includes('unreachable'))).toEqual([]);
      console.log(
        `[fleet] Redis stalled ${STALL} ms (commandTimeoutMs ${COMMAND_TIMEOUT}) during a renewal by 10 instances → ${exchanges} exchange`,
      );
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
      const a = new RedisEventStore({ redis: connect(), retentionMs: 3_600_000, ...NO_FALLBACK });
      const b = new RedisEventStore({ redis: connect(), retentionMs: 3_600_000, ...NO_FALLBACK });
      expect(await a.claim('evt_done_1', 60_000)).toBe('claimed');
      const before = await redisNow(admin);
      await a.complete('evt_done_1');
      expect(await b.claim('evt_done_1', 60_000)).toBe('duplicate');
      await b.release('evt_done_1');
      expect(await admin.get('merchant-stablecoin:webhook-event:evt_done_1')).toBe('done');
      // The retention, counted from the completion (on Redis' clock).
      const ttl = await admin.pttl('merchant-stablecoin:webhook-event:evt_done_1');
      const elapsed = (await redisNow(admin)) - before;
      expect(ttl).toBeLessThanOrEqual(3_600_000);
      expect(ttl).toBeGreaterThanOrEqual(3_600_000 - elapsed);

      expect(await a.claim('evt_fail_1', 60_000)).toBe('claimed');
      await a.release('evt_fail_1');
      expect(await b.claim('evt_fail_1', 60_000)).toBe('claimed');
    });

    it("an expired claim can be taken over, and the first holder's late release leaves the new claim", async () => {
      const a = new RedisEventStore({ redis: connect(), ...NO_FALLBACK });
      const b = new RedisEventStore({ redis: connect(), ...NO_FALLBACK });
      const key = 'merchant-stablecoin:webhook-event:evt_lease_1';
      expect(await a.claim('evt_lease_1', 60_000)).toBe('claimed');
      expect(await b.claim('evt_lease_1', 60_000)).toBe('in_progress');
      // The lease is the claim's TTL ...
      const ttl = await admin.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
      // ... and once it has run out (here at once, as a crashed holder's would), another takes over.
      await admin.pexpire(key, 0);
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
    const WINDOW = 60_000;
    const isAcquire = (r: ScriptRun): boolean => r.sha === scripts.ACQUIRE.sha;

    it("counts one bucket across instances on Redis' clock: the quota at once, then a wait until the oldest admission leaves the window", async () => {
      const ra = observe(connect());
      const rb = observe(connect());
      const opts = { account: 'cid_window', quotas: { orders: 5 }, windowMs: WINDOW, marginMs: 0, ...NO_FALLBACK };
      const a = new RedisRateLimiter({ redis: ra.client, ...opts });
      const b = new RedisRateLimiter({ redis: rb.client, ...opts });
      const before = await redisNow(admin);
      await Promise.all([a, b, a, b, a].map((l) => l.acquire('orders')));
      const scores = await admissions(admin, 'cid_window', 'orders');
      const afterFive = await redisNow(admin);
      expect(scores).toHaveLength(5);
      expect(scores.every((t) => t >= before && t <= afterFive)).toBe(true);

      // A sixth, from either instance, is told to wait until the oldest admission leaves the window.
      const told = rb.next((r) => isAcquire(r) && Number(r.reply) > 0);
      const c = new AbortController();
      const sixth = b.acquire('orders', c.signal);
      const wait = Number((await told).reply);
      const asked = await redisNow(admin);
      const oldest = Math.min(...scores);
      expect(wait).toBeGreaterThanOrEqual(oldest + WINDOW - asked);
      expect(wait).toBeLessThanOrEqual(oldest + WINDOW - afterFive);
      // Other buckets are not affected: reads go through while orders wait.
      await a.acquire('reads');
      c.abort(new Error('done waiting'));
      await expect(sixth).rejects.toThrow('done waiting');
      expect(await admissions(admin, 'cid_window', 'orders')).toHaveLength(5);
    });

    it('with a clock shared by the instances: waiters wake when the oldest admission leaves the window of that clock, never before', async () => {
      const clock = manualClock();
      const opts = { account: 'cid_clock', quotas: { orders: 5 }, windowMs: WINDOW, marginMs: 0, clock, ...NO_FALLBACK };
      const a = new RedisRateLimiter({ redis: connect(), ...opts });
      const b = new RedisRateLimiter({ redis: connect(), ...opts });
      const t0 = clock.now();
      await Promise.all([a, b, a, b, a].map((l) => l.acquire('orders')));
      let admitted = 0;
      const bothAsleep = sleepsOn(clock, 2);
      const later = [b.acquire('orders'), b.acquire('orders'), a.acquire('orders')].map((p) => p.then(() => void admitted++));
      await bothAsleep; // one poller per instance, each waiting on the clock
      expect(clock.nextWake).toBeGreaterThanOrEqual(t0 + WINDOW);
      expect(clock.nextWake).toBeLessThan(t0 + WINDOW + 15); // plus jitter
      await a.acquire('reads'); // another bucket flows meanwhile
      clock.advance(WINDOW - 1);
      expect(admitted).toBe(0);
      clock.advance(15);
      await Promise.all(later);
      expect(admitted).toBe(3);
      // Scored on the clock: the first five left the window, the three came after it.
      const scores = await admissions(admin, 'cid_clock', 'orders');
      expect(scores).toHaveLength(3);
      expect(scores.every((t) => t >= t0 + WINDOW && t < t0 + WINDOW + 15)).toBe(true);
    });

    it('queues the waiters of one process locally, in order, with one Redis poller per bucket', async () => {
      const clock = manualClock();
      const r = observe(connect());
      const limiter = new RedisRateLimiter({
        redis: r.client,
        account: 'cid_queue',
        quotas: { orders: 5 },
        windowMs: 300,
        marginMs: 0,
        clock,
        ...NO_FALLBACK,
      });
      const admitted: number[] = [];
      let asleep = sleepsOn(clock);
      const all = Array.from({ length: 20 }, (_, i) => limiter.acquire('orders').then(() => admitted.push(i)));
      for (let window = 1; window <= 3; window++) {
        await asleep;
        // Five admitted in this window; one poller waits on the clock, the others queue locally.
        expect(admitted).toHaveLength(5 * window);
        expect(clock.sleeping).toBe(1);
        asleep = sleepsOn(clock);
        clock.advance(300 + 15);
      }
      await Promise.all(all);
      expect(admitted).toEqual(Array.from({ length: 20 }, (_, i) => i));
      // One script run per admission plus one "wait" answer per full window: 15 waiters polling
      // at every free slot would make many more.
      expect(r.runs.filter(isAcquire)).toHaveLength(20 + 3);
    });

    it('a waiter aborted in the local queue rejects at once, takes no slot and does not hold up the next', async () => {
      const clock = manualClock();
      const limiter = new RedisRateLimiter({
        redis: connect(),
        account: 'cid_queue_abort',
        quotas: { deposits: 1 },
        windowMs: 400,
        marginMs: 0,
        clock,
        ...NO_FALLBACK,
      });
      await limiter.acquire('deposits');
      const headAsleep = sleepsOn(clock);
      const head = limiter.acquire('deposits'); // waits in Redis for the window
      const controller = new AbortController();
      const queued = limiter.acquire('deposits', controller.signal); // waits behind the head
      const next = limiter.acquire('deposits');
      let headDone = false;
      void head.then(() => (headDone = true));
      await headAsleep;
      controller.abort(new Error('caller gave up'));
      await expect(queued).rejects.toThrow('caller gave up');
      // Rejected while the head still waited in Redis: a queued waiter never reaches Redis, so
      // it cannot have taken a slot; and the one behind it is still admitted, a window later.
      expect(headDone).toBe(false);
      const nextAsleep = sleepsOn(clock);
      clock.advance(400 + 15);
      await head;
      await nextAsleep;
      clock.advance(400 + 15);
      await expect(next).resolves.toBeUndefined();
      expect(await admissions(admin, 'cid_queue_abort', 'deposits')).toHaveLength(1);
    });

    it("a pause set by one instance holds every instance, for that bucket only (Redis' clock: the key's TTL)", async () => {
      const connA = connect();
      const rb = observe(connect());
      const opts = { account: 'cid_pause', windowMs: WINDOW, ...NO_FALLBACK };
      const a = new RedisRateLimiter({ redis: connA, ...opts });
      const b = new RedisRateLimiter({ redis: rb.client, ...opts });
      a.pause('orders', 60_000);
      await connA.ping(); // the pause script ran before this answer on the same connection
      const told = rb.next((r) => isAcquire(r) && Number(r.reply) > 0);
      const c = new AbortController();
      const orders = b.acquire('orders', c.signal);
      const wait = Number((await told).reply);
      expect(wait).toBeLessThanOrEqual(60_000);
      await b.acquire('deposits'); // deposits flow while orders stay paused
      c.abort(new Error('stop'));
      await expect(orders).rejects.toThrow('stop');
      // A shorter pause never shortens a longer one.
      a.pause('reads', 60_000);
      a.pause('reads', 10);
      await connA.ping();
      expect(await admin.pttl(`${bucketKey('cid_pause', 'reads')}:pause`)).toBeGreaterThan(10);
    });

    it('a pause on a shared clock lasts its length on that clock, and is stored as its end', async () => {
      const clock = manualClock();
      const connA = connect();
      const opts = { account: 'cid_pause_clock', windowMs: WINDOW, clock, ...NO_FALLBACK };
      const a = new RedisRateLimiter({ redis: connA, ...opts });
      const b = new RedisRateLimiter({ redis: connect(), ...opts });
      const t0 = clock.now();
      a.pause('orders', 400);
      await connA.ping();
      let ordersDone = false;
      const asleep = sleepsOn(clock);
      const orders = b.acquire('orders').then(() => (ordersDone = true));
      await asleep;
      expect(clock.nextWake).toBeGreaterThanOrEqual(t0 + 400);
      await b.acquire('deposits');
      clock.advance(399);
      expect(ordersDone).toBe(false);
      clock.advance(15);
      await orders;
      // Never shortened; the key holds the end on the clock.
      a.pause('reads', 500);
      a.pause('reads', 10);
      await connA.ping();
      expect(Number(await admin.get(`${bucketKey('cid_pause_clock', 'reads')}:pause`))).toBe(clock.now() + 500);
    });

    it('an aborted acquire rejects with the reason and takes no slot', async () => {
      const clock = manualClock();
      const limiter = new RedisRateLimiter({
        redis: connect(),
        account: 'cid_abort',
        quotas: { deposits: 1 },
        windowMs: 5000,
        marginMs: 0,
        clock,
        ...NO_FALLBACK,
      });
      await limiter.acquire('deposits');
      const controller = new AbortController();
      const asleep = sleepsOn(clock);
      const pending = limiter.acquire('deposits', controller.signal);
      await asleep;
      controller.abort(new Error('caller gave up'));
      await expect(pending).rejects.toThrow('caller gave up');
      expect(clock.sleeping).toBe(0);
      expect(await admissions(admin, 'cid_abort', 'deposits')).toHaveLength(1);
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

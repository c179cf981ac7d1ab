/**
 * Issue 24, points 1 to 3 and 6, on real redis-server processes killed with SIGKILL: what a
 * webhook receiver on `RedisEventStore` processes when Redis restarts (with an append-only file,
 * with an RDB snapshot saved before the crash, without persistence) and while Redis is down (by
 * default, and opted into processing without the fleet-wide check). Each scenario counts how many
 * times `onEvent` ran per event, against what docs/fleet.md says it does.
 *
 * Deliveries go through `handler.handle` (what the service's POST reaches); every wait is on an
 * event (a process exit, a log line, a reply), never on a duration.
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisEventStore, RedisRateLimiter, RedisTokenStore, type RedisEventStoreOptions } from '../../src/redis/index.js';
import { createWebhookHandler, type WebhookHandler, type WebhookOutcome } from '../../src/webhooks/index.js';
import { manualClock } from '../helpers/time.js';
import { envelope, headersFor, type Envelope } from '../webhooks/helpers.js';
import { REDIS_SERVER, startRedisServer, type Persistence, type RedisServer } from './helpers/redis-server.js';

/** A receiver that counts its runs of onEvent per event, and holds the events a test names until released. */
function receiver(redis: Redis, options: Partial<RedisEventStoreOptions> = {}) {
  const runs = new Map<string, number>();
  const running = new Map<string, number>();
  const mostAtOnce = new Map<string, number>();
  const gates = new Map<string, Promise<void>>();
  const waiters: Array<{ id: string; count: number; resolve: () => void }> = [];
  const store = new RedisEventStore({ redis, logger: {}, retryAfterMs: 1, commandTimeoutMs: 60_000, ...options });
  const handler: WebhookHandler = createWebhookHandler({
    logger: {},
    store,
    // A held event stays in flight through the restart, however slow the machine: the claim's
    // lease must not end it first (the answer's bound may: the claim is settled when it ends).
    timeoutMs: 9_000,
    claimTtlMs: 600_000,
    async onEvent(event) {
      const id = event.event_id;
      const n = (runs.get(id) ?? 0) + 1;
      runs.set(id, n);
      running.set(id, (running.get(id) ?? 0) + 1);
      mostAtOnce.set(id, Math.max(mostAtOnce.get(id) ?? 0, running.get(id)!));
      for (const w of waiters.filter((x) => x.id === id && x.count <= n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      try {
        await gates.get(id);
      } finally {
        running.set(id, running.get(id)! - 1);
      }
    },
  });
  return {
    runs: (env: Envelope) => runs.get(env.event_id) ?? 0,
    mostAtOnce: (env: Envelope) => mostAtOnce.get(env.event_id) ?? 0,
    /** Resolves once onEvent has started `count` runs of `env`. */
    untilRuns: (env: Envelope, count: number): Promise<void> =>
      (runs.get(env.event_id) ?? 0) >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ id: env.event_id, count, resolve })),
    /** Holds every run of `env` in onEvent until the returned function is called. */
    hold(env: Envelope): () => void {
      let release!: () => void;
      gates.set(env.event_id, new Promise<void>((r) => (release = r)));
      return release;
    },
    deliver: async (env: Envelope): Promise<WebhookOutcome> => (await handler.handle(JSON.stringify(env), headersFor(env))).outcome,
  };
}

const event = (id: string): Envelope => envelope('card.status.updated', { object: 'card', id, status: 'active', status_version: 1 });

/** A connection that fails its commands fast while Redis is down (one reconnection attempt) and reconnects on its own. */
function connect(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves once `redis` answers a PING (it reconnects on its own after a restart). */
async function reconnected(redis: Redis): Promise<void> {
  for (;;) {
    if ((await redis.ping().catch(() => undefined)) === 'PONG') return;
  }
}

describe.skipIf(REDIS_SERVER === undefined)('webhooks on Redis through restarts and outages (real redis-server, SIGKILL)', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const started = async (options: Parameters<typeof startRedisServer>[0]): Promise<RedisServer> => {
    const s = await startRedisServer(options);
    cleanups.push(() => s.stop());
    return s;
  };
  const connected = (url: string): Redis => {
    const r = connect(url);
    cleanups.push(() => r.disconnect());
    return r;
  };

  /**
   * The restart scenario: event A processed, event B in flight, a token and three rate-limit
   * admissions stored; Redis is killed (after SAVE for 'rdb') and started again on the same port
   * and directory; A and B are delivered again (B while its first run still holds).
   */
  async function restart(persistence: Persistence, options: Partial<RedisEventStoreOptions> = {}) {
    const first = await started({ persistence });
    const redis = connected(first.url);
    const r = receiver(redis, options);
    const clock = manualClock();
    const limiter = new RedisRateLimiter({
      redis,
      account: 'cli_restart',
      quotas: { orders: 3 },
      clock,
      commandTimeoutMs: 60_000,
      logger: {},
    });
    const tokens = new RedisTokenStore({ redis, commandTimeoutMs: 60_000, logger: {} });
    const a = event('crd_a');
    const b = event('crd_b');
    const outcomes: WebhookOutcome[] = [];

    outcomes.push(await r.deliver(a));
    const releaseB = r.hold(b);
    const firstB = r.deliver(b);
    await r.untilRuns(b, 1);
    await tokens.set('merchant-stablecoin:token:restart', { token: 'tok_before_restart', expiresAt: Math.floor(Date.now() / 1000) + 1800 });
    for (let i = 0; i < 3; i++) await limiter.acquire('orders');
    if (persistence === 'rdb') await redis.call('SAVE');

    first.signal('SIGKILL');
    await first.exited;
    // Redis down meanwhile: the default receiver refuses, the opted-in one answers from its own record.
    outcomes.push(await r.deliver(a));

    const second = await started({ port: first.port, dir: first.dir, persistence });
    await reconnected(redis);
    outcomes.push(await r.deliver(a));
    // B again while its first run holds: answered at once (in progress), or run beside it.
    const redeliveryB = r.deliver(b);
    await Promise.race([redeliveryB, r.untilRuns(b, 2)]);
    const bAtOnce = r.mostAtOnce(b);
    releaseB();
    outcomes.push(await redeliveryB);
    const firstBOutcome = await firstB;
    outcomes.push(await r.deliver(b));

    // The fleet's other state after the restart.
    const token = await new RedisTokenStore({ redis, commandTimeoutMs: 60_000, logger: {} }).get('merchant-stablecoin:token:restart');
    const controller = new AbortController();
    const fourth = await Promise.race([
      limiter.acquire('orders', controller.signal).then(() => 'admitted' as const),
      new Promise<'waits'>((resolve) => clock.onSleep(() => resolve('waits'))),
    ]);
    controller.abort(new Error('done'));
    return { second, runsA: r.runs(a), runsB: r.runs(b), bAtOnce, outcomes, firstBOutcome, token: token?.token, fourth };
  }

  it.each(['aof', 'rdb'] as const)(
    'persistence on (%s): a restart keeps completed and in-flight events deduplicated: each event processed once; the token and the rate-limit window survive',
    async (persistence) => {
      const r = await restart(persistence);
      // A: processed, refused while Redis was down, then a duplicate. B: its redelivery during the
      // first run is in progress (409), and after it a duplicate.
      expect(r.outcomes).toEqual(['processed', 'store_error', 'duplicate', 'in_progress', 'duplicate']);
      expect(r.runsA).toBe(1);
      expect(r.runsB).toBe(1);
      expect(r.bAtOnce).toBe(1);
      expect(['processed', 'timeout']).toContain(r.firstBOutcome);
      expect(r.token).toBe('tok_before_restart');
      expect(r.fourth).toBe('waits');
      console.log(
        `[fleet] restart with ${persistence}: 6 deliveries of 2 events → processed A ${r.runsA}, B ${r.runsB} (per delivered event: 1)`,
      );
    },
    120_000,
  );

  it('no persistence: a restart forgets claims, records, token and windows, exactly as docs/fleet.md says', async () => {
    const r = await restart('none');
    // A completed before the restart is processed again; B's redelivery runs beside its first run.
    expect(r.outcomes).toEqual(['processed', 'store_error', 'processed', 'processed', 'duplicate']);
    expect(r.runsA).toBe(2);
    expect(r.runsB).toBe(2);
    expect(r.bAtOnce).toBe(2);
    expect(r.token).toBeUndefined();
    expect(r.fourth).toBe('admitted');
    console.log(`[fleet] restart without persistence: processed A ${r.runsA}, B ${r.runsB} (B twice at once): 2 per delivered event`);
  }, 120_000);

  it("no persistence, opted into 'process-risking-duplicates': the instance's own record keeps each event once on that instance", async () => {
    const r = await restart('none', { whileRedisIsDown: 'process-risking-duplicates' });
    // While Redis is down A is a duplicate in this process's record; after the restart too.
    expect(r.outcomes).toEqual(['processed', 'duplicate', 'duplicate', 'in_progress', 'duplicate']);
    expect(r.runsA).toBe(1);
    expect(r.runsB).toBe(1);
    console.log(`[fleet] restart without persistence, opted-in record: processed A ${r.runsA}, B ${r.runsB} on the instance`);
  }, 120_000);

  it('Redis down, by default: every delivery is answered 503 and nothing is processed; once Redis is back the event is processed once', async () => {
    const server = await started({});
    const redis = connected(server.url);
    const r = receiver(redis);
    const e = event('crd_down');
    await server.stop();
    const during = [await r.deliver(e), await r.deliver(e), await r.deliver(e)];
    expect(during).toEqual(['store_error', 'store_error', 'store_error']);
    expect(r.runs(e)).toBe(0);

    await started({ port: server.port });
    await reconnected(redis);
    expect(await r.deliver(e)).toBe('processed');
    expect(await r.deliver(e)).toBe('duplicate');
    expect(r.runs(e)).toBe(1);
    console.log(`[fleet] Redis down, default: 3 deliveries answered 503 → processed 0; after recovery → processed ${r.runs(e)}`);
  }, 120_000);

  it('Redis down, opted in: never twice on one instance (before, during and after the outage); another instance may process it again, as documented', async () => {
    const server = await started({});
    const redisOne = connected(server.url);
    const one = receiver(redisOne, { whileRedisIsDown: 'process-risking-duplicates' });
    const two = receiver(connected(server.url), { whileRedisIsDown: 'process-risking-duplicates' });
    const before = event('crd_before');
    const during = event('crd_during');
    const inFlight = event('crd_in_flight');
    const after = event('crd_after');

    expect(await one.deliver(before)).toBe('processed');
    await server.stop();

    // Delivered while Redis is down: processed once per instance reached.
    expect(await one.deliver(during)).toBe('processed');
    expect(await one.deliver(during)).toBe('duplicate');
    expect(await one.deliver(before)).toBe('duplicate'); // its own record, Redis unreachable
    const release = one.hold(inFlight);
    const firstRun = one.deliver(inFlight);
    await one.untilRuns(inFlight, 1);
    expect(await one.deliver(inFlight)).toBe('in_progress');
    expect(await two.deliver(during)).toBe('processed'); // the documented risk: another instance

    await started({ port: server.port });
    await reconnected(redisOne);
    // Redis back (empty: no persistence). A new event is claimed in Redis again ...
    expect(await one.deliver(after)).toBe('processed');
    expect(await redisOne.get(`merchant-stablecoin:webhook-event:${after.event_id}`)).toBe('done');
    // ... and what this instance processed, or is processing, during the outage is not run again here.
    expect(await one.deliver(during)).toBe('duplicate');
    expect(await one.deliver(inFlight)).toBe('in_progress');
    release();
    await firstRun;
    expect(await one.deliver(inFlight)).toBe('duplicate');
    expect([one.runs(before), one.runs(during), one.runs(inFlight), one.runs(after)]).toEqual([1, 1, 1, 1]);
    expect(one.mostAtOnce(inFlight)).toBe(1);
    expect(two.runs(during)).toBe(1);
    console.log(
      `[fleet] Redis down, opted in: instance one processed before/during/in-flight ${one.runs(before)}/${one.runs(during)}/${one.runs(inFlight)}; the fleet processed 'during' ${one.runs(during) + two.runs(during)} times (2 instances reached)`,
    );
  }, 120_000);
});

/**
 * Redis down: payments keep working on the in-memory fallbacks, with one log line per outage,
 * webhook deliveries are refused (503) so that the service delivers them again, and fleet sharing
 * resumes when Redis is back. (The webhook fault scenarios in full: redis-faults.test.ts.)
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../../src/core/telemetry/logger.js';
import { RedisEventStore, RedisRateLimiter, RedisTokenStore } from '../../src/redis/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { TOKEN_KEY } from './helpers/keys.js';
import { freePort, REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (m: string, f?: LogFields) => lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
  return { logger: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(REDIS_SERVER === undefined)('Redis unreachable: the in-memory fallbacks (real redis-server)', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('Redis stopped: calls, token renewal and limited writes still succeed, webhooks are answered 503 unprocessed, with one log line; sharing resumes when Redis is back', async () => {
    let redisServer: RedisServer = await startRedisServer();
    const port = redisServer.port;
    cleanups.push(() => redisServer.stop());
    // ioredis with its defaults: while the server is down, commands wait in its offline queue,
    // so it is the stores' own time bound that keeps calls fast.
    const redis = new Redis(redisServer.url);
    redis.on('error', () => undefined);
    cleanups.push(() => redis.disconnect());

    const { logger, lines } = capture();
    const sandbox = createSandbox();
    // The time bound is what ends a command stuck in the offline queue while Redis is down. It is
    // generous, so that a healthy Redis answering slowly on a loaded machine is never taken for an
    // outage: the outage costs one bound (and one more per retryAfterMs it lasts).
    const common = { redis, logger, commandTimeoutMs: 5000, retryAfterMs: 2000 };
    const tokenStore = new RedisTokenStore(common);
    const limiter = new RedisRateLimiter({ ...common, account: sandbox.credentials.clientId });
    const client = sandbox.client({ tokenStore, limiter, maxRetries: 0 });
    let processed = 0;
    const webhooks = createWebhookHandler({ store: new RedisEventStore(common), onEvent: () => void processed++ });

    // Redis up: the token is shared through it.
    await client.assets.list();
    expect(sandbox.stats.tokenExchanges).toBe(1);
    expect((await redis.keys('merchant-stablecoin:token:*')).filter((k) => TOKEN_KEY.test(k))).toHaveLength(1);
    expect(lines).toEqual([]);

    await redisServer.stop();

    // A revoked token forces a renewal while Redis is down; writes go through the limiter.
    sandbox.revokeTokens();
    const started = Date.now();
    await client.assets.list();
    for (let i = 0; i < 5; i++) await client.sandbox.faucet({ asset: 'USDT', amount: '1' });
    await client
      .member('ext-fallback')
      .balances.list()
      .catch(() => undefined);
    const env = JSON.stringify({
      event_id: 'evt_fallback_1',
      event_type: 'card.activated',
      created_at: '2026-09-01T10:00:00Z',
      merchant_id: 'mch_x',
      livemode: false,
      data: { object: 'card', id: 'crd_1', external_member_id: 'ext-1', status: 'active', status_version: 1 },
    });
    const headers = { 'content-type': 'application/json', 'z-event-id': 'evt_fallback_1', 'z-event-type': 'card.activated' };
    const first = await webhooks.handle(env, headers);
    const again = await webhooks.handle(env, headers);
    const elapsed = Date.now() - started;

    expect(sandbox.stats.tokenExchanges).toBe(2);
    // No event is processed without the fleet-wide check: the service delivers it again later.
    expect(first).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(again).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(processed).toBe(0);
    const redisLines = lines.filter((l) => l.includes('merchant-stablecoin/redis'));
    expect(redisLines).toHaveLength(1);
    expect(redisLines[0]).toMatch(/^warn merchant-stablecoin\/redis: Redis unreachable/);
    expect(lines).toHaveLength(1);
    console.log(
      `[fleet] Redis stopped: 1 renewal + 7 calls + 2 webhook deliveries in ${elapsed} ms, log lines: ${lines.length}\n  ${lines[0]}`,
    );

    // Redis back (empty, on the same port): the stores leave it alone for retryAfterMs after the
    // last failure, then the next operation tries it. Writes go on until the info line is logged
    // (the event); the test's time limit is the hang guard.
    redisServer = await startRedisServer(port);
    await redis.ping().catch(() => undefined);
    while (!lines.some((l) => l.startsWith('info'))) {
      await sleep(common.retryAfterMs);
      await client.sandbox.faucet({ asset: 'USDT', amount: '1' });
    }
    expect(lines.filter((l) => l.startsWith('info'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('warn'))).toHaveLength(1);
    expect((await redis.keys('merchant-stablecoin:rate:*:orders')).length).toBe(1);
  }, 60_000);

  it('Redis never reachable (connection refused, no offline queue): the first call succeeds at once', async () => {
    const port = await freePort();
    const redis = new Redis({ port, host: '127.0.0.1', enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => 120_000 });
    redis.on('error', () => undefined);
    cleanups.push(() => redis.disconnect());
    const { logger, lines } = capture();
    const sandbox = createSandbox();
    const client = sandbox.client({ tokenStore: new RedisTokenStore({ redis, logger }), limiter: new RedisRateLimiter({ redis, logger }) });
    // Redis would be retried only after 2 minutes: calls that waited for it would outlive the
    // test's time limit, so settling at all shows they went on without it.
    await client.assets.list();
    await client.sandbox.faucet({ asset: 'USDT', amount: '1' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn merchant-stablecoin\/redis: Redis unreachable/);
  });
});

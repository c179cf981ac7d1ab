/**
 * Issue 24, points 4 and 5, on a real redis-server: the fleet runs as the least-privilege user
 * whose ACL line docs/fleet.md gives (read from the document, so the two cannot drift): ten cold
 * clients make one token exchange, each expiry one more, and the rate limits are counted in Redis
 * for all of them. A store whose prefix the user is not granted is told NOPERM, reported as
 * NOPERM (code, command, key), never as "unreachable", and no token reaches a log line. Round
 * trips of a warm call are counted by Redis itself (INFO commandstats). The intent journal (issue
 * 27) records, claims and settles as that user, and under a prefix it is not granted refuses the
 * money-moving call before sending, with the NOPERM as its cause.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../../src/core/telemetry/logger.js';
import { CallInterruptedError, type IntentJournal, type MerchantClient, type MerchantSdkError } from '../../src/index.js';
import { RedisEventStore, RedisJournal, RedisRateLimiter, RedisStoreError, RedisTokenStore } from '../../src/redis/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { envelope, headersFor } from '../webhooks/helpers.js';
import { documentedAcl } from './helpers/acl.js';
import { bucketKey, TOKEN_KEY } from './helpers/keys.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';

const PASSWORD = 'acl-test-password-9f2c';

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (m: string, f?: LogFields) => lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
  return { logger: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

/** Calls of each command Redis has served so far (INFO commandstats), read as the admin. */
async function commandCalls(admin: Redis): Promise<Record<string, number>> {
  const info = String(await admin.info('commandstats'));
  const out: Record<string, number> = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

describe.skipIf(REDIS_SERVER === undefined)('the fleet as the ACL user of docs/fleet.md (real redis-server)', () => {
  let server: RedisServer;
  let admin: Redis;
  const connections: Redis[] = [];
  const asFleetUser = (): Redis => {
    const r = new Redis({
      port: server.port,
      host: '127.0.0.1',
      username: 'merchant-stablecoin',
      password: PASSWORD,
      maxRetriesPerRequest: 1,
    });
    r.on('error', () => undefined);
    connections.push(r);
    return r;
  };

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
    expect(await admin.call('ACL', 'SETUSER', 'merchant-stablecoin', ...documentedAcl(PASSWORD))).toBe('OK');
  });
  afterAll(async () => {
    for (const c of connections) c.disconnect();
    await admin?.quit().catch(() => undefined);
    await server?.stop();
  });

  it('ten cold clients make one token exchange, one per expiry after it, and share the rate limits; nothing is refused', async () => {
    const sandbox = createSandbox();
    const { logger, lines } = capture();
    const account = sandbox.credentials.clientId;
    const clients: MerchantClient[] = Array.from({ length: 10 }, () => {
      const redis = asFleetUser();
      return sandbox.client({
        tokenStore: new RedisTokenStore({ redis, logger, commandTimeoutMs: 60_000, lockWaitMs: 120_000 }),
        limiter: new RedisRateLimiter({ redis, logger, account, commandTimeoutMs: 60_000 }),
      });
    });
    // Cold: each needs a token and has none, all at once.
    await Promise.all(clients.map((c) => c.assets.list()));
    const cold = sandbox.stats.tokenExchanges;
    expect(cold).toBe(1);

    // Twenty writes over the ten clients: every one counted in the shared window, once.
    await Promise.all(
      clients.flatMap((c) => [c.sandbox.faucet({ asset: 'USDT', amount: '1' }), c.sandbox.faucet({ asset: 'USDT', amount: '1' })]),
    );
    expect(await admin.zcard(bucketKey(account, 'orders'))).toBe(20);

    // Two expiries: the service's clock moves past the token's 30 minutes; every client's next call meets it.
    const perExpiry: number[] = [];
    for (let i = 0; i < 2; i++) {
      const before = sandbox.stats.tokenExchanges;
      sandbox.clock.advance(31 * 60_000);
      await Promise.all(clients.map((c) => c.assets.list()));
      perExpiry.push(sandbox.stats.tokenExchanges - before);
    }
    expect(perExpiry).toEqual([1, 1]);
    // Every read attempt the service received (those refused with an expired token included) was counted once in Redis.
    const reads = sandbox.requests.filter((r) => r.method === 'GET').length;
    expect(await admin.zcard(bucketKey(account, 'reads'))).toBe(reads);

    expect(lines).toEqual([]);
    const keys = await admin.keys('*');
    expect(keys.filter((k) => TOKEN_KEY.test(k))).toHaveLength(1);
    expect(keys.every((k) => k.startsWith('merchant-stablecoin:'))).toBe(true);
    console.log(
      `[fleet] ACL user, 10 cold clients: ${cold} token exchange; per expiry: ${perExpiry.join(', ')}; counted in Redis: 20 of 20 writes, ${reads} of ${reads} reads`,
    );
    await Promise.all(clients.map((c) => c.close()));
  });

  it('a warm call costs one Redis round trip (counted by Redis: INFO commandstats), the limiter’s EVALSHA', async () => {
    const sandbox = createSandbox();
    const redis = asFleetUser();
    const client = sandbox.client({
      tokenStore: new RedisTokenStore({ redis, commandTimeoutMs: 60_000 }),
      limiter: new RedisRateLimiter({ redis, account: 'warm-calls', commandTimeoutMs: 60_000 }),
    });
    await client.assets.list(); // cold: token and scripts loaded
    const before = await commandCalls(admin);
    const CALLS = 20;
    for (let i = 0; i < CALLS; i++) await client.assets.list();
    const after = await commandCalls(admin);
    const delta = (name: string): number => (after[name] ?? 0) - (before[name] ?? 0);
    // Top-level commands the stores send (the scripts' own calls are counted under their names too, so not summed here).
    const roundTrips = { evalsha: delta('evalsha'), eval: delta('eval'), get: delta('get'), set: delta('set'), zrem: delta('zrem') };
    expect(roundTrips).toEqual({ evalsha: CALLS, eval: 0, get: 0, set: 0, zrem: 0 });
    console.log(
      `[fleet] warm calls: ${CALLS} calls → ${roundTrips.evalsha} EVALSHA, nothing else: ${roundTrips.evalsha / CALLS} Redis round trip per warm call`,
    );
    await client.close();
  });

  it('a prefix the user is not granted: NOPERM reported as NOPERM with the command and key, never as unreachable, and no token in any line', async () => {
    const sandbox = createSandbox();
    const { logger, lines } = capture();
    const redis = asFleetUser();
    const client = sandbox.client({
      tokenStore: new RedisTokenStore({ redis, logger, prefix: 'other-app', commandTimeoutMs: 60_000 }),
      limiter: new RedisRateLimiter({ redis, logger, account: 'granted', commandTimeoutMs: 60_000 }),
    });
    // The call still succeeds: a payment never fails on the cache's configuration.
    await client.assets.list();
    await client.assets.list();
    const errors = lines.filter((l) => l.startsWith('error '));
    expect(errors.length).toBeGreaterThanOrEqual(1);
    for (const line of errors) {
      expect(line).toMatch(
        /^error merchant-stablecoin\/redis: Redis refused (GET|SET|EVALSHA) on other-app:token:\{[0-9a-f]{32}\}(:lock)?: NOPERM /,
      );
      expect(line).toContain('"code":"NOPERM"');
    }
    expect(lines.some((l) => /unreachable|cannot serve/.test(l))).toBe(false);
    // The limiter on the same connection, under the granted prefix, still counts in Redis.
    expect(await admin.zcard(bucketKey('granted', 'reads'))).toBe(2);
    // The token the service issued never appears in a line.
    const issued = sandbox.requests.find((r) => r.headers['x-auth-token'] !== undefined)!.headers['x-auth-token']!;
    const token = String(issued).replace(/^Bearer /, '');
    expect(token.length).toBeGreaterThan(10);
    expect(lines.join('\n')).not.toContain(token);

    // The event store throws it (the receiver answers 503, nothing processed) with code, command and key.
    const store = new RedisEventStore({ redis, prefix: 'other-app', logger: {} });
    const err = await Promise.resolve(store.claim('evt_noperm', 60_000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisStoreError);
    expect(err).toMatchObject({ kind: 'misconfigured', code: 'NOPERM', command: 'EVALSHA', key: 'other-app:webhook-event:evt_noperm' });
    let processed = 0;
    const handler = createWebhookHandler({ store, logger: {}, onEvent: () => void processed++ });
    const env = envelope('card.activated', { object: 'card', id: 'crd_1', status: 'active' });
    expect(await handler.handle(JSON.stringify(env), headersFor(env))).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(processed).toBe(0);
    console.log(`[fleet] NOPERM reported as: ${(err as Error).message}`);
    await client.close();
  });

  it('the intent journal as this user: recorded, settled and recovered; under a prefix it is not granted, the call is refused before sending with NOPERM as its cause', async () => {
    const sandbox = createSandbox();
    const { logger, lines } = capture();
    const redis = asFleetUser();
    const journal = new RedisJournal({ redis, logger, commandTimeoutMs: 60_000 });
    // The first settle is lost, as when a process dies between the answer and the settle.
    let lostSettles = 1;
    const losing: IntentJournal = {
      record: (intent) => journal.record(intent),
      settle: (scope, key) => (lostSettles-- > 0 ? Promise.resolve() : journal.settle(scope, key)),
      claim: (request) => journal.claim(request),
      openAfter: (request) => journal.openAfter(request),
    };
    const before = await commandCalls(admin);
    const client = sandbox.client({ journal: losing });
    const credited = await client.sandbox.faucet({ asset: 'USDT', amount: '2' }).withResponse();
    await client.sandbox.faucet({ asset: 'USDT', amount: '3' }); // recorded and settled
    const report = await client.recover({ minAgeMs: 0 });
    expect(report.intents).toHaveLength(1);
    expect(report.intents[0]).toMatchObject({ outcome: 'resent', settled: true, intent: { key: credited.response.idempotencyKey } });
    // The young intents are listed as this user too (ZCOUNT): none are left.
    expect(report.leftForLater).toEqual({ count: 0, keys: [], eligibleAt: expect.any(Number) as number });
    expect((report.intents[0] as { response: { replayed: boolean } }).response.replayed).toBe(true);
    const faucets = sandbox.requests.filter((r) => r.path === '/v1/sandbox/faucet');
    expect(faucets.filter((r) => r.headers['x-idempotency-key'] === credited.response.idempotencyKey)).toHaveLength(2);
    expect(faucets).toHaveLength(3);
    // Every command of the journal's scripts ran as this user, and nothing is left open.
    const after = await commandCalls(admin);
    for (const command of ['hsetnx', 'hget', 'hset', 'hdel', 'zadd', 'zrem', 'zrangebyscore', 'zcount', 'time'])
      expect((after[command] ?? 0) - (before[command] ?? 0), command).toBeGreaterThan(0);
    const journalKeys = await admin.keys('*journal*');
    expect(journalKeys.every((k) => /^merchant-stablecoin:journal:\{[0-9a-f]{32}\}:(intents|open|claims)$/.test(k))).toBe(true);
    expect(
      await admin.call(
        'HLEN',
        journalKeys.find((k) => k.endsWith(':intents'))!,
      ),
    ).toBe(0);
    expect(lines).toEqual([]);

    // Under a prefix the user is not granted: refused before sending, the NOPERM named as what it is.
    const refused = sandbox.client({ journal: new RedisJournal({ redis, logger, prefix: 'other-app', commandTimeoutMs: 60_000 }) });
    const sent = sandbox.requests.length;
    const err = (await Promise.resolve(refused.sandbox.faucet({ asset: 'USDT', amount: '1' })).catch(
      (e: unknown) => e,
    )) as MerchantSdkError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.call).toMatchObject({ sent: 'no', attempts: 0 });
    expect(err.cause).toBeInstanceOf(RedisStoreError);
    expect(err.cause).toMatchObject({ kind: 'misconfigured', code: 'NOPERM', command: 'EVALSHA' });
    expect((err.cause as RedisStoreError).key).toMatch(/^other-app:journal:\{[0-9a-f]{32}\}:intents$/);
    expect(sandbox.requests.length).toBe(sent);
    const errors = lines.filter((l) => l.startsWith('error '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^error merchant-stablecoin\/redis: Redis refused EVALSHA on other-app:journal:\{[0-9a-f]{32}\}:intents: NOPERM /,
    );
    expect(lines.some((l) => /unreachable|cannot serve/.test(l))).toBe(false);
    // Calls that move no funds go on.
    await refused.assets.list();
    console.log(
      `[fleet] ACL user, intent journal: 1 intent recovered (replayed), NOPERM under another prefix: ${(err.cause as Error).message}`,
    );
    await Promise.all([client.close(), refused.close()]);
  });
});

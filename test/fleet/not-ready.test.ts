/**
 * Issue 39, item 5, on real processes: Redis unreachable from the start. The merchant's ioredis
 * client keeps its defaults (offline queue on, reconnecting for ever), so a command handed to it
 * before its connection is ready would wait in its queue and land whenever Redis comes up. The
 * intent journal's record and the event store's claim are never handed over before `ready`:
 * the money-moving call is refused before sending (`sent: 'no'`, the store's error as cause),
 * the delivery gets 503, and once a server starts on that port nothing of them appears in it.
 * A healthy client's first call, made during its handshake, goes through.
 *
 * No timing threshold: a port nothing listens on never becomes ready, however slow the machine;
 * "later" is proven by the order of one connection (a PING sent after the client is ready
 * answers after everything its offline queue held).
 */
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../../src/core/telemetry/logger.js';
import { AbortError, CallInterruptedError, type IntentJournal, type MerchantSdkError, TimeoutError } from '../../src/index.js';
import { RedisEventStore, RedisJournal, RedisStoreError } from '../../src/redis/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { envelope, headersFor } from '../webhooks/helpers.js';
import { freePort, REDIS_SERVER, startRedisServer } from './helpers/redis-server.js';

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (m: string, f?: LogFields) => lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
  return { logger: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

const failure = (p: PromiseLike<unknown>): Promise<MerchantSdkError> =>
  Promise.resolve(p).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as MerchantSdkError,
  );

const faucets = (sandbox: Sandbox): number => sandbox.requests.filter((r) => r.path === '/v1/sandbox/faucet').length;

describe.skipIf(REDIS_SERVER === undefined)('Redis unreachable from the start (real redis-server started afterwards)', () => {
  const cleanups: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** An ioredis client with its defaults, on a port nothing listens on (yet). */
  async function unreachable(): Promise<{ port: number; redis: Redis }> {
    const port = await freePort();
    const redis = new Redis({ port, host: '127.0.0.1' });
    redis.on('error', () => undefined);
    cleanups.push(() => redis.disconnect());
    return { port, redis };
  }

  /**
   * Starts a server on `port` and returns its keys once `redis` is ready and has answered a PING
   * sent after everything it may have queued (one connection keeps the order).
   */
  async function keysOnceUp(port: number, redis: Redis): Promise<string[]> {
    const server = await startRedisServer({ port });
    cleanups.push(() => server.stop());
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    expect(await redis.call('PING')).toBe('PONG');
    const admin = new Redis(server.url);
    cleanups.push(() => admin.disconnect());
    return admin.keys('*');
  }

  it('the first money-moving call is refused before sending (sent: no, the store error as cause); its record never lands later', async () => {
    const { port, redis } = await unreachable();
    const sandbox = createSandbox();
    const { logger, lines } = capture();
    const client = sandbox.client({ journal: new RedisJournal({ redis, logger, commandTimeoutMs: 200 }), logger, maxRetries: 0 });
    cleanups.push(() => client.close());

    const err = await failure(client.sandbox.faucet({ asset: 'USDT', amount: '5' }));
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.call).toMatchObject({ sent: 'no', attempts: 0, status: undefined });
    expect(err.cause).toBeInstanceOf(RedisStoreError);
    expect(err.cause).toMatchObject({ kind: 'unreachable', command: 'EVALSHA', executed: false });
    // Refused when its connection attempt failed, or at the store's bound, whichever comes first.
    expect((err.cause as Error).message).toMatch(
      /(the connection closed before it was ready|the connection was not ready within 200 ms) \(status \w+\); nothing was sent/,
    );
    // Nothing reached the service, and the outage is logged once, as an outage.
    expect(faucets(sandbox)).toBe(0);
    expect(lines.filter((l) => l.startsWith('warn merchant-stablecoin/redis: Redis unreachable'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('warn journal: the intent could not be recorded; the call was not sent'))).toHaveLength(1);
    expect(lines.some((l) => l.startsWith('error'))).toBe(false);

    // Redis starts on that port: the client connects, and no record arrives with it.
    expect(await keysOnceUp(port, redis)).toEqual([]);
    expect(faucets(sandbox)).toBe(0);
    expect(sandbox.stats.tokenExchanges).toBeLessThanOrEqual(1);
  });

  it("a call that ends while its record waits for the handshake (the caller's abort, the call's deadline) is refused as not sent, and the record is never sent", async () => {
    // A server that accepts the connection and does not answer (stopped with SIGSTOP): the client
    // stays in its handshake, neither ready nor closed, until the server resumes.
    const server = await startRedisServer();
    cleanups.push(() => server.stop());
    server.signal('SIGSTOP');
    const redis = new Redis(server.url);
    redis.on('error', () => undefined);
    cleanups.push(() => redis.disconnect());
    const sandbox = createSandbox();
    // The store's own bound is far away: what ends the wait is the call.
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 120_000 });
    let recording!: () => void;
    const records: Array<Promise<void>> = [];
    const watched: IntentJournal = {
      record: (intent) => {
        const p = journal.record(intent);
        records.push(p.catch(() => undefined));
        recording();
        return p;
      },
      settle: (scope, key) => journal.settle(scope, key),
      claim: (request) => journal.claim(request),
    };
    const client = sandbox.client({ journal: watched, logger: {}, maxRetries: 0 });
    cleanups.push(() => client.close());
    await client.assets.list(); // the token first: the money-moving call reaches its record at once

    // The caller aborts once the record is waiting.
    const controller = new AbortController();
    const waiting = new Promise<void>((resolve) => (recording = resolve));
    const aborted = failure(client.sandbox.faucet({ asset: 'USDT', amount: '1' }, { signal: controller.signal }));
    await waiting;
    controller.abort();
    const byAbort = await aborted;
    expect(byAbort).toBeInstanceOf(AbortError);
    expect(byAbort.call).toMatchObject({ sent: 'no', attempts: 0 });

    // The call's own deadline passes while the record waits.
    const timedOut = await failure(client.sandbox.faucet({ asset: 'USDT', amount: '2' }, { timeoutMs: 1500 }));
    expect(timedOut).toBeInstanceOf(TimeoutError);
    expect(timedOut.call).toMatchObject({ sent: 'no', attempts: 0 });
    expect(records).toHaveLength(2);
    // Both records ended unsent (stopped by the settle of their call) while the server is stopped.
    await Promise.all(records);
    expect(redis.status).not.toBe('ready');
    expect(faucets(sandbox)).toBe(0);

    // The server resumes: the handshake completes, and no record follows it.
    server.signal('SIGCONT');
    await new Promise((resolve) => redis.once('ready', resolve));
    expect(await redis.call('PING')).toBe('PONG');
    expect(await redis.keys('*')).toEqual([]);
  });

  it('a webhook delivery is answered 503 unprocessed, its claim never lands later, and the redelivery is processed once', async () => {
    const { port, redis } = await unreachable();
    const { logger, lines } = capture();
    let processed = 0;
    const handler = createWebhookHandler({
      store: new RedisEventStore({ redis, logger, commandTimeoutMs: 200, retryAfterMs: 1 }),
      logger: {},
      onEvent: () => void processed++,
    });
    const env = envelope('card.activated', { object: 'card', id: 'crd_1', status: 'active' });
    expect(await handler.handle(JSON.stringify(env), headersFor(env))).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(processed).toBe(0);
    expect(lines.filter((l) => l.startsWith('warn merchant-stablecoin/redis: Redis unreachable'))).toHaveLength(1);

    // A claim that landed late would hold the event "in progress" for its lease: none did.
    expect(await keysOnceUp(port, redis)).toEqual([]);
    expect(await handler.handle(JSON.stringify(env), headersFor(env))).toMatchObject({ status: 200 });
    expect(await handler.handle(JSON.stringify(env), headersFor(env))).toMatchObject({ status: 200, outcome: 'duplicate' });
    expect(processed).toBe(1);
  });

  it("a healthy client's first calls, made during its handshake, go through: recorded, sent once, settled; a delivery claimed", async () => {
    const server = await startRedisServer();
    cleanups.push(() => server.stop());
    const redis = new Redis(server.url);
    redis.on('error', () => undefined);
    cleanups.push(() => redis.disconnect());
    const sandbox = createSandbox();
    const { logger, lines } = capture();
    const client = sandbox.client({ journal: new RedisJournal({ redis, logger }) });
    cleanups.push(() => client.close());
    let processed = 0;
    const handler = createWebhookHandler({ store: new RedisEventStore({ redis, logger }), logger: {}, onEvent: () => void processed++ });
    const env = envelope('card.activated', { object: 'card', id: 'crd_1', status: 'active' });

    // Nothing has been awaited since the client was created: it is still connecting.
    expect(redis.status).not.toBe('ready');
    const [credit, delivery] = await Promise.all([
      client.sandbox.faucet({ asset: 'USDT', amount: '3' }).withResponse(),
      handler.handle(JSON.stringify(env), headersFor(env)),
    ]);
    expect(delivery).toMatchObject({ status: 200 });
    expect(processed).toBe(1);
    const sent = sandbox.requests.filter((r) => r.path === '/v1/sandbox/faucet');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['x-idempotency-key']).toBe(credit.response.idempotencyKey);
    // Recorded and settled: the scope's intents hash exists no more (HDEL of its only field).
    expect(await redis.keys('merchant-stablecoin:journal:*')).toEqual([]);
    expect(lines).toEqual([]);
  });
});

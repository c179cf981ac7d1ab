/**
 * Issue 15, case 9 against a real redis-server: a 429 on one member's QR quote pauses that
 * member's quotes across the fleet, and nothing else of the orders bucket; a bank-search 429
 * pauses the bank search only. Two clients stand for two instances sharing one Redis; the service
 * is a hostile loopback server answering 429 with a Retry-After of a minute.
 */
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AbortError, type MerchantClient } from '../../src/index.js';
import { Decimal } from '../../src/money.js';
import { RedisRateLimiter, type RedisClientLike } from '../../src/redis/index.js';
import * as scripts from '../../src/redis/scripts.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';
import { SAMPLES } from '../resources/samples.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from './helpers/redis-server.js';

const limited = { ...apiError(429, 'rate_limited', { retry_after: 60 }), headers: { 'retry-after': '60' } };
const NO_FALLBACK = { commandTimeoutMs: 120_000 } as const;

describe.skipIf(REDIS_SERVER === undefined)('case 9 on Redis: a 429 pauses only its (bucket, sub-limit) key fleet-wide', () => {
  let redisServer: RedisServer;
  let wire: WireServer;
  const connections: Redis[] = [];
  const clients: MerchantClient[] = [];
  const connect = (): Redis => {
    const r = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
    connections.push(r);
    return r;
  };

  /** A connection whose acquire-script answers a test can wait for (an event, not a sleep). */
  function observed(redis: Redis): { client: RedisClientLike; waited: Promise<void> } {
    let onWait!: () => void;
    const waited = new Promise<void>((resolve) => (onWait = resolve));
    return {
      waited,
      client: {
        async call(command, ...args) {
          const reply = await redis.call(command, ...args);
          if (command === 'EVALSHA' && String(args[0]) === scripts.ACQUIRE.sha && Number(reply) > 0) onWait();
          return reply;
        },
      },
    };
  }

  beforeAll(async () => {
    redisServer = await startRedisServer();
    const admin = connect();
    for (const script of Object.values(scripts)) await admin.call('SCRIPT', 'LOAD', script.source);
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await wire?.close();
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
    await redisServer?.stop();
  });

  const sent = (method: string, path: string, member?: string): number =>
    wire
      .calls()
      .filter((c) => c.method === method && c.url.startsWith(path) && (member === undefined || c.headers['x-on-behalf-of'] === member))
      .length;

  async function fleet(account: string) {
    wire = await startWireServer();
    wire.on('POST', '/v1/qrpay/quotes', (req) =>
      req.headers['x-on-behalf-of'] === 'm_1' ? limited : { body: SAMPLES['member.qrpay.quote']!.reply },
    );
    wire.on('POST', '/v1/withdrawals', { status: 201, body: SAMPLES['member.withdrawals.create']!.reply });
    let searches = 0;
    wire.on('GET', '/v1/remit/swift-search', () => (searches++ === 0 ? limited : { body: SAMPLES['remittances.swiftSearch']!.reply }));
    wire.on('GET', '/v1/balances', { body: { data: [], next_cursor: null, has_more: false } });
    const connA = connect();
    const b = observed(connect());
    const a = wireClient(wire.url, { maxRetries: 0, limiter: new RedisRateLimiter({ redis: connA, account, ...NO_FALLBACK }) });
    const other = wireClient(wire.url, { maxRetries: 0, limiter: new RedisRateLimiter({ redis: b.client, account, ...NO_FALLBACK }) });
    clients.push(a, other);
    return { a, other, connA, waited: b.waited };
  }

  const quote = (c: MerchantClient, member: string, signal?: AbortSignal) =>
    c.member(member).qrpay.quote(
      {
        funding_source: 'member',
        code_value: '000201',
        currency: 'THB',
        amount: '350.00',
        preferred_asset: 'USDT',
        payer: { custName: 'A' },
      },
      signal ? { signal } : undefined,
    );

  it("instance A's QR-quote 429 for m_1: instance B still sends m_2's quote and a withdrawal; B's m_1 quote waits", async () => {
    const { a, other, connA, waited } = await fleet('cid_sub_qr');
    await expect(quote(a, 'm_1')).rejects.toMatchObject({ code: 'rate_limited' });
    await connA.ping(); // A's pause script ran before this answer on the same connection

    await expect(quote(other, 'm_2')).resolves.toBeDefined();
    await expect(
      other.member('m_9').withdrawals.create({ asset: 'USDT', amount: new Decimal('25.50'), to_address: 'TQ1abc' }),
    ).resolves.toBeDefined();
    const controller = new AbortController();
    const paused = quote(other, 'm_1', controller.signal).then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await waited; // Redis answered B's acquire with a wait: the pause holds it
    controller.abort(new Error('test over'));
    expect(await paused).toBeInstanceOf(AbortError);
    expect(sent('POST', '/v1/qrpay/quotes', 'm_1')).toBe(1);
    expect(sent('POST', '/v1/qrpay/quotes', 'm_2')).toBe(1);
    expect(sent('POST', '/v1/withdrawals')).toBe(1);
  });

  it("instance A's bank-search 429: instance B's other reads flow, its bank search waits", async () => {
    const { a, other, connA, waited } = await fleet('cid_sub_search');
    await expect(a.remittances.swiftSearch({ q: 'DEUTDEFF', country: 'DE' })).rejects.toMatchObject({ code: 'rate_limited' });
    await connA.ping();
    await expect(other.member('m_1').balances.list()).resolves.toBeDefined();
    const controller = new AbortController();
    const paused = other.remittances.swiftSearch({ q: 'DEUTDEFF', country: 'DE' }, { signal: controller.signal }).then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await waited;
    controller.abort(new Error('test over'));
    expect(await paused).toBeInstanceOf(AbortError);
    expect(sent('GET', '/v1/remit/swift-search')).toBe(1);
    expect(sent('GET', '/v1/balances')).toBe(1);
  });
});

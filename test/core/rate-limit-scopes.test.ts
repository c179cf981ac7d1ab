/**
 * Issue 15, case 9: rate limits are keyed by (bucket, sub-limit). A 429 on one member's QR quote
 * (the spec's 30 per member per 60 s) pauses only that member's quotes, not the merchant's other
 * writes of the orders bucket; a 429 on the bank search (its own 300 a minute) pauses only the
 * bank search, not every read. Against a hostile loopback server that answers 429 with a
 * Retry-After of a minute: the calls that must flow complete, the paused one is still waiting
 * (nothing sent) when the test aborts it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, MemoryRateLimiter, type MerchantClient, type RequestLimiter } from '../../src/index.js';
import { Decimal } from '../../src/money.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';
import { SAMPLES } from '../resources/samples.js';

let server: WireServer;
let client: MerchantClient | undefined;
beforeEach(async () => {
  server = await startWireServer();
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  await server.close();
});

const limited = { ...apiError(429, 'rate_limited', { retry_after: 60 }), headers: { 'retry-after': '60' } };

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
const withdraw = (c: MerchantClient) =>
  c.member('m_other').withdrawals.create({ asset: 'USDT', amount: new Decimal('25.50'), to_address: 'TQ1abc' });
const search = (c: MerchantClient, signal?: AbortSignal) =>
  c.remittances.swiftSearch({ q: 'DEUTDEFF', country: 'DE' }, signal ? { signal } : undefined);

const sent = (method: string, path: string, member?: string): number =>
  server
    .calls()
    .filter((c) => c.method === method && c.url.startsWith(path) && (member === undefined || c.headers['x-on-behalf-of'] === member))
    .length;

/** Starts a call that must stay paused; returns a function that aborts it and checks it never went out. */
function pending<T>(start: (signal: AbortSignal) => Promise<T>): () => Promise<void> {
  const controller = new AbortController();
  const call = start(controller.signal).then(
    () => 'resolved',
    (err: unknown) => err,
  );
  return async () => {
    controller.abort(new Error('test over'));
    expect(await call).toBeInstanceOf(AbortError);
  };
}

function replies(): void {
  server.on('POST', '/v1/qrpay/quotes', (req) =>
    req.headers['x-on-behalf-of'] === 'm_1' ? limited : { body: SAMPLES['member.qrpay.quote']!.reply },
  );
  server.on('POST', '/v1/withdrawals', { status: 201, body: SAMPLES['member.withdrawals.create']!.reply });
  let searches = 0;
  server.on('GET', '/v1/remit/swift-search', () => (searches++ === 0 ? limited : { body: SAMPLES['remittances.swiftSearch']!.reply }));
  server.on('GET', '/v1/balances', { body: { data: [], next_cursor: null, has_more: false } });
}

const LIMITERS: ReadonlyArray<readonly [string, () => RequestLimiter | undefined]> = [
  ['no limiter (the client pauses on its own)', () => undefined],
  ['MemoryRateLimiter', () => new MemoryRateLimiter()],
];

describe('case 9: a 429 pauses only its own (bucket, sub-limit) key', () => {
  for (const [name, make] of LIMITERS) {
    it(`${name}: one member's QR-quote 429 holds that member's quotes only; other members and other orders flow`, async () => {
      replies();
      const limiter = make();
      const c = (client = wireClient(server.url, { maxRetries: 0, ...(limiter ? { limiter } : {}) }));
      await expect(quote(c, 'm_1')).rejects.toMatchObject({ code: 'rate_limited' });

      const stillPaused = pending((signal) => quote(c, 'm_1', signal));
      await expect(quote(c, 'm_2')).resolves.toBeDefined();
      await expect(withdraw(c)).resolves.toBeDefined();
      expect(sent('POST', '/v1/qrpay/quotes', 'm_2')).toBe(1);
      expect(sent('POST', '/v1/withdrawals')).toBe(1);
      expect(sent('POST', '/v1/qrpay/quotes', 'm_1')).toBe(1); // the paused quote was never sent
      await stillPaused();
      if (limiter instanceof MemoryRateLimiter) {
        expect(limiter.usage('orders').pausedForMs).toBe(0);
        expect(limiter.usage('orders', 'qrpay_quotes:m_1').pausedForMs).toBeGreaterThan(0);
      }
    });

    it(`${name}: a bank-search 429 holds the bank search only; every other read flows`, async () => {
      replies();
      const limiter = make();
      const c = (client = wireClient(server.url, { maxRetries: 0, ...(limiter ? { limiter } : {}) }));
      await expect(search(c)).rejects.toMatchObject({ code: 'rate_limited' });
      const stillPaused = pending((signal) => search(c, signal));
      await expect(c.member('m_1').balances.list()).resolves.toBeDefined();
      expect(sent('GET', '/v1/balances')).toBe(1);
      expect(sent('GET', '/v1/remit/swift-search')).toBe(1);
      await stillPaused();
    });
  }

  it('a limiter sees the sub-key on acquire, settle and pause; calls without one see two arguments as before', async () => {
    replies();
    const seen: unknown[][] = [];
    const limiter: RequestLimiter = {
      acquire: (...args: unknown[]) => {
        seen.push(['acquire', ...args.filter((a) => a !== undefined && !(a instanceof AbortSignal))]);
        return Promise.resolve();
      },
      settle: (...args: unknown[]) => void seen.push(['settle', ...args]),
      pause: (...args: unknown[]) => void seen.push(['pause', ...args]),
    };
    const c = (client = wireClient(server.url, { maxRetries: 0, limiter }));
    await expect(quote(c, 'm_1')).rejects.toMatchObject({ code: 'rate_limited' });
    await withdraw(c);
    expect(seen).toEqual([
      ['acquire', 'orders', 'qrpay_quotes:m_1'],
      ['settle', 'orders', 'qrpay_quotes:m_1'],
      ['pause', 'orders', 60_000, 'qrpay_quotes:m_1'],
      ['acquire', 'orders'],
      ['settle', 'orders'],
    ]);
  });

  it('MemoryRateLimiter counts one member’s QR quotes on their own: the 31st in a window waits, another member’s does not', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 30; i++) await limiter.acquire('orders', undefined, 'qrpay_quotes:m_1');
    const controller = new AbortController();
    const waiting = limiter.acquire('orders', controller.signal, 'qrpay_quotes:m_1');
    await limiter.acquire('orders', undefined, 'qrpay_quotes:m_2');
    expect(limiter.usage('orders', 'qrpay_quotes:m_1')).toMatchObject({ used: 30, queued: 1, quota: 30 });
    expect(limiter.usage('orders')).toMatchObject({ used: 31 });
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });
});

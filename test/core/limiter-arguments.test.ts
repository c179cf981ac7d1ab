/**
 * What a plugged `RequestLimiter` is told (its contract, `src/core/limits/limiter.ts`): the client passes
 * `subKey` to `acquire`, `settle` and `pause` only when the call has one, so that a limiter
 * written before sub-limits existed sees exactly the arguments it was written for. Recorded with
 * each call's argument list, for a withdrawal (orders bucket) and a member's QR quote (its
 * `qrpay_quotes:<member>` sub-limit), each answered 429 once and then given up (no retries).
 * `acquire` always gets a signal: the call's deadline ends its wait, with or without the caller's.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { MerchantClient, RateLimitBucket, RequestLimiter } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
const seen: Array<[string, unknown[]]> = [];
const limiter: RequestLimiter = {
  acquire: (...args: [RateLimitBucket, AbortSignal?, string?]) => {
    seen.push(['acquire', args]);
    return Promise.resolve();
  },
  settle: (...args: [RateLimitBucket, string?]) => {
    seen.push(['settle', args]);
  },
  pause: (...args: [RateLimitBucket, number, string?]) => {
    seen.push(['pause', args]);
  },
};

beforeEach(async () => {
  seen.length = 0;
  server = await startWireServer();
  const limited = { ...apiError(429, 'rate_limited', { retry_after: 0 }), headers: { 'retry-after': '0' } };
  server.on('POST', '/v1/withdrawals', limited);
  server.on('POST', '/v1/qrpay/quotes', limited);
  client = wireClient(server.url, { limiter, maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

it('a call without a sub-limit gets no subKey argument at all; a sub-limited call gets it everywhere', async () => {
  await expect(client.member('m_1').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' })).rejects.toMatchObject({
    code: 'rate_limited',
  });
  const quote = {
    funding_source: 'member',
    code_value: '000201',
    currency: 'THB',
    amount: '350.00',
    preferred_asset: 'USDT',
    payer: { custName: 'A' },
  } as const;
  await expect(client.member('m_1').qrpay.quote(quote)).rejects.toMatchObject({ code: 'rate_limited' });
  expect(seen).toStrictEqual([
    ['acquire', ['orders', expect.any(AbortSignal)]],
    ['settle', ['orders']],
    ['pause', ['orders', 0]],
    ['acquire', ['orders', expect.any(AbortSignal), 'qrpay_quotes:m_1']],
    ['settle', ['orders', 'qrpay_quotes:m_1']],
    ['pause', ['orders', 0, 'qrpay_quotes:m_1']],
  ]);
  expect(server.calls()).toHaveLength(2);
});

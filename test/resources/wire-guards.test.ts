import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Decimal, InvalidArgumentError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { qrQuote } from '../schemas/fixtures.js';

let server: WireServer;
let client: MerchantClient;

beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/**
 * The call fails with InvalidArgumentError naming `argument`, and nothing reached the server: a
 * rejected promise from a method that returns one, a throw from a synchronous factory (`member()`).
 */
async function rejected(argument: string, call: () => unknown): Promise<void> {
  let thrown: unknown;
  try {
    await call();
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(InvalidArgumentError);
  expect((thrown as InvalidArgumentError).argument).toBe(argument);
  expect(server.requests).toHaveLength(0);
}

const m = () => client.member('ext-42');
type Any = never;

describe('member view', () => {
  it.each([
    ['', 'blank'],
    ['   ', 'blank after trim'],
    ['a\r\nx-evil: 1', 'CR/LF'],
    ['a\tb', 'tab'],
    ['a\u0000b', 'NUL'],
    ['a\u007fb', 'DEL'],
    ['用户', 'not Latin-1'],
  ])('rejects %j (%s) before any send', async (id) => {
    await rejected('memberId', () => client.member(id));
  });
  it('rejects a non-string at run time', async () => {
    await rejected('memberId', () => client.member(42 as Any));
  });
  it('keeps the id exactly as given', async () => {
    expect(client.member(' ext-1 ').memberId).toBe(' ext-1 ');
  });
});

describe('merchant conversion', () => {
  const base = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '100' };
  it.each([['q_1'], [''], [null], [undefined]])('rejects any presence of quote_id (%j)', async (value) => {
    await rejected('quote_id', () => client.merchant.conversions.create({ ...base, quote_id: value } as Any));
  });
  it('rejects the same asset on both sides, ignoring case', async () => {
    await rejected('to_asset', () => client.merchant.conversions.create({ ...base, to_asset: 'usdt' }));
  });
  it.each([['0'], ['-1'], ['1e3'], [' 1'], ['']])('rejects from_amount %j', async (amount) => {
    await rejected('from_amount', () => client.merchant.conversions.create({ ...base, from_amount: amount }));
  });
  it('rejects a number amount', async () => {
    await rejected('from_amount', () => client.merchant.conversions.create({ ...base, from_amount: 100 as Any }));
  });
});

describe('card activation', () => {
  it.each([['13/29'], ['00/29'], ['7/29'], ['07/2029'], ['0729'], [''], [' 07/29']])('rejects expiry %j', async (expiry) => {
    await rejected('expiry', () => m().cards.activate('crd_1', { expiry, pin: '1234' }));
  });
  it.each([[''], [undefined], [1234]])('rejects pin %j', async (pin) => {
    await rejected('pin', () => m().cards.activate('crd_1', { expiry: '07/29', pin: pin as Any }));
  });
  it('never echoes the PIN in an error message', async () => {
    const messages: string[] = [];
    for (const expiry of ['13/29', 'bad']) {
      try {
        // The guard refuses it before anything is sent; the call's promise rejects.
        await m().cards.activate('crd_1', { expiry, pin: '987654' });
      } catch (err) {
        messages.push(JSON.stringify(err) + String(err));
      }
    }
    expect(messages).toHaveLength(2);
    for (const text of messages) expect(text).not.toContain('987654');
  });
  it('accepts 01/.. and 12/..', async () => {
    server.on('POST', '/v1/cards/crd_1/activate', { body: { id: 'crd_1', status: 'active' } });
    await m().cards.activate('crd_1', { expiry: '01/30', pin: '0' });
    await m().cards.activate('crd_1', { expiry: '12/30', pin: '0' });
    expect(server.calls()).toHaveLength(2);
  });
});

describe('card limits', () => {
  it.each([['abc'], ['0.5'], ['0.99'], ['0.00'], ['-1'], ['1e3'], ['']])('rejects single %j', async (single) => {
    await rejected('single', () => m().cards.updateLimits('crd_1', { single }));
  });
  it('rejects a number', async () => {
    await rejected('daily', () => m().cards.updateLimits('crd_1', { daily: 5 as Any }));
  });
  it('rejects single > daily and daily > monthly when neither is 0', async () => {
    await rejected('daily', () => m().cards.updateLimits('crd_1', { single: '100.01', daily: '100' }));
    await rejected('monthly', () => m().cards.updateLimits('crd_1', { daily: '500', monthly: new Decimal('499.99') }));
  });
  it('accepts 0 anywhere, exactly one unit, and equal levels', async () => {
    server.on('PATCH', '/v1/cards/crd_1/limits', { body: { id: 'crd_1', accepted: true } });
    await m().cards.updateLimits('crd_1', { single: '1', daily: '0', monthly: '1' });
    await m().cards.updateLimits('crd_1', { single: '1000', daily: '0' });
    await m().cards.updateLimits('crd_1', { single: '100', daily: '100', monthly: '100' });
    expect(server.calls().map((r) => r.body.toString())).toEqual([
      '{"single":"1","daily":"0","monthly":"1"}',
      '{"single":"1000","daily":"0"}',
      '{"single":"100","daily":"100","monthly":"100"}',
    ]);
  });
});

describe('withdrawal', () => {
  const base = { asset: 'USDT', amount: '1', to_address: 'T' };
  it('rejects an empty or blank to_address and one over 200 characters', async () => {
    await rejected('to_address', () => m().withdrawals.create({ ...base, to_address: '' }));
    await rejected('to_address', () => m().withdrawals.create({ ...base, to_address: ' \t\n' }));
    await rejected('to_address', () => m().withdrawals.create({ ...base, to_address: 'x'.repeat(201) }));
  });
  it.each([['0'], ['0.000'], ['-5'], ['abc']])('rejects amount %j', async (amount) => {
    await rejected('amount', () => m().withdrawals.create({ ...base, amount }));
  });
  it('rejects a number amount', async () => {
    await rejected('amount', () => m().withdrawals.create({ ...base, amount: 25.5 as Any }));
  });
  it('accepts exactly 200 characters', async () => {
    server.on('POST', '/v1/withdrawals', {
      status: 201,
      body: { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '1', ledger_scale: 6, to_address: 'x'.repeat(200) },
    });
    await m().withdrawals.create({ ...base, to_address: 'x'.repeat(200) });
    expect(server.calls()).toHaveLength(1);
  });
});

describe('top-up declaration', () => {
  const base = { asset: 'USDT', amount: '1' };
  it('rejects more than 20 integer digits or 12 decimals, zero and negatives', async () => {
    await rejected('amount', () => client.merchant.topups.create({ ...base, amount: '1'.repeat(21) }));
    await rejected('amount', () => client.merchant.topups.create({ ...base, amount: '1.1234567890123' }));
    await rejected('amount', () => client.merchant.topups.create({ ...base, amount: '0' }));
    await rejected('amount', () => client.merchant.topups.create({ ...base, amount: '-1' }));
  });
  it('rejects reference_no over 64 characters and a channel that is not a string', async () => {
    await rejected('reference_no', () => client.merchant.topups.create({ ...base, reference_no: 'r'.repeat(65) }));
    await rejected('channel', () => client.merchant.topups.create({ ...base, channel: 1 as Any }));
  });
  it('sends any channel string as given: the service turns all but exactly "fiat" into chain, refusing none', async () => {
    server.on('POST', '/v1/merchant/topups', {
      status: 201,
      body: { id: 'u', asset: 'USDT', channel: 'chain', amount_text: '1', status: 'pending' },
    });
    for (const channel of ['FIAT', 'Fiat', 'wire', '', 'chain', 'fiat'])
      await client.merchant.topups.create({ ...base, channel: channel as Any });
    expect(server.calls().map((c) => c.body.toString())).toEqual(
      ['FIAT', 'Fiat', 'wire', '', 'chain', 'fiat'].map((channel) => JSON.stringify({ asset: 'USDT', channel, amount: '1' })),
    );
  });
  it('counts the 20 integer digits without leading zeros and sends the amount as given (a Decimal in fixed notation)', async () => {
    server.on('POST', '/v1/merchant/topups', {
      status: 201,
      body: { id: 'u', asset: 'USDT', channel: 'chain', amount_text: '1', status: 'pending' },
    });
    const padded = `${'0'.repeat(30)}${'9'.repeat(20)}.${'5'.repeat(12)}`;
    await client.merchant.topups.create({ ...base, amount: padded });
    await client.merchant.topups.create({ ...base, amount: '0007' });
    await client.merchant.topups.create({ ...base, amount: '00.5' });
    await client.merchant.topups.create({ ...base, amount: new Decimal(`000${'1'.repeat(20)}.25`) });
    expect(server.calls().map((c) => (JSON.parse(c.body.toString()) as { amount: string }).amount)).toEqual([
      padded,
      '0007',
      '00.5',
      `${'1'.repeat(20)}.25`,
    ]);
  });
  it('refuses 21 significant integer digits whatever the leading zeros', async () => {
    await rejected('amount', () => client.merchant.topups.create({ ...base, amount: `000${'1'.repeat(21)}` }));
  });
  it('accepts the limits exactly, keeping the amount text unchanged', async () => {
    server.on('POST', '/v1/merchant/topups', {
      status: 201,
      body: { id: 'u', asset: 'USDT', channel: 'chain', amount_text: 'x', status: 'pending' },
    });
    const amount = `${'9'.repeat(20)}.${'0'.repeat(12)}`;
    await client.merchant.topups.create({ ...base, amount, reference_no: 'r'.repeat(64) });
    expect(JSON.parse(server.calls()[0]!.body.toString())).toEqual({ asset: 'USDT', amount, reference_no: 'r'.repeat(64) });
  });
});

describe('QR quote', () => {
  it('sends an amount of 0 as given (the spec states no positivity rule for it: the service decides)', async () => {
    server.on('POST', '/v1/qrpay/quotes', { body: qrQuote });
    await m().qrpay.quote({ code_value: 'QR1', currency: 'THB', amount: '0' });
    await m().qrpay.quote({ code_value: 'QR1', currency: 'THB', amount: '0.00' });
    expect(server.calls().map((c) => c.body.toString())).toEqual([
      '{"code_value":"QR1","currency":"THB","amount":"0"}',
      '{"code_value":"QR1","currency":"THB","amount":"0.00"}',
    ]);
    expect(server.calls().map((c) => c.headers['x-idempotency-key'])).toEqual([undefined, undefined]);
  });
  it.each([['-1'], ['abc'], ['1e3'], ['']])('still rejects a malformed amount %j', async (amount) => {
    await rejected('amount', () => m().qrpay.quote({ code_value: 'QR1', amount }));
  });
});

describe('pagination limit', () => {
  it.each([[0], [1.5], [-1], ['10'], [1e21], [Number.POSITIVE_INFINITY]])('rejects limit %j', async (limit) => {
    await rejected('limit', () => client.reports.list({ limit: limit as Any }));
    await rejected('limit', () => m().remittances.list({ limit: limit as Any }));
    await rejected('limit', () => client.assets.list({ limit: limit as Any }));
  });
  it('accepts 1, 100, and above 100 as given (the service serves at most 100)', async () => {
    server.on('GET', '/v1/reports', { body: { data: [], next_cursor: null, has_more: false } });
    await client.reports.list({ limit: 1 });
    await client.reports.list({ limit: 100 });
    await client.reports.list({ limit: 101 });
    await client.reports.list({ limit: Number.MAX_SAFE_INTEGER + 1 });
    expect(server.calls().map((r) => r.url)).toEqual([
      '/v1/reports?limit=1',
      '/v1/reports?limit=100',
      '/v1/reports?limit=101',
      '/v1/reports?limit=9007199254740992',
    ]);
  });
});

describe('ids and other checks', () => {
  it.each([[''], ['  ']])('rejects path id %j', async (id) => {
    await rejected('remittanceId', () => m().remittances.cancel(id));
    await rejected('cardId', () => m().cards.unfreeze(id));
    await rejected('reportId', () => client.reports.retrieve(id));
    await rejected('productId', () => m().cards.productQuote(id));
  });
  it('rejects an empty bank search, reason=close on card withdrawals, and a non-string new_total', async () => {
    await rejected('q', () => client.remittances.swiftSearch({ q: '' }));
    await rejected('reason', () => m().cards.withdraw('crd_1', { reason: 'close' }));
    await rejected('new_total', () => m().remittances.reconfirm('rmt_1', { new_total: 101.2 as Any }));
  });
  it('rejects a KYC profile that is not an object', async () => {
    await rejected('profile', () => m().kyc.submitApplication({ profile: null as Any }));
    await rejected('profile', () => m().kyc.submitApplication({ profile: [] as Any }));
  });
  it('rejects a faucet amount given as a number', async () => {
    await rejected('amount', () => client.sandbox.faucet({ asset: 'USDT', amount: 5 as Any }));
  });
});

describe('loose arguments refused before sending', () => {
  it('a KYC card product id that is not a string, a status query value that is an object, a list cursor that is not a string', async () => {
    await rejected('card_product_id', () => m().kyc.submitApplication({ card_product_id: 5 as Any, profile: {} }));
    await rejected('x', () => m().kyc.status({ x: { nested: true } as Any }));
    await rejected('cursor', () => client.reports.list({ cursor: 5 as Any }));
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

const setup = (opts: Parameters<typeof createSandbox>[0] = {}) => {
  const sb = createSandbox(opts);
  return { sb, c: new TestClient(sb, viaHandle(sb)) };
};

describe('sandbox faucet', () => {
  it('credits 10000 by default and repeats the same credit with duplicated: true', async () => {
    const { sb, c } = setup();
    const key = randomUUID();
    const first = await c.call('POST', '/v1/sandbox/faucet', { key, body: { asset: 'usdt' } });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ ok: true, asset: 'USDT', credited: '10000.000000', ledger_scale: 6 });
    expect(first.json.journal_id).toMatch(/^jrn_/);
    expect(first.json.duplicated).toBeUndefined();
    const again = await c.call('POST', '/v1/sandbox/faucet', { key, body: { asset: 'usdt' } });
    expect(again.json).toMatchObject({ ...first.json, duplicated: true });
    expect(sb.state.merchant.prepaid['USDT']?.available).toBe('10000.000000');
    // Still recognised after the 24 h idempotency window: nothing posts twice.
    sb.clock.advance(25 * 60 * 60 * 1000);
    c.forget();
    const late = await c.call('POST', '/v1/sandbox/faucet', { key, body: { asset: 'usdt' } });
    expect(late.json).toMatchObject({ journal_id: first.json.journal_id, duplicated: true });
    expect(sb.state.countEffects('faucet.credit')).toBe(1);
  });

  it('limits one request to 1,000,000 units and checks the asset and precision', async () => {
    const { c } = setup();
    const over = await c.call('POST', '/v1/sandbox/faucet', { key: true, body: { asset: 'USDT', amount: '1000000.000001' } });
    expect(over.json).toMatchObject({ code: 'limit_exceeded', limit_type: 'single' });
    expect((await c.call('POST', '/v1/sandbox/faucet', { key: true, body: { asset: 'USDT', amount: '1000000' } })).status).toBe(200);
    expect((await c.call('POST', '/v1/sandbox/faucet', { key: true, body: { asset: 'XYZ' } })).json.code).toBe('asset_not_allowed');
    expect((await c.call('POST', '/v1/sandbox/faucet', { key: true, body: { asset: 'BTC', amount: '0.123456789' } })).json.code).toBe(
      'invalid_request',
    );
    expect((await c.call('POST', '/v1/sandbox/faucet', { body: { asset: 'BTC' } })).json.code).toBe('idempotency_key_required');
  });
});

describe('merchant conversions', () => {
  it('debits from_asset, credits to_asset at the price list with the fee on the to side', async () => {
    const { sb, c } = setup();
    sb.state.setPrepaid('USDT', { available: '1000' });
    const res = await c.call('POST', '/v1/merchant/conversions', {
      key: true,
      body: { from_asset: 'usdt', to_asset: 'USDC', from_amount: '100' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      from_asset: 'USDT',
      to_asset: 'USDC',
      from_amount: '100.000000',
      to_amount: '99.900000',
      rate: '1',
      fee_asset: 'USDC',
      fee_amount: '0.100000',
      ledger_scale_from: 6,
      ledger_scale_to: 6,
    });
    expect(res.json.id).toMatch(/^mcv_/);
    expect(res.json.created_at).toMatch(/\.\d{3}Z$/);
    expect(res.json.duplicated).toBeUndefined();
    expect(sb.state.merchant.prepaid).toMatchObject({ USDT: { available: '900.000000' }, USDC: { available: '99.900000' } });

    sb.state.setConversionPair('USDT', 'BTC', { fee_side: 'from', fee_rate: '0.01' });
    const btc = await c.call('POST', '/v1/merchant/conversions', {
      key: true,
      body: { from_asset: 'USDT', to_asset: 'BTC', from_amount: '600' },
    });
    // 1 % of 600 USDT is the fee; 594 USDT at 60000 buys 0.0099 BTC.
    expect(btc.json).toMatchObject({ fee_asset: 'USDT', fee_amount: '6.000000', to_amount: '0.00990000', ledger_scale_to: 8 });
  });

  it('refuses any presence of quote_id, same assets, a slippage floor miss and short funds', async () => {
    const { sb, c } = setup();
    sb.state.setPrepaid('USDT', { available: '50', queued: '20' });
    const conv = (body: Record<string, unknown>) =>
      c.call('POST', '/v1/merchant/conversions', { key: true, body: { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10', ...body } });
    for (const quote_id of [null, '', 'q_1', 0]) expect((await conv({ quote_id })).json.code).toBe('quote_lock_unsupported');
    expect((await conv({ to_asset: 'usdt' })).json.code).toBe('invalid_request');
    const floor = await conv({ min_to_amount: '9.991' });
    expect(floor.json.code).toBe('amount_out_of_range');
    expect((await conv({ min_to_amount: '9.99' })).status).toBe(201);
    // 40 available minus 20 queued leaves 20.
    expect((await conv({ from_amount: '25' })).json.code).toBe('merchant_insufficient_funds');
    sb.state.setConversionPair('USDT', 'USDC', { enabled: false });
    expect((await conv({})).json.code).toBe('product_not_available');
  });

  it('does not cache service_unavailable: the same key runs again once the line is back', async () => {
    const { sb, c } = setup();
    sb.state.setPrepaid('USDT', { available: '100' });
    sb.state.setLine('conversion', false);
    const key = randomUUID();
    const body = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' };
    expect((await c.call('POST', '/v1/merchant/conversions', { key, body })).json.code).toBe('service_unavailable');
    sb.state.setLine('conversion', true);
    const ok = await c.call('POST', '/v1/merchant/conversions', { key, body });
    expect(ok.status).toBe(201);
    expect(ok.headers['x-idempotent-replay']).toBeUndefined();
    // Other business failures are replayed.
    const k2 = randomUUID();
    expect((await c.call('POST', '/v1/merchant/conversions', { key: k2, body: { ...body, from_amount: '1000' } })).json.code).toBe(
      'merchant_insufficient_funds',
    );
    sb.state.setPrepaid('USDT', { available: '5000' });
    expect((await c.call('POST', '/v1/merchant/conversions', { key: k2, body: { ...body, from_amount: '1000' } })).json.code).toBe(
      'merchant_insufficient_funds',
    );
  });

  it('replays 201 within 24 h, then answers 200 duplicated: true from the funds layer', async () => {
    const { sb, c } = setup();
    sb.state.setPrepaid('USDT', { available: '100' });
    const key = randomUUID();
    const body = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' };
    const first = await c.call('POST', '/v1/merchant/conversions', { key, body });
    const replay = await c.call('POST', '/v1/merchant/conversions', { key, body });
    expect(replay.status).toBe(201);
    expect(replay.headers['x-idempotent-replay']).toBe('true');
    expect(replay.json.duplicated).toBeUndefined();
    sb.clock.advance(24 * 60 * 60 * 1000 + 1);
    c.forget();
    const late = await c.call('POST', '/v1/merchant/conversions', { key, body });
    expect(late.status).toBe(200);
    expect(late.json).toMatchObject({ id: first.json.id, duplicated: true });
    expect(sb.state.countEffects('conversion.execute')).toBe(1);
  });

  it('needs merchant_hosted custody', async () => {
    const { sb, c } = setup({ custody: 'platform' });
    sb.state.setPrepaid('USDT', { available: '100' });
    expect(
      (await c.call('POST', '/v1/merchant/conversions', { key: true, body: { from_asset: 'USDT', to_asset: 'USDC', from_amount: '1' } }))
        .json.code,
    ).toBe('product_not_available');
  });
});

describe('prepaid top-up declarations', () => {
  it('registers a pending declaration without moving balances', async () => {
    const { sb, c } = setup();
    const res = await c.call('POST', '/v1/merchant/topups', {
      key: true,
      body: { asset: 'usdt', amount: '00123.450', channel: 'FIAT', reference_no: 'R-1', note: 'wire' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ asset: 'USDT', channel: 'chain', amount_text: '00123.450', status: 'pending' });
    expect(res.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(
      (await c.call('POST', '/v1/merchant/topups', { key: true, body: { asset: 'USDT', amount: '1', channel: 'fiat' } })).json.channel,
    ).toBe('fiat');
    expect(sb.state.merchant.prepaid).toEqual({});
    const list = await c.call('GET', '/v1/merchant/topups');
    const first = list.json.data.find((t: { id: string }) => t.id === res.json.id);
    // The sandbox's prefix (31 characters), the reference, one space, the note.
    expect(first.note).toBe('【沙盒模拟】预付款充值银行回单号（商户申报，仅供对账与核验）：R-1 wire');
  });

  it('validates amount with invalid_fields and truncates the merged note to 300 characters', async () => {
    const { c } = setup();
    for (const amount of ['0', '1.1234567890123', '123456789012345678901', 'abc', 5]) {
      const res = await c.call('POST', '/v1/merchant/topups', { key: true, body: { asset: 'USDT', amount } });
      expect(res.json).toMatchObject({ code: 'invalid_fields', fields: [{ key: 'amount' }] });
    }
    expect((await c.call('POST', '/v1/merchant/topups', { key: true, body: { amount: '1' } })).json.code).toBe('invalid_request');
    expect((await c.call('POST', '/v1/merchant/topups', { key: true, rawBody: 'not json' })).json.code).toBe('invalid_request');
    expect(
      (await c.call('POST', '/v1/merchant/topups', { key: true, body: { asset: 'USDT', amount: '1', reference_no: 'x'.repeat(65) } })).json
        .code,
    ).toBe('invalid_fields');
    await c.call('POST', '/v1/merchant/topups', { key: true, body: { asset: 'USDT', amount: '1', note: 'n'.repeat(400) } });
    const list = await c.call('GET', '/v1/merchant/topups?limit=1');
    expect(list.json.data[0].note).toHaveLength(300);
  });
});

import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

const setup = (opts: Parameters<typeof createSandbox>[0] = {}) => {
  const sb = createSandbox(opts);
  return { sb, c: new TestClient(sb, viaHandle(sb)) };
};

describe('KYC', () => {
  it('submits L1, returns the existing application with 200, and refuses another product while pending', async () => {
    const { sb, c } = setup();
    const m = sb.state.seedMember();
    const first = await c.call('POST', '/v1/kyc/applications', {
      member: m.id,
      key: true,
      body: { profile: { first_name: 'A', last_name: 'B', nationality: 'SG' } },
    });
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ card_product_id: '', status: 'pending', level: 1 });
    expect(first.json.id).toMatch(/^kyc_/);
    const again = await c.call('POST', '/v1/kyc/applications', { member: m.id, key: true, body: { profile: { first_name: 'A' } } });
    expect(again.status).toBe(200);
    expect(again.json.id).toBe(first.json.id);
    const other = await c.call('POST', '/v1/kyc/applications', {
      member: m.id,
      key: true,
      body: { card_product_id: 'sbx_virtual_usd', profile: { x: 1 } },
    });
    expect(other.json.code).toBe('state_invalid');
    expect(
      (await c.call('POST', '/v1/kyc/applications', { member: m.id, key: true, body: { card_product_id: 'cpd_nope', profile: {} } })).json
        .code,
    ).toBe('card_product_not_found');
    sb.state.setKycResult(m.id, 'approved');
    const snap = await c.call('POST', '/v1/kyc/applications', {
      member: m.id,
      key: true,
      body: { card_product_id: 'cpd_sbx_virtual_usd', profile: {} },
    });
    expect(snap.json).toMatchObject({ status: 'approved', card_product_id: 'cpd_sbx_virtual_usd' });
    expect(snap.json.id).toMatch(/^cpkyc_sbx_virtual_usd_\d+$/);
    expect((await c.call('GET', '/v1/kyc', { member: m.id })).json).toMatchObject({ level: 1, l1_status: 'approved' });
  });

  it('binds quick KYC for a 10 USDT fee from prepayment, reuses with 200, caps at 5, and reports unpaid', async () => {
    const { sb, c } = setup();
    const m = sb.state.seedMember();
    const bind = (body: Record<string, unknown>) => c.call('POST', '/v1/kyc/quick', { member: m.id, key: true, body });
    expect((await bind({ email: 'a@example.test', country: 'SG' })).json.code).toBe('quick_kyc_unpaid');
    sb.state.setPrepaid('USDT', { available: '100' });
    const made = await bind({ email: ' A+1@Example.test ', country: 'SG' });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({ reused: false, remaining: 4, binding: { identity_issue_country: 'SG' } });
    expect(sb.state.merchant.prepaid['USDT']?.available).toBe('90.000000');
    const reused = await bind({ country: 'SG' });
    expect(reused.status).toBe(200);
    expect(reused.json).toMatchObject({ reused: true, binding: { id: made.json.binding.id } });
    expect((await bind({ email: 'a+1@example.test', country: 'GB' })).json.code).toBe('invalid_request');
    for (const [i, country] of ['GB', 'DE', 'US', 'JP'].entries())
      expect((await bind({ email: `x${i}@e.test`, country })).status).toBe(201);
    expect((await bind({ email: 'y@e.test', country: 'FR' })).json.code).toBe('quick_kyc_limit');
    sb.state.setQuickKyc({ enabled: false });
    expect((await bind({ country: 'SG' })).json.code).toBe('quick_kyc_disabled');
  });

  it('charges platform members from their own balance', async () => {
    const { sb, c } = setup({ custody: 'platform' });
    const m = sb.state.seedMember({ balances: { USDT: { available: '15' } } });
    expect((await c.call('POST', '/v1/kyc/quick', { member: m.id, key: true, body: { email: 'p@e.test' } })).status).toBe(201);
    expect(sb.state.balance(m.id, 'USDT').available).toBe('5.000000');
  });
});

describe('personal remittance line', () => {
  it('needs L1 and L2, answers 201 reviewing then 200 reused, and state_invalid once opened', async () => {
    const { sb, c } = setup();
    const l1 = sb.state.seedMember({ kyc_level: 1 });
    expect((await c.call('POST', '/v1/remit/vp/applications', { member: l1.id, key: true })).json.code).toBe('kyc_required');
    const m = sb.state.seedMember({ kyc_level: 2 });
    const first = await c.call('POST', '/v1/remit/vp/applications', { member: m.id, key: true });
    expect(first.status).toBe(201);
    expect(first.json).toEqual({ id: expect.stringMatching(/^vpa_\d+$/), status: 'reviewing' });
    const second = await c.call('POST', '/v1/remit/vp/applications', { member: m.id, key: true });
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ ...first.json, reused: true });
    sb.state.openVpAccount(m.id);
    expect((await c.call('POST', '/v1/remit/vp/applications', { member: m.id, key: true })).json.code).toBe('state_invalid');
  });

  it('falls back from the requested language to en, then zh-Hans, and is 503 when not configured', async () => {
    const { sb, c } = setup();
    const fr = await c.call('GET', '/v1/remit/vp/agreement?lang=fr');
    expect(fr.json.agreement.lang).toBe('en');
    expect(fr.json.intro.lang).toBe('en');
    expect((await c.call('GET', '/v1/remit/vp/agreement?lang=zh-Hans')).json.agreement.lang).toBe('zh-Hans');
    expect(
      (await c.call('GET', '/v1/remit/vp/agreement', { headers: { 'accept-language': 'zh-Hans-CN,zh;q=0.9' } })).json.agreement.lang,
    ).toBe('en');
    sb.state.setAgreement({ 'zh-Hans': { title: 't', body: 'b' } }, null);
    const zh = await c.call('GET', '/v1/remit/vp/agreement?lang=ja');
    expect(zh.json).toEqual({ agreement: { lang: 'zh-Hans', title: 't', body: 'b' }, intro: null });
    sb.state.setAgreement(null);
    const none = await c.call('GET', '/v1/remit/vp/agreement');
    expect(none.status).toBe(503);
    expect(none.json.code).toBe('service_unavailable');
  });
});

describe('corridors, bank search, payees', () => {
  it('filters corridors by line (unknown means express) and keeps clearing-system case', async () => {
    const { sb, c } = setup();
    const express = await c.call('GET', '/v1/remit/corridors?line=weird');
    expect(express.json.has_more).toBe(false);
    expect(express.json.next_cursor).toBeNull();
    expect(express.json.data).toContainEqual({
      country: 'GB',
      currency: 'GBP',
      payment_method: 'bank_transfer',
      clearing_systems: ['FASTER PAYMENTS'],
    });
    expect(express.json.data.some((x: { country: string }) => x.country === 'JP')).toBe(false);
    expect((await c.call('GET', '/v1/remit/corridors?line=pobo')).json.data.some((x: { country: string }) => x.country === 'JP')).toBe(
      true,
    );
    const q = 'country=GB&currency=GBP&payment_method=bank_transfer&clearing_system=';
    expect(
      (await c.call('GET', `/v1/remit/payee-form-schema?${q}FASTER%20PAYMENTS`)).json.fields.map((f: { key: string }) => f.key),
    ).toContain('sort_code');
    expect((await c.call('GET', `/v1/remit/payee-form-schema?${q}faster%20payments`)).json.code).toBe('corridor_not_supported');
    const m = sb.state.seedMember();
    const payee = { country: 'GB', currency: 'GBP', payment_method: 'bank_transfer', clearing_system: 'FASTER PAYMENTS' };
    const bad = await c.call('POST', '/v1/remit/payees', { member: m.id, key: true, body: { ...payee, fields: { account_name: 'A' } } });
    expect(bad.json).toMatchObject({
      code: 'invalid_fields',
      fields: [
        { key: 'account_number', reason: 'required' },
        { key: 'sort_code', reason: 'required' },
      ],
    });
    const ok = await c.call('POST', '/v1/remit/payees', {
      member: m.id,
      key: true,
      body: { ...payee, fields: { account_name: 'A', account_number: '1', sort_code: '2' } },
    });
    expect(ok.status).toBe(201);
    sb.state.setCorridors([]);
    expect((await c.call('GET', '/v1/remit/corridors')).json.data).toEqual([]);
  });

  it('searches banks by BIC or name, returns nothing for short names, and flags an unavailable directory', async () => {
    const { sb, c } = setup();
    expect((await c.call('GET', '/v1/remit/swift-search?q=BARCGB22')).json.banks).toHaveLength(2);
    expect((await c.call('GET', '/v1/remit/swift-search?q=DEUTDEFFXXX')).json.banks[0]).toMatchObject({
      bank_name: 'Deutsche Bank AG',
      address: null,
    });
    expect((await c.call('GET', '/v1/remit/swift-search?q=bank')).json).toEqual({ unavailable: false, banks: [] });
    expect((await c.call('GET', '/v1/remit/swift-search?q=barclays&country=GB')).json.banks).toHaveLength(2);
    expect((await c.call('GET', '/v1/remit/swift-search?q=barclays&country=DE')).json.banks).toHaveLength(0);
    sb.state.setDirectoryAvailable(false);
    expect((await c.call('GET', '/v1/remit/swift-search?q=barclays')).json).toEqual({ unavailable: true, banks: [] });
  });
});

describe('QR payments', () => {
  it('quotes with chosen and options, memoises the upstream order for 60 s, and pays from available', async () => {
    const { sb, c } = setup();
    sb.clock.freeze();
    const m = sb.state.seedMember({ balances: { USDC: { available: '50' } } });
    const quote = await c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'sbxqr:Cafe:THB:360.00' } });
    expect(quote.status).toBe(200);
    expect(quote.json).toMatchObject({ payee: 'Cafe', acquirer_currency: 'THB', acquirer_amount: '360.00', blocked_reason: '' });
    expect(quote.json.options.map((o: { asset: string }) => o.asset)).toEqual(['USDT', 'USDC']);
    // USDT is the first priority but not sufficient; USDC is.
    expect(quote.json.chosen).toMatchObject({ asset: 'USDC', sufficient: true, customer_total: '10.060000', fee: '0.010000' });
    await c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'sbxqr:Cafe:THB:360.00' } });
    expect(sb.stats.upstreamQrQuotes).toBe(1);
    sb.clock.advance(60_000);
    await c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'sbxqr:Cafe:THB:360.00' } });
    expect(sb.stats.upstreamQrQuotes).toBe(2);

    expect(
      (await c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'sbxqr:Cafe:THB:360.00', amount: '1' } })).json.code,
    ).toBe('invalid_request');
    expect((await c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'nonsense' } })).json.code).toBe(
      'qr_code_invalid',
    );
    expect(
      (await c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'sbxqr:Cafe:THB:360.00', preferred_asset: 'BTC' } }))
        .json.code,
    ).toBe('invalid_request');
    const open = await c.call('POST', '/v1/qrpay/quotes', {
      member: m.id,
      body: { code_value: 'sbxqr:Shop:SGD:open', currency: 'SGD', amount: '13.5' },
    });
    expect(open.json.acquirer_amount).toBe('13.50');

    const pay = await c.call('POST', '/v1/qrpay/payments', { member: m.id, key: true, body: { code_value: 'sbxqr:Cafe:THB:360.00' } });
    expect(pay.status).toBe(201);
    expect(pay.json).toMatchObject({ status: 'completed', asset: 'USDC', amount: '10.060000' });
    expect(sb.state.balance(m.id, 'USDC').available).toBe('39.940000');
    const merchantQuote = () =>
      c.call('POST', '/v1/qrpay/quotes', { member: m.id, body: { code_value: 'sbxqr:Cafe:THB:360.00', funding_source: 'merchant' } });
    // An empty prepaid pool has no usable debit asset.
    expect((await merchantQuote()).json.code).toBe('insufficient_balance');
    sb.state.setPrepaid('USDT', { available: '100' });
    expect((await merchantQuote()).json.chosen).toMatchObject({
      asset: 'USDT',
      customer_total: '10.100000',
      fee: '0.050000',
      fee_asset: 'USDT',
      fee_amount: '0.050000',
      sufficient: true,
    });
  });
});

describe('shipping addresses', () => {
  it('replaces the whole address, keeps the default flag, and requires the six items', async () => {
    const { sb, c } = setup();
    const m = sb.state.seedMember();
    const id = sb.state.seedAddress(
      m.id,
      { country: 'SG', recipient_last: 'Tan', recipient_first: 'Wei', phone_number: '1', city: 'SG', line1: 'x', line2: 'old' },
      true,
    );
    const full = {
      country: 'GB',
      recipient_last: 'Doe',
      recipient_first: 'Jo',
      phone_code: '+44',
      phone_number: '2',
      city: 'London',
      line1: '1 St',
      postal_code: 'E1',
    };
    const res = await c.call('PATCH', `/v1/shipping-addresses/${id}`, { member: m.id, key: true, body: full });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ...full, line2: '', is_default: true });
    const missing = await c.call('PATCH', `/v1/shipping-addresses/${id}`, { member: m.id, key: true, body: { country: 'GB' } });
    expect(missing.json.code).toBe('invalid_fields');
    expect(missing.json.fields.map((f: { key: string }) => f.key)).toEqual([
      'recipient_last',
      'recipient_first',
      'phone_number',
      'city',
      'line1',
    ]);
    expect((await c.call('PATCH', `/v1/shipping-addresses/${id}`, { member: m.id, body: full })).json.code).toBe(
      'idempotency_key_required',
    );
    expect((await c.call('PATCH', '/v1/shipping-addresses/addr_x', { member: m.id, key: true, body: full })).json.code).toBe('not_found');
  });
});

describe('name-only endpoints answer plausibly', () => {
  it('merchant reads, deposit address, card products and application, exchange quotes', async () => {
    const { sb, c } = setup();
    sb.state.setPrepaid('USDT', { available: '10', queued: '2' });
    expect((await c.call('GET', '/v1/merchant/balances')).json.data[0]).toMatchObject({
      asset: 'USDT',
      available: '10.000000',
      queued: '2.000000',
    });
    expect((await c.call('GET', '/v1/merchant/lines')).json.data).toContainEqual({ line: 'withdraw', enabled: true, halted: false });
    expect((await c.call('GET', '/v1/merchant/pending')).json.data).toEqual([
      { asset: 'USDT', amount: '2.000000', status: 'pending_merchant_funds' },
    ]);
    expect((await c.call('GET', '/v1/merchant/conversion-pairs')).json.data.length).toBe(12);
    const addr = await c.call('POST', '/v1/merchant/deposit-address', { key: true, body: { asset: 'USDT' } });
    expect((await c.call('POST', '/v1/merchant/deposit-address', { body: { asset: 'USDT' } })).json.address).toBe(addr.json.address);
    sb.state.setLine('deposit_address', false);
    expect((await c.call('POST', '/v1/merchant/deposit-address', { body: { asset: 'USDT' } })).json).toMatchObject({
      code: 'service_unavailable',
      retry_after: 30,
    });

    const m = sb.state.seedMember({ kyc_level: 1, balances: { USDT: { available: '100' } } });
    const products = await c.call('GET', '/v1/cards/products', { member: m.id });
    expect(products.json.data.map((p: { id: string }) => p.id)).toEqual(['cpd_sbx_virtual_usd', 'cpd_sbx_physical_usd']);
    expect((await c.call('GET', '/v1/cards/products/sbx_virtual_usd/quote', { member: m.id })).json).toMatchObject({
      total: '15.00',
      kyc_satisfied: true,
    });
    const app = await c.call('POST', '/v1/cards/applications', { member: m.id, key: true, body: { card_product_id: 'sbx_virtual_usd' } });
    expect(app.status).toBe(201);
    expect(app.json).toMatchObject({ status: 'approved', form: 'virtual' });
    expect((await c.call('GET', `/v1/cards/${app.json.card_id}`, { member: m.id })).json).toMatchObject({
      status: 'active',
      balance: '10.00',
    });
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '85.000000', card: '10.000000' });

    const locked = await c.call('POST', '/v1/exchange/quotes', {
      member: m.id,
      body: { from_asset: 'USDT', to_asset: 'BTC', from_amount: '60', lock: true },
    });
    expect(locked.json).toMatchObject({ locked: true, to_amount: '0.00099800' });
    sb.clock.advance(31_000);
    c.forget();
    expect((await c.call('POST', '/v1/exchange/orders', { member: m.id, key: true, body: { quote_id: locked.json.id } })).json.code).toBe(
      'state_invalid',
    );
  });
});

/**
 * QR payments through the SDK over server mode: no usable debit asset, the merchant-funded fee
 * semantics, custom-amount codes and a seeded `blocked_reason`.
 */
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../src/index.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();
/** 360 THB at the sandbox's 36 THB per USD: a principal of 10 USDT or USDC. */
const CAFE = 'sbxqr:Cafe:THB:360.00';

describe('POST /v1/qrpay/quotes with no usable debit asset (spec: 400 insufficient_balance)', () => {
  it('a member whose balances cover no quoted asset gets insufficient_balance, not a 200 of insufficient options', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '5' } } });
    const err = await thrownBy(() => client.member(m.id).qrpay.quote({ code_value: CAFE }));
    expect(isApiError(err, 'insufficient_balance')).toBe(true);
    expect(err).toMatchObject({ status: 400 });
    expect(sandbox.requests.filter((r) => r.path === '/v1/qrpay/quotes')).toHaveLength(1);
    // One usable asset is enough: the quote is answered and chooses it.
    sandbox.state.setBalance(m.id, 'USDC', { available: '20' });
    const quote = await client.member(m.id).qrpay.quote({ code_value: CAFE });
    expect(quote.chosen).toMatchObject({ asset: 'USDC', sufficient: true });
    expect(quote.options.map((o) => [o.asset, o.sufficient])).toEqual([
      ['USDT', false],
      ['USDC', true],
    ]);
  });

  it('merchant funding with an empty prepaid pool is refused the same way', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const err = await thrownBy(() => client.member(m.id).qrpay.quote({ code_value: CAFE, funding_source: 'merchant' }));
    expect(isApiError(err, 'insufficient_balance')).toBe(true);
  });
});

describe('merchant-funded fee (spec: fee is the same-asset fee included in customer_total)', () => {
  it('a fee in the principal asset is `fee` and part of customer_total; the payment debits customer_total once', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    sandbox.state.setPrepaid('USDT', { available: '100' });
    const quote = await client.member(m.id).qrpay.quote({ code_value: CAFE, funding_source: 'merchant' });
    // Principal 10 plus the sandbox's 0.5 % premium is 10.05; the 0.5 % platform fee is 0.05 USDT.
    expect(quote.chosen).toMatchObject({
      asset: 'USDT',
      customer_total: '10.100000',
      fee: '0.050000',
      fee_asset: 'USDT',
      fee_amount: '0.050000',
      fee_ledger_scale: 6,
      sufficient: true,
    });
    await client.member(m.id).qrpay.pay({ code_value: CAFE, funding_source: 'merchant' });
    expect(sandbox.state.merchant.prepaid['USDT']?.available).toBe('89.900000');
  });

  it('a fee in another asset leaves `fee` at 0 and is debited additionally in fee_asset', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    // 10.05 USDT covers the principal but leaves nothing for the fee: the whole fee goes to USDC.
    sandbox.state.setPrepaid('USDT', { available: '10.05' });
    sandbox.state.setPrepaid('USDC', { available: '1' });
    const quote = await client.member(m.id).qrpay.quote({ code_value: CAFE, funding_source: 'merchant' });
    expect(quote.chosen).toMatchObject({
      asset: 'USDT',
      customer_total: '10.050000',
      fee: '0.000000',
      fee_asset: 'USDC',
      fee_amount: '0.050000',
      sufficient: true,
    });
    await client.member(m.id).qrpay.pay({ code_value: CAFE, funding_source: 'merchant' });
    expect(sandbox.state.merchant.prepaid).toMatchObject({ USDT: { available: '0.000000' }, USDC: { available: '0.950000' } });
  });
});

describe('custom-amount QR codes (seedQrCode)', () => {
  it('decodes as amount_editable and quotes the amount and currency given, within the seeded bounds', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '1000' } } });
    const code = sandbox.state.seedQrCode({ payee: 'Kopi', currency: 'SGD', min_amount: '1', max_amount: '500' });
    const qr = client.member(m.id).qrpay;
    expect(await qr.decode({ code_value: code })).toMatchObject({ payee: 'Kopi', currency: 'SGD', amount: null, amount_editable: true });
    const quote = await qr.quote({ code_value: code, amount: '13.5' });
    expect(quote).toMatchObject({ payee: 'Kopi', acquirer_currency: 'SGD', acquirer_amount: '13.50' });
    // 13.50 SGD at 1.35 per USD is 10 USD: the member-funded total is 10 × 1.005 + 0.01 fee.
    expect(quote.chosen).toMatchObject({ asset: 'USDT', customer_total: '10.060000', fee: '0.010000' });
    expect((await qr.quote({ code_value: code, currency: 'usd', amount: '10' })).acquirer_currency).toBe('USD');
    const upstream = sandbox.stats.upstreamQrQuotes;
    await qr.quote({ code_value: code, amount: '13.5' });
    expect(sandbox.stats.upstreamQrQuotes).toBe(upstream);
  });

  it('refuses a missing amount, too many decimals, an amount out of bounds and an unpriced currency', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '1000' } } });
    const code = sandbox.state.seedQrCode({ currency: 'SGD', min_amount: '1', max_amount: '500' });
    const qr = client.member(m.id).qrpay;
    const code400 = async (params: Parameters<typeof qr.quote>[0]): Promise<string | undefined> =>
      ((await thrownBy(() => qr.quote(params))) as { code?: string }).code;
    expect(await code400({ code_value: code })).toBe('invalid_request');
    expect(await code400({ code_value: code, amount: '13.555' })).toBe('invalid_request');
    expect(await code400({ code_value: code, amount: '0.5' })).toBe('amount_out_of_range');
    expect(await code400({ code_value: code, amount: '500.01' })).toBe('amount_out_of_range');
    // 400 USD is 540 SGD: above the bound in the code's currency.
    expect(await code400({ code_value: code, currency: 'USD', amount: '400' })).toBe('amount_out_of_range');
    expect(await code400({ code_value: code, currency: 'XAU', amount: '10' })).toBe('corridor_not_supported');
    expect(await code400({ code_value: CAFE, amount: '10' })).toBe('invalid_request');
    expect(await code400({ code_value: CAFE, currency: 'THB' })).toBe('invalid_request');
    expect(sandbox.state.countEffects()).toBe(0);
  });
});

describe('blocked_reason on the chosen asset (setQrBlockedReason)', () => {
  it('the quote carries it, a payment with that asset answers the code at once, another asset pays', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' }, USDC: { available: '100' } } });
    sandbox.state.setQrBlockedReason('USDT', 'limit_exceeded');
    const qr = client.member(m.id).qrpay;
    const quote = await qr.quote({ code_value: CAFE });
    expect(quote.chosen.asset).toBe('USDT');
    expect(quote.blocked_reason).toBe('limit_exceeded');
    const err = await thrownBy(() => qr.pay({ code_value: CAFE }));
    expect(isApiError(err, 'limit_exceeded')).toBe(true);
    expect(sandbox.state.countEffects()).toBe(0);
    expect(sandbox.state.balance(m.id, 'USDT').available).toBe('100.000000');
    // It applies only to chosen: with USDC preferred the quote is clear and the payment goes through.
    expect((await qr.quote({ code_value: CAFE, preferred_asset: 'USDC' })).blocked_reason).toBe('');
    await qr.pay({ code_value: CAFE, preferred_asset: 'USDC' });
    expect(sandbox.state.balance(m.id, 'USDC').available).toBe('89.940000');
  });

  it('a reason seeded for one member leaves the others clear, and null clears it', async () => {
    const { sandbox, client } = await serve();
    const a = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
    const b = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
    sandbox.state.setQrBlockedReason('USDT', 'kyc_required', a.id);
    expect((await client.member(a.id).qrpay.quote({ code_value: CAFE })).blocked_reason).toBe('kyc_required');
    expect((await client.member(b.id).qrpay.quote({ code_value: CAFE })).blocked_reason).toBe('');
    sandbox.state.setQrBlockedReason('USDT', null, a.id);
    expect((await client.member(a.id).qrpay.quote({ code_value: CAFE })).blocked_reason).toBe('');
  });
});

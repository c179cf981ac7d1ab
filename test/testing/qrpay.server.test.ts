/**
 * QR payments through the SDK over server mode: no usable debit asset, the merchant-funded fee
 * semantics.
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

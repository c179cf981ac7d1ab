/**
 * One sample call per endpoint of the spec (except the token exchange, which the token manager
 * drives), with what must arrive on the wire and what the caller must get back. Used by the wire
 * test over a loopback socket and by the reachability test over a recording caller.
 *
 * The header expectations (`member`, `key`) are written out here on purpose rather than read from
 * the descriptors, so that a wrong descriptor flag fails a test.
 */
import type { CallOptions } from '../../src/core/types.js';
import type { MerchantClient } from '../../src/client.js';
import { Decimal } from '../../src/money.js';
import * as F from '../schemas/fixtures.js';

/** What the client and a fake root both offer: its namespaces and the member view. */
export type Root = Pick<
  MerchantClient,
  'merchant' | 'reports' | 'remittances' | 'assets' | 'members' | 'sandbox' | 'withdrawals' | 'member'
>;

export interface Sample {
  /** `METHOD /path?query` exactly as it must arrive. */
  readonly request: string;
  /** Exact body bytes (writes), or undefined (no body). */
  readonly body?: string;
  /** Sends `x-on-behalf-of: ext-42`. */
  readonly member?: true;
  /** Sends `x-idempotency-key`. */
  readonly key?: true;
  /** HTTP status of the canned reply (default 200). */
  readonly status?: number;
  /** Canned reply body. */
  readonly reply: unknown;
  /** What awaiting the call must give (default: the reply). */
  readonly expected?: unknown;
  /** Makes the call. */
  readonly call: (root: Root, options?: CallOptions) => PromiseLike<unknown>;
}

export const MEMBER = 'ext-42';
const m = (root: Root) => root.member(MEMBER);
const loose = { id: 'obj_1', status: 'ok', extra: { nested: true } };
const loosePage = { data: [{ id: 'i1', usable: true }], next_cursor: null, has_more: false };
const json = (v: unknown) => JSON.stringify(v);

export const SAMPLES: Readonly<Record<string, Sample>> = {
  // ---- merchant account ----
  'merchant.conversions.create': {
    request: 'POST /v1/merchant/conversions',
    body: json({ from_asset: 'usdt', to_asset: 'USDC', from_amount: '100', min_to_amount: '99.5' }),
    key: true,
    status: 201,
    reply: F.conversion,
    call: (r, o) => r.merchant.conversions.create({ from_asset: 'usdt', to_asset: 'USDC', from_amount: '100', min_to_amount: '99.5' }, o),
  },
  'merchant.topups.create': {
    request: 'POST /v1/merchant/topups',
    body: json({ asset: 'USDT', channel: 'fiat', amount: '1000.50', reference_no: 'INV-1', note: 'wire' }),
    key: true,
    status: 201,
    reply: F.topup,
    call: (r, o) => r.merchant.topups.create({ asset: 'USDT', channel: 'fiat', amount: '1000.50', reference_no: 'INV-1', note: 'wire' }, o),
  },
  'merchant.topups.list': {
    request: 'GET /v1/merchant/topups?limit=10',
    reply: loosePage,
    call: (r, o) => r.merchant.topups.list({ limit: 10 }, o),
  },
  'merchant.balances': { request: 'GET /v1/merchant/balances', reply: loosePage, call: (r, o) => r.merchant.balances(undefined, o) },
  'merchant.lines': { request: 'GET /v1/merchant/lines', reply: loosePage, call: (r, o) => r.merchant.lines(undefined, o) },
  'merchant.pending': { request: 'GET /v1/merchant/pending', reply: loose, call: (r, o) => r.merchant.pending(undefined, o) },
  'merchant.conversionPairs': {
    request: 'GET /v1/merchant/conversion-pairs',
    reply: loosePage,
    call: (r, o) => r.merchant.conversionPairs(undefined, o),
  },
  'merchant.depositAddress': {
    request: 'POST /v1/merchant/deposit-address',
    body: json({ asset: 'USDT' }),
    key: true,
    reply: loose,
    call: (r, o) => r.merchant.depositAddress({ asset: 'USDT' }, o),
  },
  'reports.list': {
    request: 'GET /v1/reports?limit=2',
    reply: { data: [F.report], next_cursor: null, has_more: false },
    call: (r, o) => r.reports.list({ limit: 2 }, o),
  },
  'reports.retrieve': {
    request: 'GET /v1/reports/rep_1',
    reply: { ...loose, download_url: 'https://dl' },
    call: (r, o) => r.reports.retrieve('rep_1', o),
  },
  'remittances.corridors': {
    request: 'GET /v1/remit/corridors?line=pobo',
    reply: { data: [F.corridor], next_cursor: null, has_more: false },
    expected: [F.corridor],
    call: (r, o) => r.remittances.corridors({ line: 'pobo' }, o),
  },
  'remittances.swiftSearch': {
    request: 'GET /v1/remit/swift-search?q=DEUTDEFF&country=DE',
    reply: { unavailable: false, banks: [F.bank] },
    call: (r, o) => r.remittances.swiftSearch({ q: 'DEUTDEFF', country: 'DE' }, o),
  },
  'remittances.agreement': {
    request: 'GET /v1/remit/vp/agreement?lang=zh-Hant',
    reply: F.agreement,
    call: (r, o) => r.remittances.agreement({ lang: 'zh-Hant' }, o),
  },
  'assets.list': { request: 'GET /v1/assets', reply: loosePage, call: (r, o) => r.assets.list(undefined, o) },
  'members.create': {
    request: 'POST /v1/members',
    body: json({ external_member_id: 'ext-9' }),
    key: true,
    status: 201,
    reply: loose,
    call: (r, o) => r.members.create({ external_member_id: 'ext-9' }, o),
  },
  'members.suspend': {
    request: 'POST /v1/members/mem_1/suspend',
    body: '{}',
    reply: loose,
    call: (r, o) => r.members.suspend('mem_1', undefined, o),
  },
  'sandbox.faucet': {
    request: 'POST /v1/sandbox/faucet',
    body: json({ asset: 'USDT', amount: '50' }),
    key: true,
    reply: F.faucet,
    call: (r, o) => r.sandbox.faucet({ asset: 'USDT', amount: '50' }, o),
  },

  // ---- member view ----
  'member.balances.list': {
    request: 'GET /v1/balances',
    member: true,
    // The transitional copy differs on purpose: the SDK must read `data`.
    reply: { data: [F.balanceRow], next_cursor: null, has_more: false, balances: [{ ...F.balanceRow, asset: 'STALE' }] },
    expected: [F.balanceRow],
    call: (r, o) => m(r).balances.list(o),
  },
  'member.withdrawals.create': {
    request: 'POST /v1/withdrawals',
    body: json({ asset: 'USDT', amount: '25.5', to_address: 'TQ1abc' }),
    member: true,
    key: true,
    status: 201,
    reply: F.withdrawalOrder,
    call: (r, o) => m(r).withdrawals.create({ asset: 'USDT', amount: new Decimal('25.50'), to_address: 'TQ1abc' }, o),
  },
  'member.withdrawals.confirm': {
    request: 'POST /v1/withdrawals/wdr_1/confirm',
    body: '{}',
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).withdrawals.confirm('wdr_1', undefined, o),
  },
  'member.withdrawals.fail': {
    request: 'POST /v1/withdrawals/wdr_1/fail',
    body: json({ note: 'reverted' }),
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).withdrawals.fail('wdr_1', { note: 'reverted' }, o),
  },
  'member.withdrawals.addresses': {
    request: 'GET /v1/withdraw-addresses',
    member: true,
    reply: loosePage,
    call: (r, o) => m(r).withdrawals.addresses(undefined, o),
  },
  'member.qrpay.schemes': {
    request: 'GET /v1/qrpay/schemes',
    member: true,
    reply: loosePage,
    call: (r, o) => m(r).qrpay.schemes(undefined, o),
  },
  'member.qrpay.decode': {
    request: 'POST /v1/qrpay/decode',
    body: json({ code_value: '000201' }),
    member: true,
    reply: { amount_editable: true, required_payer_fields: [] },
    call: (r, o) => m(r).qrpay.decode({ code_value: '000201' }, o),
  },
  'member.qrpay.quote': {
    request: 'POST /v1/qrpay/quotes',
    body: json({
      funding_source: 'member',
      code_value: '000201',
      currency: 'THB',
      amount: '350.00',
      preferred_asset: 'USDT',
      payer: { custName: 'A' },
    }),
    member: true,
    reply: F.qrQuote,
    call: (r, o) =>
      m(r).qrpay.quote(
        {
          preferred_asset: 'USDT',
          amount: '350.00',
          code_value: '000201',
          funding_source: 'member',
          currency: 'THB',
          payer: { custName: 'A' },
        },
        o,
      ),
  },
  'member.qrpay.pay': {
    request: 'POST /v1/qrpay/payments',
    body: json({ code_value: '000201', preferred_asset: 'USDT' }),
    member: true,
    key: true,
    status: 201,
    reply: loose,
    call: (r, o) => m(r).qrpay.pay({ code_value: '000201', preferred_asset: 'USDT' }, o),
  },
  'member.kyc.submitApplication': {
    request: 'POST /v1/kyc/applications',
    body: json({ card_product_id: 'cpd_1', profile: { first_name: 'Ada', last_name: 'L', nationality: 'SG' } }),
    member: true,
    key: true,
    status: 201,
    reply: F.kycApplication,
    call: (r, o) =>
      m(r).kyc.submitApplication({ profile: { first_name: 'Ada', last_name: 'L', nationality: 'SG' }, card_product_id: 'cpd_1' }, o),
  },
  'member.kyc.quickBind': {
    request: 'POST /v1/kyc/quick',
    body: json({ email: 'a+b@example.com', country: 'SG', identity_type: 'passport' }),
    member: true,
    key: true,
    reply: F.quickKyc,
    call: (r, o) => m(r).kyc.quickBind({ email: 'a+b@example.com', country: 'SG', identity_type: 'passport' }, o),
  },
  'member.kyc.status': { request: 'GET /v1/kyc', member: true, reply: loose, call: (r, o) => m(r).kyc.status(undefined, o) },
  'member.kyc.createSession': {
    request: 'POST /v1/kyc/sessions',
    body: '{}',
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).kyc.createSession(undefined, o),
  },
  'member.cards.products': {
    request: 'GET /v1/cards/products?limit=5',
    member: true,
    reply: loosePage,
    call: (r, o) => m(r).cards.products({ limit: 5 }, o),
  },
  'member.cards.productQuote': {
    request: 'GET /v1/cards/products/1/quote?quick_kyc_binding_id=6f1c',
    member: true,
    reply: loose,
    call: (r, o) => m(r).cards.productQuote('1', { quick_kyc_binding_id: '6f1c' }, o),
  },
  'member.cards.apply': {
    request: 'POST /v1/cards/applications',
    body: json({ card_product_id: 'cpd_1', quick_kyc_binding_id: '6f1c' }),
    member: true,
    key: true,
    status: 201,
    reply: loose,
    call: (r, o) => m(r).cards.apply({ card_product_id: 'cpd_1', quick_kyc_binding_id: '6f1c' }, o),
  },
  'member.cards.retrieve': {
    request: 'GET /v1/cards/crd_1',
    member: true,
    reply: { id: 'crd_1', status: 'active', limits_updatable: true },
    call: (r, o) => m(r).cards.retrieve('crd_1', o),
  },
  'member.cards.unfreeze': {
    request: 'POST /v1/cards/crd_1/unfreeze',
    body: '{}',
    member: true,
    key: true,
    reply: { id: 'crd_1', status: 'unfreezing' },
    call: (r, o) => m(r).cards.unfreeze('crd_1', o),
  },
  'member.cards.activate': {
    request: 'POST /v1/cards/crd_1/activate',
    body: json({ expiry: '07/29', pin: '1234' }),
    member: true,
    key: true,
    reply: { id: 'crd_1', status: 'active' },
    call: (r, o) => m(r).cards.activate('crd_1', { expiry: '07/29', pin: '1234' }, o),
  },
  'member.cards.closeCheck': {
    request: 'GET /v1/cards/crd_1/close-check',
    member: true,
    reply: F.closeCheck,
    call: (r, o) => m(r).cards.closeCheck('crd_1', o),
  },
  'member.cards.close': {
    request: 'POST /v1/cards/crd_1/close',
    body: '{}',
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).cards.close('crd_1', undefined, o),
  },
  'member.cards.withdraw': {
    request: 'POST /v1/cards/crd_1/withdrawals',
    body: json({ amount: '5' }),
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).cards.withdraw('crd_1', { amount: '5' }, o),
  },
  'member.cards.topUp': {
    request: 'POST /v1/cards/crd_1/topups',
    body: json({ amount: '20' }),
    member: true,
    key: true,
    status: 201,
    reply: loose,
    call: (r, o) => m(r).cards.topUp('crd_1', { amount: '20' }, o),
  },
  'member.cards.updateLimits': {
    request: 'PATCH /v1/cards/crd_1/limits',
    body: json({ single: '100', daily: '500', monthly: '0' }),
    member: true,
    reply: { id: 'crd_1', accepted: true },
    call: (r, o) => m(r).cards.updateLimits('crd_1', { monthly: '0', single: '100', daily: new Decimal('500') }, o),
  },
  'member.remittances.quote': {
    request: 'POST /v1/remit/quotes',
    body: json({ amount: '10' }),
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).remittances.quote({ amount: '10' }, o),
  },
  'member.remittances.payeeFormSchema': {
    request: 'GET /v1/remit/payee-form-schema?country=GB&currency=GBP',
    member: true,
    reply: loose,
    call: (r, o) => m(r).remittances.payeeFormSchema({ country: 'GB', currency: 'GBP' }, o),
  },
  'member.remittances.createPayee': {
    request: 'POST /v1/remit/payees',
    body: json({ clearing_system: 'FASTER PAYMENTS' }),
    member: true,
    key: true,
    status: 201,
    reply: loose,
    call: (r, o) => m(r).remittances.createPayee({ clearing_system: 'FASTER PAYMENTS' }, o),
  },
  'member.remittances.list': {
    request: 'GET /v1/remittances?limit=3',
    member: true,
    reply: loosePage,
    call: (r, o) => m(r).remittances.list({ limit: 3 }, o),
  },
  'member.remittances.retrieve': {
    request: 'GET /v1/remittances/1',
    member: true,
    reply: loose,
    call: (r, o) => m(r).remittances.retrieve('1', o),
  },
  'member.remittances.pendingAction': {
    request: 'GET /v1/remittances/rmt_1/pending-action',
    member: true,
    reply: { id: 'rmt_1', waiting_on: 'member', action: F.slippage },
    call: (r, o) => m(r).remittances.pendingAction('rmt_1', o),
  },
  'member.remittances.reconfirm': {
    request: 'POST /v1/remittances/rmt_1/reconfirm',
    body: json({ new_total: '101.20' }),
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).remittances.reconfirm('rmt_1', { new_total: '101.20' }, o),
  },
  'member.remittances.cancel': {
    request: 'POST /v1/remittances/rmt_a%2Fb/cancel',
    body: '{}',
    member: true,
    key: true,
    reply: { id: 'rmt_a/b', status: 'canceled' },
    call: (r, o) => m(r).remittances.cancel('rmt_a/b', o),
  },
  'member.remittances.applyPersonalAccount': {
    request: 'POST /v1/remit/vp/applications',
    body: '{}',
    member: true,
    key: true,
    status: 201,
    reply: { id: 'vpa_1', status: 'reviewing' },
    call: (r, o) => m(r).remittances.applyPersonalAccount(o),
  },
  'member.shippingAddresses.update': {
    request: 'PATCH /v1/shipping-addresses/addr%201',
    body: json({
      country: 'SG',
      recipient_last: 'L',
      recipient_first: 'A',
      phone_code: '65',
      phone_number: '1',
      city: 'S',
      line1: 'x',
      line2: '',
      postal_code: '1',
    }),
    member: true,
    key: true,
    reply: loose,
    call: (r, o) =>
      m(r).shippingAddresses.update(
        'addr 1',
        {
          country: 'SG',
          recipient_last: 'L',
          recipient_first: 'A',
          phone_code: '65',
          phone_number: '1',
          city: 'S',
          line1: 'x',
          line2: '',
          postal_code: '1',
        },
        o,
      ),
  },
  'member.exchange.quote': {
    request: 'POST /v1/exchange/quotes',
    body: json({ from_asset: 'USDT', to_asset: 'USDC', amount: '10', lock: true }),
    member: true,
    key: true,
    reply: loose,
    call: (r, o) => m(r).exchange.quote({ from_asset: 'USDT', to_asset: 'USDC', amount: '10', lock: true }, o),
  },
  'member.exchange.order': {
    request: 'POST /v1/exchange/orders',
    body: json({ quote_id: 'q1' }),
    member: true,
    key: true,
    status: 201,
    reply: { id: 'x1', status: 'executed' },
    call: (r, o) => m(r).exchange.order({ quote_id: 'q1' }, o),
  },
  'member.deposits.declare': {
    request: 'POST /v1/deposits',
    body: json({ asset: 'USDT', amount: '5' }),
    member: true,
    key: true,
    status: 201,
    reply: loose,
    call: (r, o) => m(r).deposits.declare({ asset: 'USDT', amount: '5' }, o),
  },
};

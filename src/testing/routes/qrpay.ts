/**
 * QR payments. `POST /v1/qrpay/quotes` follows the spec. `GET /v1/qrpay/schemes`,
 * `POST /v1/qrpay/decode` and `POST /v1/qrpay/payments` are named-only in the spec; their
 * shapes here are simulator-invented.
 *
 * Sandbox QR payloads (simulator convention): `sbxqr:<payee>:<CURRENCY>:<amount>` is a
 * fixed-amount code, `sbxqr:<payee>:<CURRENCY>:open` a custom-amount code, and
 * `sbxqr-payer:...` a code with `required_payer_fields`. Payloads starting with `000201`
 * (EMVCo) decode as a fixed 100.00 THB code from "Sandbox Cafe". Anything else is
 * `qr_code_invalid`.
 */
import type { AssetDef } from '../assets.js';
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { Decimal, ceilTo, fmt, parsePositive, type Dec } from '../money.js';
import { FIAT_PER_USD, fiatToUsd, usdToAsset } from '../pricing.js';
import { debit, prepaidOf, type MemberRecord } from '../store.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { optString, reqString, staticList } from './fields.js';

/** Assets the sandbox upstream quotes. */
const QUOTED_ASSETS = ['USDT', 'USDC'];
/** Cost protection and premium folded into `customer_total` (simulator figure). */
const PREMIUM = new Decimal('0.005');
/** Same-asset fee rate with a 0.01 minimum (simulator figure). */
const SAME_ASSET_FEE = new Decimal('0.001');
const MIN_FEE = new Decimal('0.01');

interface Decoded {
  scheme: string;
  payee: string;
  currency: string;
  amount: string | null;
  amount_editable: boolean;
  required_payer_fields: string[];
}

/** Decodes a payload by the sandbox convention above. */
function decodeQr(code: string): Decoded {
  if (code.startsWith('000201')) {
    return { scheme: 'EMVCO', payee: 'Sandbox Cafe', currency: 'THB', amount: '100.00', amount_editable: false, required_payer_fields: [] };
  }
  const m = /^(sbxqr|sbxqr-payer):([^:]+):([A-Z]{3}):(open|\d+(?:\.\d+)?)$/.exec(code);
  if (!m || FIAT_PER_USD[m[3] ?? ''] === undefined) fail('qr_code_invalid', 'The QR code cannot be decoded.');
  const open = m[4] === 'open';
  return {
    scheme: 'SANDBOX',
    payee: m[2] ?? '',
    currency: m[3] ?? '',
    amount: open ? null : (m[4] ?? null),
    amount_editable: open,
    required_payer_fields: m[1] === 'sbxqr-payer' ? ['custName', 'mobile'] : [],
  };
}

interface Plan {
  quote: Record<string, unknown>;
  chosen: { asset: string; total: Dec; fee: Dec; principal: Dec; feeAsset?: string; feeAmount?: Dec };
  funding: Funding;
}

type Funding = 'member' | 'merchant';

/** One priced asset of a quote. */
interface QuoteOption {
  asset: string;
  scale: number;
  display: number;
  total: Dec;
  fee: Dec;
  principal: Dec;
  sufficient: boolean;
  feeAsset: string | undefined;
  feeAmount: Dec | undefined;
}

/** Who pays: the member (default) or the merchant's prepaid pool, which needs merchant_hosted custody. */
function fundingOf(ctx: RouteContext, body: Record<string, unknown>): Funding {
  const funding = body['funding_source'] ?? 'member';
  if (funding !== 'member' && funding !== 'merchant') fail('invalid_request', 'funding_source must be member or merchant');
  if (funding === 'merchant' && ctx.store.merchant.custody !== 'merchant_hosted')
    fail('product_not_available', 'Merchant funding needs merchant_hosted custody.');
  return funding;
}

/** The fiat amount to pay: the code's own, or the body's for a custom-amount code (not both). */
function fiatOf(d: Decoded, currencyIn: string | undefined, amountIn: unknown): { currency: string; fiat: Dec } {
  if (d.amount_editable) {
    const currency = currencyIn !== undefined ? currencyIn.toUpperCase() : d.currency;
    if (FIAT_PER_USD[currency] === undefined) fail('corridor_not_supported', `${currency} is not supported.`);
    return { currency, fiat: parsePositive(amountIn, 2, 'amount') };
  }
  if (currencyIn !== undefined || amountIn !== undefined)
    fail('invalid_request', 'currency and amount are prohibited for fixed-amount codes');
  return { currency: d.currency, fiat: new Decimal(d.amount ?? '0') };
}

/** The quote's expiry: a memoised upstream quote keeps its own for 60 s, a new one counts upstream. */
function upstreamExpiry(ctx: RouteContext, memoKey: string, memo: boolean): string {
  const hit = ctx.store.qrMemo.get(memoKey);
  if (memo && hit && ctx.now - hit.at < 60_000) return String(hit.quote['expires_at']);
  ctx.store.stats.upstreamQrQuotes += 1;
  const expiresAt = iso(ctx.now + 60_000);
  if (memo) ctx.store.qrMemo.set(memoKey, { at: ctx.now, quote: { expires_at: expiresAt } });
  return expiresAt;
}

/** Merchant-funded: principal plus platform fee in USDT, or USDC when USDT cannot cover it. */
function merchantFundedOption(ctx: RouteContext, a: AssetDef, principal: Dec): QuoteOption {
  const scale = a.ledger_scale;
  const asset = a.code;
  const merchantFee = ctx.store.merchant.qrFeeRate;
  // Quotes read the prepaid account without creating rows in it.
  const prepaid = (code: string): Dec => ctx.store.merchant.prepaid.get(code)?.available ?? new Decimal(0);
  const feeAmount = merchantFee.isZero() ? new Decimal(0) : Decimal.max(ceilTo(principal.mul(merchantFee), 2), MIN_FEE);
  const usdt = prepaid('USDT').minus(asset === 'USDT' ? principal : 0);
  const feeAsset = usdt.gte(feeAmount) ? 'USDT' : 'USDC';
  const total = ceilTo(principal.mul(PREMIUM.plus(1)), scale);
  const feeBal = prepaid(feeAsset).minus(feeAsset === asset ? total : 0);
  const sufficient = prepaid(asset).gte(total) && feeBal.gte(feeAmount);
  return { asset, scale, display: a.display_scale, total, fee: new Decimal(0), principal, sufficient, feeAsset, feeAmount };
}

/** Member-funded: a same-asset fee folded into the total, checked against the member's balance. */
function memberFundedOption(m: MemberRecord, a: AssetDef, principal: Dec): QuoteOption {
  const scale = a.ledger_scale;
  const asset = a.code;
  const fee = Decimal.max(ceilTo(principal.mul(SAME_ASSET_FEE), scale), MIN_FEE);
  const total = ceilTo(principal.mul(PREMIUM.plus(1)).plus(fee), scale);
  const sufficient = (m.balances.get(asset)?.available ?? new Decimal(0)).gte(total);
  return { asset, scale, display: a.display_scale, total, fee, principal, sufficient, feeAsset: undefined, feeAmount: undefined };
}

/** One option per quoted asset that is in the catalogue and enabled. */
function quoteOptions(ctx: RouteContext, m: MemberRecord, usd: Dec, funding: Funding): QuoteOption[] {
  const quoted = QUOTED_ASSETS.map((code) => ctx.store.assets.find(code)).filter((a): a is AssetDef => a !== undefined && a.enabled);
  return quoted.map((a) => {
    const principal = ceilTo(usdToAsset(usd, a.code), a.ledger_scale);
    return funding === 'merchant' ? merchantFundedOption(ctx, a, principal) : memberFundedOption(m, a, principal);
  });
}

/** The chosen option: the preferred asset, else USDT for the merchant, else the member's first sufficient priority. */
function chooseOption(items: QuoteOption[], preferred: string | undefined, funding: Funding, m: MemberRecord): QuoteOption | undefined {
  if (preferred !== undefined) {
    const chosen = items.find((i) => i.asset === preferred);
    if (!chosen) fail('invalid_request', 'preferred_asset is not among the quoted options');
    return chosen;
  }
  if (funding === 'merchant') return items.find((i) => i.asset === 'USDT') ?? items[0];
  const byPriority = m.paymentPriorities.map((p) => items.find((i) => i.asset === p)).filter((i) => i !== undefined);
  return byPriority.find((i) => i.sufficient) ?? byPriority[0] ?? items[0];
}

/** An option in the response shape. */
function optionView(i: QuoteOption): Record<string, unknown> {
  return {
    asset: i.asset,
    ledger_scale: i.scale,
    display_scale: i.display,
    customer_total: fmt(i.total, i.scale),
    fee: fmt(i.fee, i.scale),
    sufficient: i.sufficient,
    ...(i.feeAsset !== undefined && i.feeAmount !== undefined
      ? { fee_asset: i.feeAsset, fee_amount: fmt(i.feeAmount, 6), fee_ledger_scale: 6 }
      : {}),
  };
}

/** Prices a quote or payment; the upstream part is memoised 60 s per member, code, currency, amount. */
function plan(ctx: RouteContext, m: MemberRecord, body: Record<string, unknown>, memo: boolean): Plan {
  const codeValue = reqString(body, 'code_value');
  const funding = fundingOf(ctx, body);
  if (!ctx.store.merchant.lines.qrpay) fail('service_unavailable', 'QR payments are temporarily unavailable.');
  const d = decodeQr(codeValue);
  if (d.required_payer_fields.length > 0) fail('product_not_available', 'Codes that require payer fields cannot proceed through this API.');
  const currencyIn = optString(body, 'currency');
  const amountIn = body['amount'];
  const { currency, fiat } = fiatOf(d, currencyIn, amountIn);
  const memoKey = `${m.id}|${codeValue}|${currencyIn ?? ''}|${typeof amountIn === 'string' ? amountIn : ''}`;
  const expiresAt = upstreamExpiry(ctx, memoKey, memo);
  const items = quoteOptions(ctx, m, fiatToUsd(fiat, currency), funding);
  if (items.length === 0) fail('service_unavailable', 'No asset can be quoted.');
  const chosen = chooseOption(items, optString(body, 'preferred_asset')?.toUpperCase(), funding, m);
  if (!chosen) fail('service_unavailable', 'No asset can be quoted.');
  return {
    funding,
    chosen: {
      asset: chosen.asset,
      total: chosen.total,
      fee: chosen.fee,
      principal: chosen.principal,
      ...(chosen.feeAsset ? { feeAsset: chosen.feeAsset } : {}),
      ...(chosen.feeAmount ? { feeAmount: chosen.feeAmount } : {}),
    },
    quote: {
      payee: d.payee,
      acquirer_currency: currency,
      acquirer_amount: fmt(fiat, 2),
      expires_at: expiresAt,
      chosen: optionView(chosen),
      options: items.map(optionView),
      blocked_reason: '',
    },
  };
}

/** `POST /v1/qrpay/payments`: prices afresh, then debits the member or the merchant's prepaid pool. */
function createPayment(ctx: RouteContext): RouteResult {
  const m = ctx.requireMember();
  // Payments take a fresh quote, so amounts may differ slightly from the indicative one.
  const p = plan(ctx, m, ctx.json(), false);
  const c = p.chosen;
  if (p.funding === 'member') {
    debit(m, c.asset, 'available', c.total, 'insufficient_balance');
  } else {
    const prin = prepaidOf(ctx.store.merchant, c.asset);
    const feeRow = prepaidOf(ctx.store.merchant, c.feeAsset ?? c.asset);
    const fee = c.feeAmount ?? new Decimal(0);
    const needSame = c.feeAsset === c.asset ? c.total.plus(fee) : c.total;
    if (prin.available.lt(needSame) || feeRow.available.lt(fee)) fail('merchant_insufficient_funds', 'Prepaid balance is too low.');
    prin.available = prin.available.minus(c.total);
    feeRow.available = feeRow.available.minus(fee);
  }
  const id = `qrp_${uuid()}`;
  const out = {
    id,
    status: 'completed',
    funding_source: p.funding,
    asset: c.asset,
    amount: String((p.quote['chosen'] as Record<string, unknown>)['customer_total']),
    payee: p.quote['payee'],
    acquirer_currency: p.quote['acquirer_currency'],
    acquirer_amount: p.quote['acquirer_amount'],
    created_at: iso(ctx.now),
  };
  ctx.store.objects.set(id, out);
  ctx.effect('qrpay.payment', id, { memberId: p.funding === 'member' ? m.id : undefined, asset: c.asset, amount: c.total.toFixed() });
  return { status: 201, body: out };
}

/** QR payment routes. */
export const qrpayRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/qrpay/schemes',
    member: 'none',
    idempotency: 'none',
    handler: () => ({
      status: 200,
      body: staticList([
        { scheme: 'EMVCO', supported: true },
        { scheme: 'SANDBOX', supported: true },
      ]),
    }),
  },
  {
    method: 'POST',
    path: '/v1/qrpay/decode',
    scope: 'qrpay:write',
    member: 'optional',
    idempotency: 'none',
    handler(ctx) {
      return { status: 200, body: decodeQr(reqString(ctx.json(), 'code_value')) };
    },
  },
  {
    method: 'POST',
    path: '/v1/qrpay/quotes',
    scope: 'qrpay:write',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const m = ctx.requireMember();
      // 30 per member per 60 s, on top of the merchant bucket (both must pass).
      if (!ctx.admit('qrpay_quotes_member', m.id)) {
        fail('rate_limited', 'Too many QR quotes for this member.', { extra: { retry_after: 60 }, headers: { 'retry-after': '60' } });
      }
      return { status: 200, body: plan(ctx, m, ctx.json(), true).quote };
    },
  },
  {
    method: 'POST',
    path: '/v1/qrpay/payments',
    scope: 'qrpay:write',
    member: 'required',
    idempotency: 'required',
    handler: createPayment,
  },
];

/**
 * Pricing of QR quotes and payments (spec: QR payment quote). Figures the spec does not give
 * (premium, member fee rate, the sandbox's price list) are the simulator's and say so.
 */
import type { AssetDef } from './assets.js';
import { fail } from './errors.js';
import { iso } from './ids.js';
import { Decimal, ceilTo, fmt, parseAmount, type Dec } from './money.js';
import { FIAT_PER_USD, fiatToUsd, usdToAsset } from './pricing.js';
import { decodeQr, type QrCode } from './qr-codes.js';
import type { RouteContext } from './routes/context.js';
import { optString, reqString } from './routes/fields.js';
import { lineOpen } from './store-ops.js';
import type { MemberRecord, MerchantRecord } from './store.js';

/** Assets the sandbox upstream quotes. */
const QUOTED_ASSETS = ['USDT', 'USDC'];
/** Cost protection and premium folded into `customer_total` (simulator figure). */
const PREMIUM = new Decimal('0.005');
/** Member-funded same-asset fee rate (simulator figure), with the 0.01 minimum. */
const SAME_ASSET_FEE = new Decimal('0.001');
/** Minimum fee of a non-zero rate: 0.01 in the fee unit (spec: Other constants). */
const MIN_FEE = new Decimal('0.01');

/** Who pays: the member (default) or the merchant's prepaid pool. */
type Funding = 'member' | 'merchant';

/** One priced asset of a quote. */
interface QuoteOption {
  asset: string;
  scale: number;
  display: number;
  /** `customer_total`: principal with premium, plus the fee when it is in this asset. */
  total: Dec;
  /** `fee`: the same-asset fee included in `total`; 0 when the fee is in another asset. */
  fee: Dec;
  sufficient: boolean;
  /** Merchant-funded only: the whole platform fee, in `feeAsset`. */
  merchantFee: { asset: string; amount: Dec; scale: number } | undefined;
}

/** A priced request: the quote's body, and what a payment debits. */
export interface QuotePlan {
  funding: Funding;
  chosen: QuoteOption;
  /** Non-empty: the code a payment with `chosen` answers at once. */
  blockedReason: string;
  quote: Record<string, unknown>;
}

/** The fiat side of the request. */
interface FiatAmount {
  currency: string;
  fiat: Dec;
}

/** `member` (default) or `merchant`, which needs the merchant_hosted custody model. */
function fundingOf(ctx: RouteContext, body: Record<string, unknown>): Funding {
  const funding = body['funding_source'] ?? 'member';
  if (funding !== 'member' && funding !== 'merchant') fail('invalid_request', 'funding_source must be member or merchant');
  if (funding === 'merchant' && ctx.store.merchant.custody !== 'merchant_hosted') {
    fail('product_not_available', 'Merchant funding needs merchant_hosted custody.');
  }
  return funding;
}

/**
 * The fiat amount to pay. A fixed-amount code prohibits `currency` and `amount`. A custom-amount
 * code needs `amount` (a plain decimal string, 2 places, simulator's fiat scale); `currency`
 * defaults to the code's, must be a currency the sandbox prices (else `corridor_not_supported`),
 * and the code's seeded bounds apply, in the code's currency (`amount_out_of_range`). The spec
 * states no positivity rule for this amount, so `0` is no malformed request (the client sends it):
 * the sandbox's choice, a business answer, `amount_out_of_range` (nothing is payable below any
 * code's range).
 */
function fiatOf(d: QrCode, body: Record<string, unknown>): FiatAmount {
  const currencyIn = optString(body, 'currency');
  const amountIn = body['amount'] ?? undefined;
  if (!d.amount_editable) {
    if (currencyIn !== undefined || amountIn !== undefined) {
      fail('invalid_request', 'currency and amount are prohibited for fixed-amount codes');
    }
    return { currency: d.currency, fiat: new Decimal(d.amount ?? '0') };
  }
  if (amountIn === undefined) fail('invalid_request', 'amount is required for a custom-amount code');
  const currency = (currencyIn ?? d.currency).toUpperCase();
  const perUsd = FIAT_PER_USD[currency];
  if (perUsd === undefined) fail('corridor_not_supported', `${currency} is not supported.`);
  const fiat = parseAmount(amountIn, 2, 'amount');
  if (fiat.lte(0)) fail('amount_out_of_range', 'amount is outside the range this code accepts.');
  const inCodeCurrency = fiatToUsd(fiat, currency).mul(FIAT_PER_USD[d.currency] ?? perUsd);
  if ((d.minAmount && inCodeCurrency.lt(d.minAmount)) || (d.maxAmount && inCodeCurrency.gt(d.maxAmount))) {
    fail('amount_out_of_range', 'amount is outside the range this code accepts.');
  }
  return { currency, fiat };
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

/** Prepaid available in `code`, read without creating a row. */
export function prepaidAvailable(merchant: MerchantRecord, code: string): Dec {
  return merchant.prepaid.get(code)?.available ?? new Decimal(0);
}

/** The platform fee: principal times the merchant rate, at least 0.01 when the rate is not 0. */
function platformFee(rate: Dec, principal: Dec): Dec {
  return rate.isZero() ? new Decimal(0) : Decimal.max(ceilTo(principal.mul(rate), 2), MIN_FEE);
}

/**
 * Merchant-funded: principal plus the platform fee, in USDT unless the USDT left after a
 * same-asset principal cannot cover the whole fee, then wholly in USDC (never split). A fee in
 * the principal's asset is `fee` and is included in `customer_total`; a fee in another asset
 * leaves `fee` at 0 and is debited additionally (`fee_asset`, `fee_amount`).
 */
function merchantFundedOption(ctx: RouteContext, a: AssetDef, principal: Dec): QuoteOption {
  const merchant = ctx.store.merchant;
  const base = ceilTo(principal.mul(PREMIUM.plus(1)), a.ledger_scale);
  const fee = platformFee(merchant.qrFeeRate, principal);
  const usdtLeft = prepaidAvailable(merchant, 'USDT').minus(a.code === 'USDT' ? base : 0);
  const feeAsset = fee.isZero() ? a.code : usdtLeft.gte(fee) ? 'USDT' : 'USDC';
  const sameAsset = feeAsset === a.code;
  const total = sameAsset ? base.plus(fee) : base;
  const sufficient = prepaidAvailable(merchant, a.code).gte(total) && (sameAsset || prepaidAvailable(merchant, feeAsset).gte(fee));
  const feeScale = ctx.store.assets.find(feeAsset)?.ledger_scale ?? a.ledger_scale;
  return {
    asset: a.code,
    scale: a.ledger_scale,
    display: a.display_scale,
    total,
    fee: sameAsset ? fee : new Decimal(0),
    sufficient,
    merchantFee: { asset: feeAsset, amount: fee, scale: feeScale },
  };
}

/** Member-funded: a same-asset fee folded into the total, checked against the member's balance. */
function memberFundedOption(m: MemberRecord, a: AssetDef, principal: Dec): QuoteOption {
  const fee = Decimal.max(ceilTo(principal.mul(SAME_ASSET_FEE), a.ledger_scale), MIN_FEE);
  const total = ceilTo(principal.mul(PREMIUM.plus(1)).plus(fee), a.ledger_scale);
  const sufficient = (m.balances.get(a.code)?.available ?? new Decimal(0)).gte(total);
  return { asset: a.code, scale: a.ledger_scale, display: a.display_scale, total, fee, sufficient, merchantFee: undefined };
}

/** One option per quoted asset that is in the catalogue and enabled. */
function quoteOptions(ctx: RouteContext, m: MemberRecord, usd: Dec, funding: Funding): QuoteOption[] {
  const quoted = QUOTED_ASSETS.map((code) => ctx.store.assets.find(code)).filter((a): a is AssetDef => a !== undefined && a.enabled);
  return quoted.map((a) => {
    const principal = ceilTo(usdToAsset(usd, a.code), a.ledger_scale);
    return funding === 'merchant' ? merchantFundedOption(ctx, a, principal) : memberFundedOption(m, a, principal);
  });
}

/**
 * The chosen option: the preferred asset (never replaced), else USDT for the merchant, else the
 * member's first sufficient priority. No sufficient option at all is 400 `insufficient_balance`
 * (spec: no usable debit asset), for either funding source.
 */
function chooseOption(items: QuoteOption[], preferred: string | undefined, funding: Funding, m: MemberRecord): QuoteOption {
  const wanted = preferred === undefined ? undefined : items.find((i) => i.asset === preferred);
  if (preferred !== undefined && !wanted) fail('invalid_request', 'preferred_asset is not among the quoted options');
  if (!items.some((i) => i.sufficient)) fail('insufficient_balance', 'No asset can pay this QR code.');
  if (wanted) return wanted;
  if (funding === 'merchant') return items.find((i) => i.asset === 'USDT') ?? (items[0] as QuoteOption);
  const byPriority = m.paymentPriorities.map((p) => items.find((i) => i.asset === p)).filter((i) => i !== undefined);
  return byPriority.find((i) => i.sufficient) ?? byPriority[0] ?? (items[0] as QuoteOption);
}

/** An option in the response shape. */
function optionView(i: QuoteOption): Record<string, unknown> {
  const fee = i.merchantFee;
  return {
    asset: i.asset,
    ledger_scale: i.scale,
    display_scale: i.display,
    customer_total: fmt(i.total, i.scale),
    fee: fmt(i.fee, i.scale),
    sufficient: i.sufficient,
    ...(fee ? { fee_asset: fee.asset, fee_amount: fmt(fee.amount, fee.scale), fee_ledger_scale: fee.scale } : {}),
  };
}

/** A seeded `blocked_reason` for the chosen asset: the member's own first, then the merchant-wide one. */
function blockedReasonOf(ctx: RouteContext, m: MemberRecord, asset: string): string {
  return ctx.store.qrBlocked.get(`${asset}|${m.id}`) ?? ctx.store.qrBlocked.get(asset) ?? '';
}

/**
 * Prices a quote or payment in the spec's order of concerns: code, funding, line, decoding, the
 * fiat amount, the upstream quote (memoised 60 s per member, code, currency and amount), the
 * options, then the chosen asset and its `blocked_reason`.
 */
export function planQr(ctx: RouteContext, m: MemberRecord, body: Record<string, unknown>, memo: boolean): QuotePlan {
  const codeValue = reqString(body, 'code_value');
  const funding = fundingOf(ctx, body);
  if (!lineOpen(ctx.store.merchant, 'qrpay')) fail('service_unavailable', 'QR payments are temporarily unavailable.');
  const d = decodeQr(ctx.store.qrCodes, codeValue);
  if (d.required_payer_fields.length > 0) fail('product_not_available', 'Codes that require payer fields cannot proceed through this API.');
  const { currency, fiat } = fiatOf(d, body);
  const memoKey = `${m.id}|${codeValue}|${optString(body, 'currency') ?? ''}|${typeof body['amount'] === 'string' ? body['amount'] : ''}`;
  const expiresAt = upstreamExpiry(ctx, memoKey, memo);
  const items = quoteOptions(ctx, m, fiatToUsd(fiat, currency), funding);
  if (items.length === 0) fail('service_unavailable', 'No asset can be quoted.');
  const chosen = chooseOption(items, optString(body, 'preferred_asset')?.toUpperCase(), funding, m);
  const blockedReason = blockedReasonOf(ctx, m, chosen.asset);
  return {
    funding,
    chosen,
    blockedReason,
    quote: {
      payee: d.payee,
      acquirer_currency: currency,
      acquirer_amount: fmt(fiat, 2),
      expires_at: expiresAt,
      chosen: optionView(chosen),
      options: items.map(optionView),
      blocked_reason: blockedReason,
    },
  };
}

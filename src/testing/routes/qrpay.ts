/**
 * QR payments. `POST /v1/qrpay/quotes` follows the spec (pricing in `qr-quote.ts`, payloads in
 * `qr-codes.ts`). `GET /v1/qrpay/schemes`, `POST /v1/qrpay/decode` and `POST /v1/qrpay/payments`
 * are named-only in the spec; their shapes here are simulator-invented. A payment prices afresh
 * (the quote is indicative), answers the chosen asset's `blocked_reason` at once when one is
 * seeded, then debits the member or the merchant's prepaid pool.
 */
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { decodeQr, decodedView } from '../qr-codes.js';
import { planQr, prepaidAvailable, type QuotePlan } from '../qr-quote.js';
import { debit, prepaidOf } from '../store-ops.js';
import type { MerchantRecord } from '../store.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { reqString, staticList } from './fields.js';

/** Debits the merchant's prepaid pool: `customer_total` in the chosen asset, plus a fee in another asset. */
function debitMerchant(merchant: MerchantRecord, p: QuotePlan): void {
  const c = p.chosen;
  const fee = c.merchantFee;
  const extraFee = fee !== undefined && fee.asset !== c.asset ? fee : undefined;
  const short =
    prepaidAvailable(merchant, c.asset).lt(c.total) || (extraFee && prepaidAvailable(merchant, extraFee.asset).lt(extraFee.amount));
  if (short) fail('merchant_insufficient_funds', 'Prepaid balance is too low.');
  const row = prepaidOf(merchant, c.asset);
  row.available = row.available.minus(c.total);
  if (extraFee) {
    const feeRow = prepaidOf(merchant, extraFee.asset);
    feeRow.available = feeRow.available.minus(extraFee.amount);
  }
}

/** `POST /v1/qrpay/payments`: prices afresh, then debits the member or the merchant's prepaid pool. */
function createPayment(ctx: RouteContext): RouteResult {
  const m = ctx.requireMember();
  const p = planQr(ctx, m, ctx.json(), false);
  // A non-empty blocked_reason is the code payments return immediately (spec).
  if (p.blockedReason !== '') fail(p.blockedReason, `The chosen asset is blocked: ${p.blockedReason}.`);
  const c = p.chosen;
  if (p.funding === 'member') debit(m, c.asset, 'available', c.total, 'insufficient_balance');
  else debitMerchant(ctx.store.merchant, p);
  const id = `qrp_${uuid()}`;
  const chosen = p.quote['chosen'] as Record<string, unknown>;
  const out = {
    id,
    status: 'completed',
    funding_source: p.funding,
    asset: c.asset,
    amount: String(chosen['customer_total']),
    payee: p.quote['payee'],
    acquirer_currency: p.quote['acquirer_currency'],
    acquirer_amount: p.quote['acquirer_amount'],
    created_at: iso(ctx.now),
  };
  ctx.store.objects.set(id, out);
  ctx.effect('qrpay.payment', id, { memberId: p.funding === 'member' ? m.id : undefined, asset: c.asset, amount: c.total.toFixed() });
  return { status: 201, body: out };
}

/** `POST /v1/qrpay/quotes`: 30 per member per 60 s on top of the merchant bucket (both must pass). */
function createQuote(ctx: RouteContext): RouteResult {
  const m = ctx.requireMember();
  if (!ctx.admit('qrpay_quotes_member', m.id)) {
    fail('rate_limited', 'Too many QR quotes for this member.', { extra: { retry_after: 60 }, headers: { 'retry-after': '60' } });
  }
  return { status: 200, body: planQr(ctx, m, ctx.json(), true).quote };
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
    member: 'optional',
    idempotency: 'none',
    handler: (ctx) => ({ status: 200, body: decodedView(decodeQr(ctx.store.qrCodes, reqString(ctx.json(), 'code_value'))) }),
  },
  {
    method: 'POST',
    path: '/v1/qrpay/quotes',
    scope: 'qrpay:write',
    member: 'required',
    idempotency: 'none',
    handler: createQuote,
  },
  {
    method: 'POST',
    path: '/v1/qrpay/payments',
    member: 'required',
    idempotency: 'required',
    handler: createPayment,
  },
];

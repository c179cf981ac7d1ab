/** `POST /v1/merchant/conversions` (spec shape): atomic, priced from the sandbox price list. */
import type { AssetDef } from '../assets.js';
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { ceilTo, floorTo, fmt, parseAmount, parsePositive, type Dec } from '../money.js';
import { convert, rateOf } from '../pricing.js';
import type { ConversionPair } from '../pricing.js';
import { lineOpen, prepaidOf } from '../store-ops.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';

/** A conversion as requested, its fields checked. */
interface ConversionOrder {
  from: AssetDef;
  to: AssetDef;
  fromAmount: Dec;
  minTo: Dec | undefined;
}

/** The converted amount and the fee, in the asset of the pair's fee side. */
interface Priced {
  fee: Dec;
  toAmount: Dec;
}

/** Reads and checks the assets and amounts of the body. */
function readOrder(ctx: RouteContext, body: Record<string, unknown>): ConversionOrder {
  const from = ctx.store.assets.requireEnabled(body['from_asset'], 'from_asset');
  const to = ctx.store.assets.requireEnabled(body['to_asset'], 'to_asset');
  if (from.code === to.code) fail('invalid_request', 'to_asset must differ from from_asset');
  const fromAmount = parsePositive(body['from_amount'], from.ledger_scale, 'from_amount');
  const minTo = body['min_to_amount'] === undefined ? undefined : parseAmount(body['min_to_amount'], to.ledger_scale, 'min_to_amount');
  return { from, to, fromAmount, minTo };
}

/** The price-list entry of the order, once custody, the list, the line and the range allow it. */
function usablePair(ctx: RouteContext, { from, to, fromAmount }: ConversionOrder): ConversionPair {
  const { merchant } = ctx.store;
  if (merchant.custody !== 'merchant_hosted') fail('product_not_available', 'Conversions need the merchant_hosted custody model.');
  const pair = ctx.store.conversionPairs.get(`${from.code}>${to.code}`);
  if (!pair || !pair.enabled) fail('product_not_available', `${from.code} to ${to.code} is not in the price list.`);
  // Not cached under the key: the same key may be retried once the line is back.
  if (!lineOpen(merchant, 'conversion')) fail('service_unavailable', 'Conversions are temporarily unavailable.', { storable: false });
  if ((pair.min_from_amount && fromAmount.lt(pair.min_from_amount)) || (pair.max_from_amount && fromAmount.gt(pair.max_from_amount))) {
    fail('amount_out_of_range', 'from_amount is outside the permitted range.');
  }
  return pair;
}

/** Prices the order: the fee is taken on the pair's fee side, rounded up; the result rounded down. */
function price({ from, to, fromAmount }: ConversionOrder, pair: ConversionPair): Priced {
  // The published rate is rounded; amounts are converted at full precision.
  const at = (amount: Dec): Dec => (pair.rate ? amount.mul(pair.rate) : convert(amount, from.code, to.code));
  if (pair.fee_side === 'to') {
    const gross = at(fromAmount);
    const fee = ceilTo(gross.mul(pair.fee_rate), to.ledger_scale);
    return { fee, toAmount: floorTo(gross.minus(fee), to.ledger_scale) };
  }
  const fee = ceilTo(fromAmount.mul(pair.fee_rate), from.ledger_scale);
  return { fee, toAmount: floorTo(at(fromAmount.minus(fee)), to.ledger_scale) };
}

/** Moves the amounts between the merchant's prepaid rows. */
function settle(ctx: RouteContext, { from, to, fromAmount }: ConversionOrder, toAmount: Dec): void {
  const src = prepaidOf(ctx.store.merchant, from.code);
  // Orders queued in pending_merchant_funds count against what may be converted.
  if (src.available.minus(src.queued).lt(fromAmount)) fail('merchant_insufficient_funds', 'Prepaid balance is too low.');
  src.available = src.available.minus(fromAmount);
  const dst = prepaidOf(ctx.store.merchant, to.code);
  dst.available = dst.available.plus(toAmount);
}

/** The conversion in the spec's response shape. */
function conversionView(
  ctx: RouteContext,
  id: string,
  order: ConversionOrder,
  pair: ConversionPair,
  { fee, toAmount }: Priced,
): Record<string, unknown> {
  const { from, to, fromAmount } = order;
  const feeAsset = pair.fee_side === 'to' ? to : from;
  return {
    id,
    from_asset: from.code,
    to_asset: to.code,
    from_amount: fmt(fromAmount, from.ledger_scale),
    to_amount: fmt(toAmount, to.ledger_scale),
    rate: (pair.rate ?? rateOf(from.code, to.code)).toFixed(),
    fee_asset: feeAsset.code,
    fee_amount: fmt(fee, feeAsset.ledger_scale),
    ledger_scale_from: from.ledger_scale,
    ledger_scale_to: to.ledger_scale,
    created_at: iso(ctx.now),
  };
}

/** Executes a conversion: checks in the spec's order, then one atomic move of prepaid funds. */
function createConversion(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  // Presence, not emptiness: `"quote_id": null` and `""` are refused too (spec).
  if (Object.prototype.hasOwnProperty.call(body, 'quote_id')) {
    fail('quote_lock_unsupported', 'This endpoint prices at execution time; quote_id is not accepted.');
  }
  const key = ctx.idempotencyKey ?? '';
  // Funds-layer unique constraint: after the 24 h idempotency window the order is
  // still recognised by its key and returned with 200 and `duplicated: true`.
  const prior = ctx.store.conversionsByKey.get(key);
  if (prior) return { status: 200, body: { ...prior, duplicated: true } };

  const order = readOrder(ctx, body);
  const pair = usablePair(ctx, order);
  const priced = price(order, pair);
  if (priced.toAmount.lte(0) || (order.minTo !== undefined && priced.toAmount.lt(order.minTo))) {
    fail('amount_out_of_range', 'The converted amount is below min_to_amount.');
  }
  settle(ctx, order, priced.toAmount);
  const id = `mcv_${uuid()}`;
  const out = conversionView(ctx, id, order, pair, priced);
  ctx.store.conversionsByKey.set(key, out);
  ctx.effect('conversion.execute', id, { asset: order.from.code, amount: order.fromAmount.toFixed() });
  return { status: 201, body: out };
}

/** Merchant conversion route. */
export const conversionRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/merchant/conversions',
    scope: 'merchant:write',
    member: 'none',
    idempotency: 'required',
    handler: createConversion,
  },
];

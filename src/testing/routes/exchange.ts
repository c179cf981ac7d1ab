/**
 * Member internal exchange. `POST /v1/exchange/quotes` and `POST /v1/exchange/orders` are
 * named-only in the spec; their shapes here are simulator-invented. An order executes at once
 * (`executed` is terminal) and emits `exchange.order.executed` with `status_version` 0.
 * `GET /v1/exchange/orders/{id}` is not in the spec's catalogue; it lets event receivers fetch.
 */
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { Decimal, ceilTo, floorTo, fmt, parsePositive, type Dec } from '../money.js';
import { convert, rateOf } from '../pricing.js';
import { adjust, debit, lineOpen } from '../store-ops.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { optString } from './fields.js';

/** Member exchange fee: 0.2 %, in the `to` asset (simulator figure). */
const EXCHANGE_FEE = new Decimal('0.002');
/** Quote lifetime: 30 s (simulator figure). */
const QUOTE_TTL_MS = 30_000;

interface Priced {
  from: string;
  to: string;
  fromAmount: Dec;
  toAmount: Dec;
  fee: Dec;
  rate: Dec;
}

function price(ctx: RouteContext, body: Record<string, unknown>): Priced {
  const from = ctx.store.assets.requireEnabled(body['from_asset'], 'from_asset');
  const to = ctx.store.assets.requireEnabled(body['to_asset'], 'to_asset');
  if (from.code === to.code) fail('invalid_request', 'to_asset must differ from from_asset');
  const fromAmount = parsePositive(body['from_amount'], from.ledger_scale, 'from_amount');
  if (!lineOpen(ctx.store.merchant, 'exchange')) fail('service_unavailable', 'Exchange is temporarily unavailable.');
  const rate = rateOf(from.code, to.code);
  const gross = convert(fromAmount, from.code, to.code);
  const fee = ceilTo(gross.mul(EXCHANGE_FEE), to.ledger_scale);
  const toAmount = floorTo(gross.minus(fee), to.ledger_scale);
  if (toAmount.lte(0)) fail('amount_out_of_range', 'from_amount is too small.');
  return { from: from.code, to: to.code, fromAmount, toAmount, fee, rate };
}

function view(ctx: RouteContext, p: Priced): Record<string, unknown> {
  const fs = ctx.store.assets.get(p.from).ledger_scale;
  const ts = ctx.store.assets.get(p.to).ledger_scale;
  return {
    from_asset: p.from,
    to_asset: p.to,
    from_amount: fmt(p.fromAmount, fs),
    to_amount: fmt(p.toAmount, ts),
    rate: p.rate.toFixed(),
    fee_asset: p.to,
    fee_amount: fmt(p.fee, ts),
  };
}

/** `POST /v1/exchange/orders`. */
function executeExchange(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const m = ctx.requireMember();
  const quoteId = optString(body, 'quote_id');
  let p: Priced;
  if (quoteId !== undefined) {
    const q = ctx.store.objects.get(quoteId);
    if (!q || q['memberId'] !== m.id) fail('invalid_request', 'Unknown quote_id.');
    // An expired locked quote is always rejected; an unlocked one is repriced.
    if (q['locked'] === true && Number(q['expiresAtMs']) <= ctx.now) fail('state_invalid', 'The locked quote has expired.');
    p = q['locked'] === true ? (q['priced'] as Priced) : price(ctx, q);
  } else {
    p = price(ctx, body);
  }
  debit(m, p.from, 'available', p.fromAmount);
  adjust(m, p.to, 'available', p.toAmount);
  const id = uuid();
  const order = { id, status: 'executed', ...view(ctx, p), created_at: iso(ctx.now) };
  ctx.store.objects.set(`exchange_order:${id}`, { ...order, memberId: m.id });
  ctx.effect('exchange.order', id, { memberId: m.id, asset: p.from, amount: p.fromAmount.toFixed() });
  ctx.emit({
    event_type: 'exchange.order.executed',
    data: { object: 'exchange_order', id, external_member_id: m.external_member_id, status: 'executed', status_version: 0 },
  });
  return { status: 201, body: order };
}

/** Member exchange routes. */
export const exchangeRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/exchange/quotes',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const body = ctx.json();
      const m = ctx.requireMember();
      const p = price(ctx, body);
      const id = `exq_${uuid()}`;
      const locked = body['lock'] === true;
      const quote = { id, ...view(ctx, p), locked, expires_at: iso(ctx.now + QUOTE_TTL_MS) };
      ctx.store.objects.set(id, { ...quote, memberId: m.id, expiresAtMs: ctx.now + QUOTE_TTL_MS, priced: p });
      return { status: 200, body: quote };
    },
  },
  {
    method: 'POST',
    path: '/v1/exchange/orders',
    member: 'required',
    idempotency: 'required',
    handler: executeExchange,
  },
  {
    method: 'GET',
    path: '/v1/exchange/orders/:id',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const m = ctx.requireMember();
      const o = ctx.store.objects.get(`exchange_order:${ctx.params['id'] ?? ''}`);
      if (!o || o['memberId'] !== m.id) fail('not_found', 'No such order.');
      const { memberId: _omit, ...rest } = o;
      return { status: 200, body: rest };
    },
  },
];

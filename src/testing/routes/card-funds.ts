/**
 * Card products, applications and funding. All of these are named-only in the spec; their
 * shapes here are simulator-invented. Funding moves the member's `available` into the `card`
 * bucket 1:1 (one USDT = one card-currency unit in the sandbox).
 */
import { externalIdOf, makeCard, productView, withdrawableOf } from '../card-logic.js';
import { fail } from '../errors.js';
import { iso, uuid } from '../ids.js';
import { fmt, parseAmount, parsePositive } from '../money.js';
import { debit, kycLevel, lineOpen, move } from '../store-ops.js';
import type { MemberRecord, ProductRecord } from '../store.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { cardOf } from './cards.js';
import { optString, staticList, withPrefix } from './fields.js';

function productOf(ctx: RouteContext, raw: unknown): ProductRecord {
  if (typeof raw !== 'string' || raw === '') fail('invalid_request', 'card_product_id is required');
  const p = ctx.store.products.get(withPrefix(raw, 'cpd_'));
  if (!p) fail('card_product_not_found', 'No such card product.');
  if (!p.enabled) fail('product_not_available', 'The card product is not available.');
  return p;
}

/** Genuine KYC at the product's level, or a quick binding of this member for L1 products. */
function kycSatisfied(m: MemberRecord, p: ProductRecord, bindingId: string | undefined): boolean {
  if (kycLevel(m) >= p.kyc_level) return true;
  if (p.kyc_level > 1) return false;
  return bindingId === undefined ? m.quickKyc.length > 0 : m.quickKyc.some((b) => b.id === bindingId);
}

/** `GET /v1/cards/products/{id}/quote`. */
function quoteProduct(ctx: RouteContext): RouteResult {
  const m = ctx.requireMember();
  const p = productOf(ctx, ctx.params['id']);
  const topupRaw = ctx.query.get('initial_topup');
  const topup = topupRaw === null ? p.min_initial_topup : parsePositive(topupRaw, 2, 'initial_topup');
  const binding = ctx.query.get('quick_kyc_binding_id') ?? undefined;
  return {
    status: 200,
    body: {
      product_id: p.id,
      asset: 'USDT',
      issuance_fee: fmt(p.issuance_fee, 2),
      initial_topup: fmt(topup, 2),
      total: fmt(p.issuance_fee.plus(topup), 2),
      kyc_satisfied: kycSatisfied(m, p, binding),
    },
  };
}

/** `POST /v1/cards/applications`. */
function applyForCard(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const m = ctx.requireMember();
  const p = productOf(ctx, body['card_product_id'] ?? body['product_id']);
  if (!lineOpen(ctx.store.merchant, 'card')) fail('service_unavailable', 'Card issuance is temporarily unavailable.');
  if (!kycSatisfied(m, p, optString(body, 'quick_kyc_binding_id'))) fail('kyc_required', 'KYC is below the product requirement.');
  const topup = body['initial_topup'] === undefined ? p.min_initial_topup : parseAmount(body['initial_topup'], 2, 'initial_topup');
  if (topup.lt(p.min_initial_topup)) fail('amount_out_of_range', 'initial_topup is below the product minimum.');
  const need = p.issuance_fee.plus(topup);
  const avail = m.balances.get('USDT')?.available;
  if (!avail || avail.lt(need)) fail('insufficient_balance', 'available USDT balance is too low.');
  debit(m, 'USDT', 'available', p.issuance_fee);
  move(m, { asset: 'USDT', from: 'available', to: 'card', amount: topup });
  const appUuid = uuid();
  const card = makeCard({
    id: `crd_${uuid()}`,
    memberId: m.id,
    form: p.form,
    status: p.form === 'virtual' ? 'active' : 'unactivated',
    product: p,
    now: ctx.now,
    applicationId: `cap_${appUuid}`,
  });
  if (p.form === 'virtual') card.balance = topup;
  else card.pendingInitialTopup = topup;
  ctx.store.cards.set(card.id, card);
  ctx.effect('card.application', card.id, { memberId: m.id, asset: 'USDT', amount: need.toFixed() });
  const ext = externalIdOf(ctx.store, m.id);
  ctx.emit({
    event_type: 'card.application.approved',
    data: { object: 'card_application', id: `cap_${appUuid}`, external_member_id: ext, status: 'approved' },
  });
  if (p.form === 'virtual' && topup.gt(0)) {
    // Virtual cards are funded when issuance settles; the initial top-up has no ctp_ row.
    ctx.emit({
      event_type: 'card.topup.credited',
      data: { object: 'card_topup', id: `first:${appUuid}`, external_member_id: ext, status: 'credited' },
    });
  }
  return {
    status: 201,
    body: { id: `cap_${appUuid}`, status: 'approved', card_id: card.id, product_id: p.id, form: p.form, created_at: iso(ctx.now) },
  };
}

/** `POST /v1/cards/{id}/topups`. */
function topUpCard(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const c = cardOf(ctx);
  const asset = ctx.store.assets.requireEnabled(body['asset'] ?? c.funding_asset);
  if (asset.code !== c.funding_asset) fail('asset_not_allowed', `Cards are funded in ${c.funding_asset}.`);
  const amount = parsePositive(body['amount'], c.scale, 'amount');
  if (c.status !== 'active') fail('state_invalid', `The card is ${c.status}.`);
  const m = ctx.requireMember();
  move(m, { asset: asset.code, from: 'available', to: 'card', amount });
  c.balance = c.balance.plus(amount);
  const id = `ctp_${uuid()}`;
  ctx.store.objects.set(id, { id, card_id: c.id, status: 'credited', asset: asset.code, amount: fmt(amount, c.scale) });
  ctx.effect('card.topup', id, { memberId: m.id, asset: asset.code, amount: amount.toFixed() });
  // 201 only acknowledges the order; the event says the funds reached the card.
  ctx.emit({
    event_type: 'card.topup.credited',
    data: { object: 'card_topup', id, external_member_id: m.external_member_id, status: 'credited' },
  });
  return {
    status: 201,
    body: { id, card_id: c.id, status: 'pending', asset: asset.code, amount: fmt(amount, c.scale), created_at: iso(ctx.now) },
  };
}

/** `POST /v1/cards/{id}/withdrawals`. */
function withdrawFromCard(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const c = cardOf(ctx);
  if (body['reason'] === 'close') fail('invalid_request', 'reason=close is not accepted; use POST /v1/cards/{id}/close');
  const amount = parsePositive(body['amount'], c.scale, 'amount');
  if (c.status !== 'active' || c.pendingWithdraw) fail('state_invalid', 'No balance return can start now.');
  // Keeps the product's minimum retained balance, unlike close.
  if (withdrawableOf(c).lt(amount)) fail('insufficient_balance', 'The card balance that may be withdrawn is too low.');
  const m = ctx.requireMember();
  move(m, { asset: c.funding_asset, from: 'card', to: 'available', amount }, 'insufficient_balance');
  c.balance = c.balance.minus(amount);
  const id = `cwd_${uuid()}`;
  ctx.effect('card.withdrawal', id, { memberId: m.id, asset: c.funding_asset, amount: amount.toFixed() });
  return {
    status: 201,
    body: { id, card_id: c.id, status: 'completed', asset: c.funding_asset, amount: fmt(amount, c.scale), created_at: iso(ctx.now) },
  };
}

/** Card product, application and funding routes. */
export const cardFundsRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/cards/products',
    member: 'none',
    idempotency: 'none',
    handler: (ctx) => ({ status: 200, body: staticList([...ctx.store.products.values()].filter((p) => p.enabled).map(productView)) }),
  },
  {
    method: 'GET',
    path: '/v1/cards/products/:id/quote',
    member: 'required',
    idempotency: 'none',
    handler: quoteProduct,
  },
  {
    method: 'POST',
    path: '/v1/cards/applications',
    member: 'required',
    idempotency: 'required',
    handler: applyForCard,
  },
  {
    method: 'POST',
    path: '/v1/cards/:id/topups',
    member: 'required',
    idempotency: 'required',
    handler: topUpCard,
  },
  {
    method: 'POST',
    path: '/v1/cards/:id/withdrawals',
    member: 'required',
    idempotency: 'required',
    handler: withdrawFromCard,
  },
];

/**
 * Card lifecycle. Unfreeze, activate, close-check and limits follow the spec. `GET
 * /v1/cards/{id}` and `POST /v1/cards/{id}/close` are named-only; their shapes here are
 * simulator-invented.
 */
import { ACTIVATION_LOCK_MS, ACTIVATION_MAX_FAILURES, closeCheck, closePhaseOf, externalIdOf, lockedUntilIso } from '../card-logic.js';
import { fail } from '../errors.js';
import { fmt, parseAmount, type Dec } from '../money.js';
import { move } from '../store-ops.js';
import type { CardRecord } from '../store.js';
import { cardView } from '../views.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { owned, reqString } from './fields.js';

const GONE = ['closed', 'closing', 'expired'];

/** The member's card; another member's card is 404 `not_found`. */
export function cardOf(ctx: RouteContext): CardRecord {
  return owned(ctx.store.cards, ctx.params['id'] ?? '', ctx.requireMember());
}

/** Queues a card event for the card's member. */
function emitCard(ctx: RouteContext, type: string, c: CardRecord): void {
  ctx.emit({
    event_type: type,
    data: { object: 'card', id: c.id, external_member_id: externalIdOf(ctx.store, c.memberId), status: c.status },
  });
}

function setStatus(ctx: RouteContext, c: CardRecord, status: string): void {
  c.status = status;
  c.statusChangedAt = ctx.now;
}

/**
 * Reads one limit. A string that is not an amount at all (`abc`, `1e3`, `-5`) is 500 `api_error`,
 * as the limits section says the current implementation answers; an amount with an excess
 * non-zero digit beyond the card's scale (`10.001` at scale 2) is 400 `invalid_request`, by the
 * Conventions rule on request amounts (excess zeros are accepted).
 *
 * "No limit" is exactly `0`, the spec's wording; any other zero (`0.00`, `00`) is a value below
 * one currency unit, 400 `invalid_fields` (sandbox's choice, the client's too: read as "no
 * limit", a zero meant as "block all spending" would let every payment through).
 */
function limitValue(raw: unknown, key: string, c: CardRecord): Dec | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string') fail('invalid_request', `${key} must be a decimal string`);
  if (!/^\d+(\.\d+)?$/.test(raw)) fail('api_error', 'Internal error.');
  const v = parseAmount(raw, c.scale, key);
  if (raw !== '0' && v.lt(1)) fail('invalid_fields', `${key} is below one currency unit (only exactly "0" means no limit).`);
  const max = c.maxLimits[key as 'single' | 'daily' | 'monthly'];
  if (v.gt(max)) fail('invalid_fields', `${key} exceeds the product maximum.`);
  return v;
}

/** `POST /v1/cards/{id}/activate`. */
function activateCard(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const c = cardOf(ctx);
  // Already active: 200, and the failure counter is not touched.
  if (c.status === 'active') return { status: 200, body: { id: c.id, status: 'active' } };
  const lockedUntil = lockedUntilIso(c, ctx.now);
  if (lockedUntil !== null) fail('state_invalid', 'Activation is locked after 3 failures.', { extra: { locked_until: lockedUntil } });
  if (c.form !== 'physical' || c.status !== 'unactivated') fail('state_invalid', 'The card is not awaiting activation.');
  const expiry = reqString(body, 'expiry');
  const pin = reqString(body, 'pin');
  if (!/^(0[1-9]|1[0-2])\/\d{2}$/.test(expiry)) fail('invalid_request', 'expiry must be MM/YY');
  // Not shipped yet: 500 api_error, not counted as a failure.
  if (c.inventory === 'in_stock') fail('api_error', 'Internal error.');
  if (expiry !== c.expiry || pin !== c.pin) {
    c.failures += 1;
    if (c.failures >= ACTIVATION_MAX_FAILURES) {
      c.lockedUntil = ctx.now + ACTIVATION_LOCK_MS;
      c.failures = 0;
    }
    fail('api_error', 'Internal error.');
  }
  c.failures = 0;
  c.inventory = 'bound';
  setStatus(ctx, c, 'active');
  if (c.pendingInitialTopup.gt(0)) {
    // Physical cards are funded after activation.
    c.balance = c.balance.plus(c.pendingInitialTopup);
    c.pendingInitialTopup = c.pendingInitialTopup.mul(0);
    ctx.emit({
      event_type: 'card.topup.credited',
      data: {
        object: 'card_topup',
        id: `first:${(c.application_id ?? '').replace(/^cap_/, '')}`,
        external_member_id: externalIdOf(ctx.store, c.memberId),
        status: 'credited',
      },
    });
  }
  emitCard(ctx, 'card.activated', c);
  return { status: 200, body: { id: c.id, status: 'active' } };
}

/** `POST /v1/cards/{id}/close`. */
function closeCard(ctx: RouteContext): RouteResult {
  ctx.json();
  const c = cardOf(ctx);
  if (GONE.includes(c.status)) fail('state_invalid', `The card is ${c.status}.`);
  const phase = closePhaseOf(c);
  if (phase !== 'idle' || c.pendingWithdraw) fail('state_invalid', `Close is blocked (${phase}).`);
  const m = ctx.store.members.get(c.memberId);
  // Close returns the whole balance, ignoring the minimum retained amount.
  const returned = c.balance;
  if (m && returned.gt(0)) move(m, { asset: c.funding_asset, from: 'card', to: 'available', amount: returned }, 'state_invalid');
  c.balance = c.balance.mul(0);
  c.closeRequested = true;
  setStatus(ctx, c, 'closed');
  ctx.effect('card.close', c.id, { memberId: c.memberId, asset: c.funding_asset, amount: returned.toFixed() });
  emitCard(ctx, 'card.status.updated', c);
  return { status: 200, body: { id: c.id, status: c.status, returned_amount: fmt(returned, c.scale), asset: c.funding_asset } };
}

/** Card lifecycle routes. */
export const cardRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/cards/:id',
    member: 'required',
    idempotency: 'none',
    handler: (ctx) => ({ status: 200, body: cardView(cardOf(ctx), ctx.now) }),
  },
  {
    method: 'POST',
    path: '/v1/cards/:id/unfreeze',
    scope: 'cards:write',
    member: 'required',
    idempotency: 'required',
    handler(ctx) {
      ctx.json();
      const c = cardOf(ctx);
      // Risk freezes are lifted only by operators; today they surface as 500 api_error.
      if (c.status === 'risk_frozen') fail('api_error', 'Internal error.');
      if (c.status !== 'frozen') fail('state_invalid', `The card is ${c.status}, not frozen.`);
      setStatus(ctx, c, 'unfreezing');
      emitCard(ctx, 'card.status.updated', c);
      return { status: 200, body: { id: c.id, status: c.status } };
    },
  },
  {
    method: 'POST',
    path: '/v1/cards/:id/activate',
    member: 'required',
    idempotency: 'required',
    handler: activateCard,
  },
  {
    method: 'GET',
    path: '/v1/cards/:id/close-check',
    member: 'required',
    idempotency: 'none',
    handler: (ctx) => ({ status: 200, body: closeCheck(cardOf(ctx)) }),
  },
  {
    method: 'POST',
    path: '/v1/cards/:id/close',
    member: 'required',
    idempotency: 'required',
    handler: closeCard,
  },
  {
    method: 'PATCH',
    path: '/v1/cards/:id/limits',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const body = ctx.json();
      const c = cardOf(ctx);
      if (GONE.includes(c.status)) fail('state_invalid', `The card is ${c.status}.`);
      if (!c.limits_updatable) fail('product_not_available', 'Limits of this card cannot be changed.');
      const next = {
        single: limitValue(body['single'], 'single', c) ?? c.limits.single,
        daily: limitValue(body['daily'], 'daily', c) ?? c.limits.daily,
        monthly: limitValue(body['monthly'], 'monthly', c) ?? c.limits.monthly,
      };
      const bad = (lo: Dec, hi: Dec): boolean => !lo.isZero() && !hi.isZero() && hi.lt(lo);
      if (bad(next.single, next.daily) || bad(next.daily, next.monthly))
        fail('invalid_fields', 'Limits must satisfy single <= daily <= monthly.');
      c.limits = next;
      return { status: 200, body: { id: c.id, accepted: true } };
    },
  },
];

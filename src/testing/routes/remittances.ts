/**
 * Remittance orders. Cancel and pending-action follow the spec. `GET /v1/remittances`,
 * `GET /v1/remittances/{id}` and `POST /v1/remittances/{id}/reconfirm` are named-only; their
 * shapes here are simulator-invented. Orders are seeded with `sandbox.state.seedRemittance()`
 * (the spec lists no creation endpoint).
 */
import { paginate } from '../cursor.js';
import { fail } from '../errors.js';
import { iso } from '../ids.js';
import { fmt } from '../money.js';
import { MAX_ROUNDS, pendingAction, releaseHolds, totalHeld } from '../remittance-logic.js';
import { move } from '../store-ops.js';
import type { RemittanceRecord, Store } from '../store.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { owned, reqString, withPrefix } from './fields.js';

/** Simulator-invented order shape. */
function remittanceView(store: Store, r: RemittanceRecord): Record<string, unknown> {
  const scale = store.assets.get(r.asset).ledger_scale;
  return {
    id: r.id,
    status: r.status,
    line: r.line,
    asset: r.asset,
    amount: fmt(r.amount, scale),
    locked: fmt(totalHeld(r), scale),
    ledger_scale: scale,
    created_at: iso(r.created_at),
  };
}

function orderOf(ctx: RouteContext): RemittanceRecord {
  return owned(ctx.store.remittances, withPrefix(ctx.params['id'] ?? '', 'rmt_'), ctx.requireMember());
}

/**
 * `POST /v1/remittances/{id}/cancel`. An order outside `needs_reconfirm` is 500 `api_error`, as
 * the spec says the current implementation answers (retrying does not resolve it, and the outcome
 * is not stored under the key), or 400 `state_invalid`, the spec's primary answer, when seeded with
 * `cancel_answer: 'state_invalid'`. A `needs_reconfirm` order seeded with `cancel_blocked` (a
 * settlement journal exists, the locking journal is missing, or the status changed meanwhile) is
 * 400 `state_invalid`. Otherwise every hold returns to `available` and the prepaid hold is released.
 */
function cancelOrder(ctx: RouteContext): RouteResult {
  ctx.json();
  const r = orderOf(ctx);
  if (r.status !== 'needs_reconfirm') {
    if (r.cancelAnswer === 'state_invalid') fail('state_invalid', `The order is ${r.status}; it cannot be canceled.`);
    fail('api_error', 'Internal error.');
  }
  if (r.cancelBlocked) fail('state_invalid', 'The order cannot be canceled in its current state.');
  const returned = totalHeld(r);
  releaseHolds(ctx.store, r, 'canceled');
  ctx.effect('remittance.cancel', r.id, { memberId: r.memberId, asset: r.asset, amount: returned.toFixed() });
  return { status: 200, body: { id: r.id, status: 'canceled' } };
}

/** `POST /v1/remittances/{id}/reconfirm`. */
function reconfirmOrder(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const r = orderOf(ctx);
  if (r.status !== 'needs_reconfirm' || r.action !== 'auto') fail('state_invalid', 'Nothing to reconfirm.');
  const scale = ctx.store.assets.get(r.asset).ledger_scale;
  // Acceptance is sending `new_total` unchanged (spec: slippage).
  if (reqString(body, 'new_total') !== fmt(r.slippage.new_total, scale))
    fail('invalid_request', 'new_total does not match the pending action');
  if (r.rounds >= MAX_ROUNDS) fail('state_invalid', 'Too many reconfirmation rounds.');
  const m = ctx.requireMember();
  move(m, { asset: r.asset, from: 'available', to: 'locked', amount: r.slippage.extra_locked });
  r.extraHolds.push(r.slippage.extra_locked);
  r.rounds += 1;
  r.status = 'processing';
  ctx.effect('remittance.reconfirm', r.id, { memberId: m.id, asset: r.asset, amount: r.slippage.extra_locked.toFixed() });
  return { status: 200, body: { id: r.id, status: r.status } };
}

/** Remittance order routes. */
export const remittanceRoutes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v1/remittances',
    member: 'required',
    idempotency: 'none',
    handler(ctx) {
      const m = ctx.requireMember();
      const mine = [...ctx.store.remittances.values()].filter((r) => r.memberId === m.id);
      const { page, next_cursor, has_more } = paginate(mine, ctx.query, { now: ctx.now, generation: ctx.store.cursorGeneration });
      return { status: 200, body: { data: page.map((r) => remittanceView(ctx.store, r)), next_cursor, has_more } };
    },
  },
  {
    method: 'GET',
    path: '/v1/remittances/:id',
    member: 'required',
    idempotency: 'none',
    handler: (ctx) => ({ status: 200, body: remittanceView(ctx.store, orderOf(ctx)) }),
  },
  {
    method: 'GET',
    path: '/v1/remittances/:id/pending-action',
    member: 'required',
    idempotency: 'none',
    handler: (ctx) => ({ status: 200, body: pendingAction(ctx.store, orderOf(ctx)) }),
  },
  {
    method: 'POST',
    path: '/v1/remittances/:id/cancel',
    scope: 'remittances:write',
    member: 'required',
    idempotency: 'required',
    handler: cancelOrder,
  },
  {
    method: 'POST',
    path: '/v1/remittances/:id/reconfirm',
    member: 'required',
    idempotency: 'required',
    handler: reconfirmOrder,
  },
];

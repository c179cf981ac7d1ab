/** Remittance rules shared by routes and the time sweep (spec: States > Remittance order). */
import { iso } from './ids.js';
import { fmt } from './money.js';
import { move, prepaidOf } from './store-ops.js';
import type { RemittanceRecord, Store } from './store.js';

/** Reconfirmation window: 4 hours. */
export const RECONFIRM_WINDOW_MS = 4 * 60 * 60 * 1000;
/** Slippage rounds before `too_many_rounds` (simulator figure). */
export const MAX_ROUNDS = 3;

/** Everything the order holds: the locked amount plus every round's additional hold. */
export function totalHeld(r: RemittanceRecord): ReturnType<RemittanceRecord['amount']['plus']> {
  return r.extraHolds.reduce((sum, h) => sum.plus(h), r.locked);
}

/**
 * Returns every hold to `available`, releases the prepaid hold, and ends the order in
 * `status` (`canceled` by the member, `refunded` when the window lapsed).
 */
export function releaseHolds(store: Store, r: RemittanceRecord, status: 'canceled' | 'refunded'): void {
  const member = store.members.get(r.memberId);
  if (member) move(member, { asset: r.asset, from: 'locked', to: 'available', amount: totalHeld(r) }, 'state_invalid');
  if (r.prepaidHold.gt(0)) {
    const row = prepaidOf(store.merchant, r.prepaidAsset);
    row.locked = row.locked.minus(r.prepaidHold);
    row.available = row.available.plus(r.prepaidHold);
    r.prepaidHold = r.prepaidHold.mul(0);
  }
  r.status = status;
  r.action = null;
  r.waitingOn = 'none';
}

/** The `GET /v1/remittances/{id}/pending-action` body. */
export function pendingAction(store: Store, r: RemittanceRecord): Record<string, unknown> {
  if (r.action !== 'auto') {
    if (r.action === null) return { id: r.id, waiting_on: r.waitingOn ?? 'none', action: null };
    return { id: r.id, waiting_on: r.waitingOn ?? 'member', action: r.action };
  }
  const scale = store.assets.get(r.asset).ledger_scale;
  if (r.supplement) {
    if (r.supplement.status === 'SUBMITTED') return { id: r.id, waiting_on: 'review', action: null };
    return {
      id: r.id,
      waiting_on: 'member',
      action: {
        kind: 'supplement',
        round: r.supplement.round,
        status: 'PENDING',
        source: 'service',
        message: 'Please upload a proof of the source of funds.',
        items: [{ field_key: 'source_of_funds', label: 'Source of funds document', type: 'file', required: true, submitted: false }],
        submit_url: `https://upload.sandbox.invalid/remittances/${r.id}/round/${r.supplement.round}`,
        created_at: iso(r.supplement.created_at),
        submitted_at: r.supplement.submitted_at === undefined ? '' : iso(r.supplement.submitted_at),
        deadline: null,
      },
    };
  }
  if (r.status !== 'needs_reconfirm') return { id: r.id, waiting_on: 'none', action: null };
  const s = r.slippage;
  const available = store.members.get(r.memberId)?.balances.get(r.asset)?.available ?? s.extra_locked.mul(0);
  const rejectReason = r.rounds >= MAX_ROUNDS ? 'too_many_rounds' : available.lt(s.extra_locked) ? 'insufficient_balance' : '';
  return {
    id: r.id,
    waiting_on: 'member',
    action: {
      kind: 'slippage',
      moved_bps: s.moved_bps,
      slippage_bps: s.slippage_bps,
      old_total: fmt(r.amount, scale),
      new_total: fmt(s.new_total, scale),
      extra_charge: fmt(s.extra_charge, scale),
      extra_locked: fmt(s.extra_locked, scale),
      available: fmt(available, scale),
      can_accept: rejectReason === '',
      reject_reason: rejectReason,
      deadline: iso(r.needsReconfirmSince + RECONFIRM_WINDOW_MS),
    },
  };
}

/** Time-driven transitions, run before each request and whenever the sandbox clock moves. */
import { externalIdOf } from './card-logic.js';
import { RECONFIRM_WINDOW_MS, releaseHolds, totalHeld } from './remittance-logic.js';
import type { Store } from './store.js';
import type { EmitRequest } from './webhook-types.js';

/** How long `unfreezing` lasts before the card is `active` again (simulator figure). */
const UNFREEZE_MS = 5_000;

/** Applies every expiry that `now` has passed. */
export function sweep(store: Store, now: number, emit: (e: EmitRequest) => void): void {
  for (const r of store.remittances.values()) {
    // Nothing done within 4 hours: funds are refunded automatically (spec).
    if (r.status === 'needs_reconfirm' && r.action === 'auto' && now >= r.needsReconfirmSince + RECONFIRM_WINDOW_MS) {
      const amount = totalHeld(r);
      releaseHolds(store, r, 'refunded');
      store.effects.push({
        kind: 'remittance.refund',
        id: r.id,
        idempotencyKey: null,
        at: now,
        memberId: r.memberId,
        asset: r.asset,
        amount: amount.toFixed(),
      });
    }
  }
  for (const c of store.cards.values()) {
    if (c.status === 'unfreezing' && now >= c.statusChangedAt + UNFREEZE_MS) {
      c.status = 'active';
      c.statusChangedAt = now;
      emit({
        event_type: 'card.status.updated',
        data: { object: 'card', id: c.id, external_member_id: externalIdOf(store, c.memberId), status: 'active' },
      });
    }
  }
  for (const r of store.reports.values()) {
    // A ready file is retained 7 days, then removed at expires_at.
    if (r.status === 'ready' && now >= r.expires_at) r.status = 'expired';
  }
}

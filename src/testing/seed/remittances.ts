/** Seeding remittance orders with their holds, slippage figures and pending action. */
import { uuid } from '../ids.js';
import { Decimal, fmt, type Dec } from '../money.js';
import { totalHeld } from '../remittance-logic.js';
import { prepaidOf, rowOf, seedDec } from '../store-ops.js';
import type { RemittanceRecord, Store } from '../store.js';
import type { RemittanceSnapshot, SeedRemittanceInput } from '../state-remittances.js';
import type { SandboxState } from '../state-types.js';
import { mustMember, type SeedContext } from './context.js';
import type { AssetDef } from '../assets.js';

type RemittanceSeeds = Pick<SandboxState, 'seedRemittance' | 'remittance'>;

/** A remittance as tests see it, amounts at the asset's ledger scale. */
function remSnap(store: Store, r: RemittanceRecord): RemittanceSnapshot {
  const scale = store.assets.get(r.asset).ledger_scale;
  return {
    id: r.id,
    member_id: r.memberId,
    status: r.status,
    asset: r.asset,
    amount: fmt(r.amount, scale),
    locked: fmt(r.locked, scale),
    extra_holds: r.extraHolds.map((h) => fmt(h, scale)),
    total_held: fmt(totalHeld(r), scale),
  };
}

/** Slippage figures; defaults: new_total = amount × 1.015, extra_locked = extra_charge × 1.1 (rounded up). */
function slippageOf(input: SeedRemittanceInput, asset: AssetDef, amount: Dec): RemittanceRecord['slippage'] {
  const s = input.slippage ?? {};
  const newTotal = seedDec(s.new_total, amount.mul('1.015').toDecimalPlaces(asset.ledger_scale, Decimal.ROUND_UP));
  const extraCharge = seedDec(s.extra_charge, newTotal.minus(amount));
  return {
    moved_bps: s.moved_bps ?? 150,
    slippage_bps: s.slippage_bps ?? 100,
    new_total: newTotal,
    extra_charge: extraCharge,
    extra_locked: seedDec(s.extra_locked, extraCharge.mul('1.1').toDecimalPlaces(asset.ledger_scale, Decimal.ROUND_UP)),
  };
}

/** A supplement round in the seeded state, submitted at seeding time when `SUBMITTED`. */
function supplementOf(input: SeedRemittanceInput, t: number): RemittanceRecord['supplement'] {
  if (!input.supplement) return undefined;
  return { round: 1, status: input.supplement, created_at: t, submitted_at: input.supplement === 'SUBMITTED' ? t : undefined };
}

/** The order record of a seeding input (holds not yet applied). */
function seededRemittance(store: Store, memberId: string, input: SeedRemittanceInput, t: number): RemittanceRecord {
  const asset = store.assets.get(input.asset ?? 'USDT');
  const amount = seedDec(input.amount, new Decimal(100));
  return {
    id: input.id ?? `rmt_${uuid()}`,
    memberId,
    status: input.status ?? 'needs_reconfirm',
    line: input.line ?? 'express',
    asset: asset.code,
    amount,
    locked: seedDec(input.locked, amount),
    extraHolds: (input.extra_holds ?? []).map((h) => seedDec(h)),
    prepaidHold: seedDec(input.prepaid_hold),
    prepaidAsset: store.assets.get(input.prepaid_asset ?? asset.code).code,
    action: input.action === undefined ? 'auto' : input.action,
    waitingOn: input.waiting_on,
    supplement: supplementOf(input, t),
    slippage: slippageOf(input, asset, amount),
    needsReconfirmSince: input.needs_reconfirm_since ?? t,
    cancelBlocked: input.cancel_blocked ?? false,
    cancelAnswer: input.cancel_answer ?? 'api_error',
    rounds: input.rounds ?? 0,
    created_at: input.created_at ?? t,
  };
}

/** The remittance seeders of `sandbox.state`. */
export function remittanceSeeds({ store, now }: SeedContext): RemittanceSeeds {
  return {
    seedRemittance(input) {
      const m = mustMember(store, input.member);
      const r = seededRemittance(store, m.id, input, now());
      // Everything the order holds sits in the member's `locked` bucket, the prepaid hold in
      // the merchant's prepaid `locked` column.
      const row = rowOf(m, r.asset);
      row.locked = row.locked.plus(totalHeld(r));
      if (r.prepaidHold.gt(0)) {
        const p = prepaidOf(store.merchant, r.prepaidAsset);
        p.locked = p.locked.plus(r.prepaidHold);
      }
      store.remittances.set(r.id, r);
      return remSnap(store, r);
    },
    remittance(id) {
      const r = store.remittances.get(id.startsWith('rmt_') ? id : `rmt_${id}`);
      return r ? remSnap(store, r) : undefined;
    },
  };
}

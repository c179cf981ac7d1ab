import { Decimal } from '../money.js';
import type { BalanceRow } from '../schemas/balances.js';
import { payoutExposure } from './exposure.js';
import { isFinalPayoutState, type PayoutRecord } from './record.js';
import { boundsOf, type Ledger } from './reconcile-ledger.js';
import type { ReconcileCandidate, ReconcileDirection, ReconcileFigures } from './reconcile-types.js';

/** One member and asset at one read. */
export interface Judgement {
  /** Asset code, uppercase. */
  readonly asset: string;
  /** The bucket (0 without a row). */
  readonly withdrawing: Decimal;
  /** Sum of the certain open payouts. */
  readonly lower: Decimal;
  /** Plus the uncertain ones. */
  readonly upper: Decimal;
  /** The row's `ledger_scale`, to print figures as the service does; undefined without a row. */
  readonly scale: number | undefined;
  /** Outside the bounds, and on which side; null inside. */
  readonly direction: ReconcileDirection | null;
  /** How far outside (positive), 0 inside. */
  readonly difference: Decimal;
}

/** Judges every asset of a member: those with a balance row and those with an open payout. */
export function judgeMember(rows: readonly BalanceRow[], open: readonly PayoutRecord[]): Judgement[] {
  const byAsset = new Map(rows.map((row) => [row.asset.toUpperCase(), row]));
  const assets = new Set([...byAsset.keys(), ...open.map((r) => r.asset.toUpperCase())]);
  return [...assets].sort().map((asset) => {
    const row = byAsset.get(asset);
    const withdrawing = new Decimal(row?.withdrawing ?? 0);
    const { lower, upper } = boundsOf(open, asset);
    const base = { asset, withdrawing, lower, upper, scale: row?.ledger_scale };
    if (withdrawing.gt(upper)) return { ...base, direction: 'above', difference: withdrawing.minus(upper) };
    if (withdrawing.lt(lower)) return { ...base, direction: 'below', difference: lower.minus(withdrawing) };
    return { ...base, direction: null, difference: new Decimal(0) };
  });
}

/** A figure at the row's scale (as the service prints it), or as it is without a row. */
export function figure(value: Decimal, scale: number | undefined): string {
  return scale === undefined ? value.toFixed() : value.toFixed(scale);
}

/** The three figures of a judgement, as text. */
export function figuresOf(j: Judgement): ReconcileFigures {
  return { withdrawing: figure(j.withdrawing, j.scale), lower: figure(j.lower, j.scale), upper: figure(j.upper, j.scale) };
}

/**
 * The payouts that may explain a discrepancy (see `ReconcileDiscrepancy.candidates`), those
 * whose amount equals the difference first. Ended payouts are looked for among the payouts
 * created in the period: the store lists by creation time only.
 */
export function candidatesFor(member: string, j: Judgement, ledger: Ledger, since: number): ReconcileCandidate[] {
  const mine = (r: PayoutRecord): boolean => r.member === member && r.asset.toUpperCase() === j.asset;
  const matches = (r: PayoutRecord): boolean => new Decimal(r.amount).eq(j.difference);
  const picked =
    j.direction === 'below'
      ? ledger.open.filter((r) => mine(r) && payoutExposure(r) === 'certain')
      : ledger.period.filter(
          (r) => mine(r) && isFinalPayoutState(r.state) && (matches(r) || (r.outcome?.by === 'person' && r.outcome.at >= since)),
        );
  return picked
    .map((r) => candidate(r, matches(r)))
    .sort((a, b) => Number(b.amountMatches) - Number(a.amountMatches) || a.createdAt - b.createdAt);
}

function candidate(r: PayoutRecord, amountMatches: boolean): ReconcileCandidate {
  return {
    reference: r.reference,
    state: r.state,
    amount: r.amount,
    withdrawalId: r.withdrawalId,
    createdAt: r.createdAt,
    endedAt: r.outcome?.at ?? null,
    endedBy: r.outcome?.by ?? null,
    exposure: payoutExposure(r),
    amountMatches,
  };
}

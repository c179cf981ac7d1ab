import { Decimal } from '../money.js';
import { payoutExposure } from './exposure.js';
import { OPEN_PAYOUT_STATES, type PayoutRecord } from './record.js';
import type { PayoutListQuery, PayoutStore } from './store.js';
import type { ReconcileMemberSource } from './reconcile-types.js';

/** The store as one read of a reconciliation saw it. */
export interface Ledger {
  /** Every open payout, of any age: all of them may hold money in `withdrawing`. */
  readonly open: readonly PayoutRecord[];
  /** Every payout created in the period, in any state: the members to read, and the candidates of a discrepancy. */
  readonly period: readonly PayoutRecord[];
}

/** The bounds of one member's bucket in one asset. */
export interface Bounds {
  /** Sum of the `certain` open payouts. */
  readonly lower: Decimal;
  /** `lower` plus the `uncertain` ones. */
  readonly upper: Decimal;
}

/** Reads the store for one read: open payouts, then the period's payouts (both paged to the end). */
export async function readLedger(store: PayoutStore, since: number, pageSize: number, signal: AbortSignal | undefined): Promise<Ledger> {
  const open = await listAll(store, { states: OPEN_PAYOUT_STATES, limit: pageSize }, signal);
  const period = await listAll(store, { createdFrom: since, limit: pageSize }, signal);
  return { open, period };
}

async function listAll(store: PayoutStore, query: PayoutListQuery, signal: AbortSignal | undefined): Promise<PayoutRecord[]> {
  const out: PayoutRecord[] = [];
  let after: PayoutListQuery['after'];
  do {
    signal?.throwIfAborted();
    const page = await store.list({ ...query, after });
    out.push(...page.records);
    after = page.next;
  } while (after !== undefined);
  return out;
}

/**
 * The members to read, in the order first met: those with a payout in the period (oldest first),
 * those with an open payout older than the period (they hold money in `withdrawing` too), then
 * those the merchant named. A member is the identifier as recorded: the same member recorded
 * once as `mem_…` and once by its external id would be read, and bounded, as two.
 */
export function membersToRead(ledger: Ledger, named: readonly string[]): Map<string, ReconcileMemberSource> {
  const out = new Map<string, ReconcileMemberSource>();
  for (const r of [...ledger.period, ...ledger.open]) out.set(r.member, 'store');
  for (const m of named) out.set(m, out.has(m) ? 'store_and_named' : 'named');
  return out;
}

/** The open payouts of one member (of every asset). */
export function openOf(ledger: Ledger, member: string): PayoutRecord[] {
  return ledger.open.filter((r) => r.member === member);
}

/** The bounds of `withdrawing` in `asset` given a member's open payouts. */
export function boundsOf(open: readonly PayoutRecord[], asset: string): Bounds {
  let lower = new Decimal(0);
  let uncertain = new Decimal(0);
  for (const r of open) {
    if (r.asset.toUpperCase() !== asset) continue;
    const exposure = payoutExposure(r);
    if (exposure === 'certain') lower = lower.plus(r.amount);
    else if (exposure === 'uncertain') uncertain = uncertain.plus(r.amount);
  }
  return { lower, upper: lower.plus(uncertain) };
}

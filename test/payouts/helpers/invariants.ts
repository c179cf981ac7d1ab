/**
 * What every crash test asserts once the resumed workers ran out of work, from three sources
 * that do not trust each other: the store (records and the writes that landed), the simulated
 * chain (payments made), and the sandbox (the effects the service executed, and the members'
 * buckets).
 */
import { Decimal } from 'decimal.js';
import { expect } from 'vitest';
import { idempotencyKeyFor } from '../../../src/index.js';
import { isFinalPayoutState, type PayoutRecord } from '../../../src/payouts/record.js';
import type { EffectRecord } from '../../../src/testing/index.js';
import type { Funding, Payment, PlannedPayout } from './batch.js';

/** Everything observed after a crash and a resume. */
export interface Observed {
  readonly payouts: readonly PlannedPayout[];
  readonly funding: readonly Funding[];
  /** The store's records at the end. */
  readonly records: readonly PayoutRecord[];
  /** Every write that landed, in order, across the workers (the crashed one and the resumed ones). */
  readonly landed: readonly PayoutRecord[];
  /** The chain's payments. */
  readonly payments: readonly Payment[];
  /** pay() calls per reference, over every worker. */
  readonly payCalls: ReadonlyMap<string, number>;
  /** The sandbox's effects. */
  readonly effects: readonly EffectRecord[];
  /** A member's buckets in the sandbox now. */
  readonly balance: (member: string, asset: string) => { readonly available: string; readonly withdrawing: string };
  /**
   * Whether a payout left with its payment's outcome unknown waits for a person: false when the
   * resuming worker had a `lookupPayment` that knows every payment (the payout must then end).
   */
  readonly unknownWaits: boolean;
  /** The workflow's namespace (default `payout`). */
  readonly namespace?: string;
}

/**
 * The references the crashed worker left between the hand-out write and the payment's report:
 * their last landed write before the resume is in `paying`. Without a lookup these, and only
 * these, end in needs-attention.
 */
export function unknownPayments(landedBeforeResume: readonly PayoutRecord[]): Set<string> {
  const last = new Map<string, PayoutRecord>();
  for (const r of landedBeforeResume) last.set(r.reference, r);
  return new Set([...last.values()].filter((r) => r.state === 'paying').map((r) => r.reference));
}

const WITHDRAWAL_KINDS = ['withdrawal.create', 'withdrawal.confirm', 'withdrawal.fail'];

/**
 * One payout's history and effects, checked; its record at the end is returned. `mayWait`: its
 * payment's outcome is unknown to the resumed worker (it must then wait for a person).
 */
function checkPayout(o: Observed, p: PlannedPayout, mayWait: boolean): PayoutRecord {
  const ref = p.reference;
  const record = o.records.find((r) => r.reference === ref);
  expect(record, `${ref}: a record`).toBeDefined();
  const r = record!;
  // Ends exactly once: one write into a final state, nothing after it.
  const history = o.landed.filter((w) => w.reference === ref);
  const finalAt = history.findIndex((w) => isFinalPayoutState(w.state));
  expect(
    history.filter((w) => isFinalPayoutState(w.state)),
    `${ref}: writes into a final state`,
  ).toHaveLength(isFinalPayoutState(r.state) ? 1 : 0);
  if (finalAt >= 0) expect(finalAt, `${ref}: nothing written after it ended`).toBe(history.length - 1);
  if (mayWait) {
    // Its worker died between the hand-out and the report: never back in the queue, a person decides.
    expect(r.state, `${ref}: payment of unknown outcome`).toBe('needs_attention');
    expect(r.attention?.reason).toBe('payment_unknown');
  } else {
    expect(isFinalPayoutState(r.state), `${ref}: ${r.state} (${JSON.stringify(r.attention)}) is not final`).toBe(true);
  }
  // Handed out once at most, and paid at most once.
  const handOuts = history.flatMap((w) => (w.handOut === null ? [] : [`${w.handOut.worker} ${w.handOut.at} ${w.handOut.leaseUntil}`]));
  expect(new Set(handOuts).size, `${ref}: hand-outs`).toBeLessThanOrEqual(1);
  expect(o.payCalls.get(ref) ?? 0, `${ref}: pay() calls`).toBeLessThanOrEqual(1);
  const payments = o.payments.filter((x) => x.reference === ref);
  expect(payments.length, `${ref}: chain payments`).toBeLessThanOrEqual(1);
  // The service's side: one debit under the payout's key, at most one confirm or fail.
  const debits = o.effects.filter(
    (e) => e.kind === 'withdrawal.create' && e.idempotencyKey === idempotencyKeyFor(o.namespace ?? 'payout', ref),
  );
  expect(debits, `${ref}: debits executed`).toHaveLength(p.plan === 'refused' ? 0 : 1);
  const id = debits[0]?.id;
  const confirms = o.effects.filter((e) => e.kind === 'withdrawal.confirm' && e.id === id);
  const fails = o.effects.filter((e) => e.kind === 'withdrawal.fail' && e.id === id);
  expect(confirms.length + fails.length, `${ref}: confirms and fails`).toBeLessThanOrEqual(1);
  if (p.plan === 'refused') expect(r.state).toBe('rejected');
  else expect(r.withdrawalId, `${ref}: the withdrawal id stored`).toBe(id);
  expect(confirms, `${ref}: confirms`).toHaveLength(r.state === 'confirmed' ? 1 : 0);
  expect(fails, `${ref}: fails`).toHaveLength(r.state === 'failed' ? 1 : 0);
  // Never failed after a payment (on the chain, or recorded in the store); confirmed only with the payment recorded.
  if (history.some((w) => w.chainRef !== null)) expect(fails, `${ref}: fails after a recorded payment`).toHaveLength(0);
  if (payments.length > 0) expect(['confirmed', 'needs_attention'], `${ref}: paid on the chain`).toContain(r.state);
  if (r.state === 'confirmed') expect(r.chainRef, `${ref}: chain reference`).toBe(payments[0]?.chainRef);
  return r;
}

/** The members' buckets: `withdrawing` is what the open payouts explain, `available` the rest. */
function checkBuckets(o: Observed, ended: ReadonlyMap<string, PayoutRecord>): void {
  for (const f of o.funding) {
    let open = new Decimal(0);
    let gone = new Decimal(0);
    for (const p of o.payouts.filter((x) => x.member === f.member && x.asset === f.asset)) {
      const state = ended.get(p.reference)!.state;
      if (state === 'confirmed') gone = gone.plus(p.amount);
      if (!isFinalPayoutState(state)) open = open.plus(p.amount);
    }
    const b = o.balance(f.member, f.asset);
    expect(new Decimal(b.withdrawing).toFixed(), `${f.member} withdrawing`).toBe(open.toFixed());
    expect(new Decimal(b.available).toFixed(), `${f.member} available`).toBe(new Decimal(f.available).minus(gone).minus(open).toFixed());
  }
}

/**
 * Asserts every invariant of the crash tests (see the file's header); returns each payout's
 * final state, for the test's table.
 */
export function expectPayoutsSound(o: Observed, mayWait: ReadonlySet<string>): Record<string, string> {
  const ended = new Map<string, PayoutRecord>();
  for (const p of o.payouts) ended.set(p.reference, checkPayout(o, p, o.unknownWaits && mayWait.has(p.reference)));
  // No withdrawal effect the batch does not explain (a second debit under another key, a stray settle).
  const ids = new Set([...ended.values()].map((r) => r.withdrawalId));
  const keys = new Set(o.payouts.map((p) => idempotencyKeyFor(o.namespace ?? 'payout', p.reference)));
  for (const e of o.effects.filter((x) => WITHDRAWAL_KINDS.includes(x.kind))) {
    expect(
      e.kind === 'withdrawal.create' ? keys.has(e.idempotencyKey ?? '') : ids.has(e.id),
      `effect ${e.kind} ${e.id} belongs to a payout`,
    ).toBe(true);
  }
  checkBuckets(o, ended);
  return Object.fromEntries([...ended].map(([ref, r]) => [ref, r.state]));
}

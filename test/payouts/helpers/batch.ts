/**
 * The batch every crash test runs: three payouts that take the three ways out of the workflow
 * (paid and confirmed, not paid and failed, refused at the debit), the members they are drawn on,
 * and the merchant's simulated chain: a pay function that records each payment it makes in a
 * ledger (the chain), so a test can count payments per payout whatever the workflow says.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Sandbox } from '../../../src/testing/index.js';
import type { Side } from './watched-store.js';

/** How the merchant's pay function treats a payout, or that its debit is refused. */
export type PayPlan = 'paid' | 'not_paid' | 'refused';

/** One payout the test starts. */
export interface PlannedPayout {
  readonly reference: string;
  readonly member: string;
  readonly asset: string;
  readonly amount: string;
  readonly toAddress: string;
  readonly plan: PayPlan;
}

/** What a member held before the batch (the buckets the assertions start from). */
export interface Funding {
  readonly member: string;
  readonly asset: string;
  readonly available: string;
}

/** Seeds the batch's members into `sandbox`: one funded, one with nothing (its debit is refused). */
export function seedBatch(sandbox: Sandbox, tag = 'b'): { payouts: PlannedPayout[]; funding: Funding[] } {
  const funded = sandbox.state.seedMember({ external_member_id: `crash-${tag}-funded`, balances: { USDT: { available: '100' } } });
  const empty = sandbox.state.seedMember({ external_member_id: `crash-${tag}-empty` });
  const payout = (suffix: string, member: string, amount: string, plan: PayPlan): PlannedPayout => ({
    reference: `ord-${tag}-${suffix}`,
    member,
    asset: 'USDT',
    amount,
    toAddress: `T-${tag}-${suffix}`,
    plan,
  });
  return {
    payouts: [
      payout('paid', funded.id, '12.5', 'paid'),
      payout('unpaid', funded.id, '7.25', 'not_paid'),
      payout('refused', empty.id, '5', 'refused'),
    ],
    funding: [
      { member: funded.id, asset: 'USDT', available: '100' },
      { member: empty.id, asset: 'USDT', available: '0' },
    ],
  };
}

/** One payment on the simulated chain. */
export interface Payment {
  readonly reference: string;
  readonly chainRef: string;
}

/** The chain reference a payment of `reference` gets. */
export const chainRefOf = (reference: string): string => `0xchain-${reference}`;

/** Where the simulated chain keeps its payments: an array in process, a file shared with children. */
export interface Chain {
  record(payment: Payment): void;
  payments(): Payment[];
}

/** A chain in this process's memory. */
export function memoryChain(): Chain {
  const all: Payment[] = [];
  return { record: (p) => void all.push(p), payments: () => [...all] };
}

/**
 * A chain in a file, one JSON line per payment, appended synchronously: a line written before a
 * child kills itself is there when the test reads the file.
 */
export function fileChain(path: string): Chain {
  return {
    record: (p) => appendFileSync(path, `${JSON.stringify(p)}\n`),
    payments: () =>
      existsSync(path)
        ? readFileSync(path, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as Payment)
        : [],
  };
}

/** A crash point inside pay: `before` the payment is made, `after` it is on the chain but not yet reported. */
export type PayHook = (reference: string, side: Side) => void | Promise<void>;

/** What a pay function answers (the shape of payout-api.md). */
export type PayAnswer = { readonly outcome: 'paid'; readonly chainRef: string } | { readonly outcome: 'not_paid'; readonly reason: string };

/**
 * The merchant's pay function over `chain`: pays the payouts planned `paid` (one chain entry
 * each), says `not_paid` for the others; counts its calls per reference in `calls`.
 */
export function payFunction(
  plans: ReadonlyMap<string, PayPlan>,
  chain: Chain,
  calls: Map<string, number>,
  hook: PayHook = () => undefined,
): (payout: { readonly reference: string }) => Promise<PayAnswer> {
  return async ({ reference }) => {
    calls.set(reference, (calls.get(reference) ?? 0) + 1);
    await hook(reference, 'before');
    const paid = plans.get(reference) === 'paid';
    if (paid) chain.record({ reference, chainRef: chainRefOf(reference) });
    await hook(reference, 'after');
    return paid ? { outcome: 'paid', chainRef: chainRefOf(reference) } : { outcome: 'not_paid', reason: 'never broadcast' };
  };
}

/** The merchant's own lookup of a payment by reference, on the same chain (the optional `lookupPayment`). */
export function lookupFunction(chain: Chain): (payout: { readonly reference: string }) => Promise<PayAnswer> {
  return ({ reference }) => {
    const payment = chain.payments().find((p) => p.reference === reference);
    // The worker that paid is dead: a payment not on the chain now never will be.
    return Promise.resolve(
      payment === undefined ? { outcome: 'not_paid', reason: 'not on the chain' } : { outcome: 'paid', chainRef: payment.chainRef },
    );
  };
}

/**
 * What the merchant and its people decide: cancel a payout never handed out, settle one that waits
 * for a person, raise the custody declaration. Each is one compare-and-set write; none sends
 * anything itself (the workflow's next step does).
 */
import type { PayoutContext, PayoutChanges } from './context.js';
import { PayoutWorkflowError } from './errors.js';
import type { PayoutRecord } from './record.js';

/**
 * A person's decision on a payout in `needs_attention` (docs/payouts.md, "Decisions left to a person"):
 * - `paid`: the payment went out (found on the chain): the chain reference is recorded and confirm is sent;
 * - `not_paid`: the payment never went out and never can: fail is sent (refused when a payment is
 *   recorded or a confirm was sent);
 * - `debited`: the debit was found to have executed, under this withdrawal id (e.g. through
 *   support): the payout goes on to its hand-out;
 * - `retry`: confirm or fail again, with a new attempt number (after a refusal was dealt with);
 * - `ended`: the withdrawal was ended elsewhere (or the debit never happened): recorded as final,
 *   nothing is sent. `note` says how it was checked.
 */
export type PayoutDecision =
  | {
      /** The payment went out: confirm is sent. */
      readonly decision: 'paid';
      /** The payment's chain reference (a transaction hash), recorded before confirm. */
      readonly chainRef: string;
    }
  | {
      /** The payment never went out and never can: fail is sent. */
      readonly decision: 'not_paid';
      /** How it was checked, for the record. */
      readonly reason: string;
    }
  | {
      /** The debit was found to have executed: the payout goes on to its hand-out. */
      readonly decision: 'debited';
      /** Its withdrawal id (`wdr_…`). */
      readonly withdrawalId: string;
    }
  | {
      /** Confirm or fail again, with a new attempt number. */
      readonly decision: 'retry';
    }
  | {
      /** Ended elsewhere: recorded as final, nothing sent. */
      readonly decision: 'ended';
      /** The final state to record. */
      readonly state: 'confirmed' | 'failed' | 'rejected';
      /** How it was checked (a ticket, a support answer). */
      readonly note: string;
    };

function text(reference: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new PayoutWorkflowError('wrong_state', reference, `${name} must be a non-empty string.`);
  return value;
}

/** The write of a `paid` or `not_paid` decision. */
function paymentDecision(r: PayoutRecord, d: Extract<PayoutDecision, { decision: 'paid' | 'not_paid' }>): PayoutChanges {
  const ref = r.reference;
  if (d.decision === 'paid') {
    if (r.withdrawalId === null) throw new PayoutWorkflowError('wrong_state', ref, 'no withdrawal id is recorded: decide `debited` first.');
    return { state: 'paid', chainRef: text(ref, 'chainRef', d.chainRef), settle: r.settle?.step === 'confirm' ? r.settle : null };
  }
  if (r.chainRef !== null || r.confirmSent)
    throw new PayoutWorkflowError('may_be_paid', ref, 'a payment is recorded for it (or a confirm was sent): it is never failed.');
  if (r.withdrawalId === null)
    throw new PayoutWorkflowError('wrong_state', ref, 'no withdrawal id is recorded: decide `debited` or `ended` first.');
  return { state: 'unpaid', unpaidReason: text(ref, 'reason', d.reason), settle: r.settle?.step === 'fail' ? r.settle : null };
}

/** The write a decision makes on `r` (in `needs_attention`). */
function decisionChanges(ctx: PayoutContext, r: PayoutRecord, d: PayoutDecision): PayoutChanges {
  const ref = r.reference;
  switch (d.decision) {
    case 'paid':
    case 'not_paid':
      return paymentDecision(r, d);
    case 'debited':
      if (r.withdrawalId !== null || r.handOut !== null)
        throw new PayoutWorkflowError('wrong_state', ref, 'its debit is already recorded.');
      return { state: 'debited', withdrawalId: text(ref, 'withdrawalId', d.withdrawalId) };
    case 'retry': {
      const s = r.settle;
      const from = r.attention?.from;
      if (s === null || (from !== 'paid' && from !== 'unpaid'))
        throw new PayoutWorkflowError('wrong_state', ref, 'only a confirm or fail that stopped can be retried.');
      return { state: from, settle: { ...s, attempt: s.attempt + 1, sent: false, merchantLevel: false, nextAt: null } };
    }
    case 'ended':
      if (!['confirmed', 'failed', 'rejected'].includes(d.state))
        throw new PayoutWorkflowError('wrong_state', ref, 'state must be confirmed, failed or rejected.');
      return { state: d.state, outcome: { state: d.state, at: ctx.wallNow(), by: 'person', detail: text(ref, 'note', d.note) } };
  }
}

/** Applies a person's decision to a payout in `needs_attention`. */
export async function resolveDecision(ctx: PayoutContext, reference: string, decision: PayoutDecision): Promise<PayoutRecord> {
  return writeChecked(ctx, reference, (r) => {
    if (r.state !== 'needs_attention')
      throw new PayoutWorkflowError('wrong_state', reference, `it is ${r.state}; only a payout in needs_attention takes a decision.`);
    return decisionChanges(ctx, r, decision);
  });
}

/** Cancels a payout that was debited and never handed out: fail is sent and the member's funds return. */
export function cancelPayout(ctx: PayoutContext, reference: string, reason: string): Promise<PayoutRecord> {
  return writeChecked(ctx, reference, (r) => {
    if (r.state !== 'debited' || r.handOut !== null)
      throw new PayoutWorkflowError('wrong_state', reference, `it is ${r.state}; only a payout debited and never handed out is cancelled.`);
    return { state: 'unpaid', unpaidReason: text(reference, 'reason', reason) };
  });
}

/** Makes confirms that wait after `merchant_custody_shortfall` due now (of one asset, or all). */
export async function custodyRaised(ctx: PayoutContext, asset: string | undefined): Promise<string[]> {
  const due: string[] = [];
  let after: { createdAt: number; reference: string } | undefined;
  do {
    const page = await ctx.store.list({ states: ['paid'], limit: 100, after });
    for (const r of page.records) {
      if (r.settle?.refusedCode !== 'merchant_custody_shortfall' || r.settle.nextAt === null) continue;
      if (asset !== undefined && r.asset !== asset.toUpperCase()) continue;
      if ((await ctx.commit(r, { settle: { ...r.settle, nextAt: null } })) !== undefined) due.push(r.reference);
    }
    after = page.next;
  } while (after !== undefined);
  return due;
}

/** Reads, checks and writes, again when another worker wrote first (a few times). */
async function writeChecked(ctx: PayoutContext, reference: string, changes: (r: PayoutRecord) => PayoutChanges): Promise<PayoutRecord> {
  for (let tries = 0; tries < 5; tries++) {
    const r = await ctx.store.get(reference);
    if (r === undefined) throw new PayoutWorkflowError('unknown_reference', reference, 'no such payout.');
    const written = await ctx.commit(r, changes(r));
    if (written !== undefined) return written;
  }
  throw new PayoutWorkflowError('wrong_state', reference, 'it kept changing while the decision was written; decide again.');
}

/**
 * One payout as the merchant's store keeps it: the two-phase withdrawal of the spec (debit, the
 * merchant's own on-chain payment, then confirm or fail), with everything needed to resume it in
 * another process and to explain it to a person.
 */

/**
 * Where a payout is. Three states are final (`confirmed`, `failed`, `rejected`); every other state
 * is open and a worker moves it on.
 *
 * - `debit_pending`: recorded before the debit was sent; the debit's outcome is not known yet.
 * - `debited`: the withdrawal id is known (`locked` at the service); waiting to be handed out.
 * - `paying`: handed out to the merchant's pay function, once: never handed out again.
 * - `paid`: the payment is recorded with its chain reference; confirm is being sent.
 * - `unpaid`: never paid (cancelled before the hand-out, or the payment definitely failed); fail
 *   is being sent.
 * - `needs_attention`: a person decides (see {@link PayoutAttention}).
 * - `confirmed`, `failed`: the service ended the withdrawal (any 2xx of confirm or fail).
 * - `rejected`: the debit was definitely refused; no money moved.
 */
export type PayoutState =
  'debit_pending' | 'debited' | 'paying' | 'paid' | 'unpaid' | 'needs_attention' | 'confirmed' | 'failed' | 'rejected';

/** Every {@link PayoutState}, open ones first, in the order of the flow. */
export const PAYOUT_STATES: readonly PayoutState[] = Object.freeze([
  'debit_pending',
  'debited',
  'paying',
  'paid',
  'unpaid',
  'needs_attention',
  'confirmed',
  'failed',
  'rejected',
]);

/** The states a payout never leaves. */
export const FINAL_PAYOUT_STATES: readonly PayoutState[] = Object.freeze(['confirmed', 'failed', 'rejected']);

/** The states a worker still moves on (every state but the final ones). */
export const OPEN_PAYOUT_STATES: readonly PayoutState[] = Object.freeze(PAYOUT_STATES.filter((s) => !FINAL_PAYOUT_STATES.includes(s)));

/** Whether `state` is final (`confirmed`, `failed`, `rejected`). */
export function isFinalPayoutState(state: PayoutState): boolean {
  return FINAL_PAYOUT_STATES.includes(state);
}

/** Why a payout waits for a person. */
export type PayoutAttentionReason =
  /** The debit's outcome stayed unknown until the service's 24-hour idempotency window (less the margin) ran out: the same key would now be a new debit. */
  | 'debit_window_passed'
  /** The debit's key was answered `idempotency_key_reused`: another body used this reference's key. */
  | 'debit_key_reused'
  /** The debit was answered in a way the workflow cannot read as debited or refused. */
  | 'debit_unreadable'
  /** The payment was handed out and its outcome is unknown: the worker died, the hand-out outlived its lease, or the pay function threw. */
  | 'payment_unknown'
  /** Confirm or fail answered something that is not "done" after an attempt whose outcome was unknown (`state_invalid`, a 404): ended by us or by someone else, which look alike without a GET. */
  | 'settle_unclear'
  /** Confirm or fail was refused with a code the workflow does not retry (named in `code`). */
  | 'settle_refused'
  /** The member answers `member_not_found` and the merchant-level form did not end the withdrawal either. */
  | 'member_not_found';

/** What a person is asked to decide, and why. */
export interface PayoutAttention {
  /** Why. */
  readonly reason: PayoutAttentionReason;
  /** The state the payout was in when it stopped. */
  readonly from: PayoutState;
  /** What happened, in words (never a secret: codes, statuses, request ids). */
  readonly detail: string;
  /** The service's error code that stopped it, when one did. */
  readonly code: string | null;
  /** When it stopped (Unix ms, wall clock). */
  readonly since: number;
}

/** The hand-out of a payout to the merchant's pay function: written before the function runs. */
export interface PayoutHandOut {
  /** When it was handed out (Unix ms, wall clock), for people. */
  readonly at: number;
  /** End of its lease on the store's clock ({@link PayoutStore.now}): past it, a sweep sends the payout to a person. */
  readonly leaseUntil: number;
  /** The worker that took it (its `workerId`). */
  readonly worker: string;
}

/** Confirm or fail, as far as it got. */
export interface PayoutSettleStep {
  /** Which call. */
  readonly step: 'confirm' | 'fail';
  /** The current attempt number (from 1): stored before the attempt is sent, part of its key. */
  readonly attempt: number;
  /** Whether the current attempt may have reached the service (its outcome is then unknown until answered). */
  readonly sent: boolean;
  /** Whether the current attempt went out in the merchant-level form (after `member_not_found`). */
  readonly merchantLevel: boolean;
  /** The last definite refusal's code (e.g. `merchant_custody_shortfall`), or null. */
  readonly refusedCode: string | null;
  /** When the next attempt is due, on the store's clock (after a refusal that is retried later), or null: now. */
  readonly nextAt: number | null;
}

/** How a payout ended. */
export interface PayoutOutcome {
  /** The final state. */
  readonly state: 'confirmed' | 'failed' | 'rejected';
  /** When (Unix ms, wall clock). */
  readonly at: number;
  /** `service`: the service's answer ended it; `person`: a person recorded it (see {@link PayoutWorkflow.resolve}). */
  readonly by: 'service' | 'person';
  /** The refusal's code for `rejected`; a person's note otherwise; else null. */
  readonly detail: string | null;
}

/**
 * One payout in the store. Written only by the workflow, each write with `version` one higher
 * than the record it replaces ({@link PayoutStore.replace}). Holds no secret. Amounts are decimal
 * strings, as the service's.
 */
export interface PayoutRecord {
  /** The merchant's own reference for the payout (its order id): its identity, and the seed of its keys. */
  readonly reference: string;
  /** 1 when created, one more for every write. */
  readonly version: number;
  /** Where it is. */
  readonly state: PayoutState;
  /** The member (`mem_…` or the merchant's `external_member_id`), sent as `x-on-behalf-of`. */
  readonly member: string;
  /** Asset code, uppercase. */
  readonly asset: string;
  /** Amount debited, a decimal string. */
  readonly amount: string;
  /** The destination address, as sent with the debit. */
  readonly toAddress: string;
  /** When it was recorded, before the debit was first sent (Unix ms, wall clock): the start of the service's 24-hour window for the debit's key. */
  readonly createdAt: number;
  /** When it was last written (Unix ms, wall clock). */
  readonly updatedAt: number;
  /** The debit's idempotency key, derived from the reference. */
  readonly debitKey: string;
  /** Debit attempts sent (each call with the same key). */
  readonly debitSends: number;
  /** The withdrawal id (`wdr_…`) once the debit answered, else null. */
  readonly withdrawalId: string | null;
  /** The hand-out to the pay function, once written; never cleared. */
  readonly handOut: PayoutHandOut | null;
  /** The recorded payment's chain reference (a transaction hash), recorded before confirm is sent. */
  readonly chainRef: string | null;
  /** Why the payout was not paid (cancelled, or the payment definitely failed), recorded before fail is sent. */
  readonly unpaidReason: string | null;
  /** True once any confirm attempt may have reached the service: fail is never sent after. */
  readonly confirmSent: boolean;
  /** Confirm or fail, once started. */
  readonly settle: PayoutSettleStep | null;
  /** Set while in `needs_attention` (and kept afterwards, for the record of what a person decided). */
  readonly attention: PayoutAttention | null;
  /** Set when final. */
  readonly outcome: PayoutOutcome | null;
}

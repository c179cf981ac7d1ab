import type { RecoveredIntent, RecoveryReport } from '../core/journal/report.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import type { AmountInput } from '../money.js';
import { amount, checkMaxChars, checkNonBlank } from '../resources/guards.js';
import { PayoutContext } from './context.js';
import { applyRecovered } from './recovery.js';
import { debitStep } from './debit-step.js';
import { cancelPayout, custodyRaised, resolveDecision, type PayoutDecision } from './decisions.js';
import { PayoutWorkflowError } from './errors.js';
import { debitKeyFor } from './keys.js';
import { resolvePayoutOptions, type PayoutWorkflowOptions } from './options.js';
import { applyReport, handOut, payStep, sweepStep } from './payment.js';
import { isFinalPayoutState, type PayoutRecord } from './record.js';
import { runPass, type PayoutPassSummary } from './pass.js';
import { settleStep } from './settle-step.js';
import { PayoutTelemetry } from './telemetry.js';

/** A payout to start: the merchant's reference and the debit's body. */
export interface PayoutRequest {
  /** The merchant's own reference (its order id): one payout per reference, for ever. */
  readonly reference: string;
  /** The member (`mem_…` or the merchant's `external_member_id`). */
  readonly member: string;
  /** Asset code (uppercased here, as the service does). */
  readonly asset: string;
  /** Amount: a decimal string or `Decimal`, positive, at the asset's `ledger_scale`. Never a number. */
  readonly amount: AmountInput;
  /** Destination address, 1 to 200 characters (prefer a registered address with `usable=true`). */
  readonly toAddress: string;
}

/** Options of one step or pass. */
export interface PayoutRunOptions {
  /** Ends the calls in flight (their outcome is then unknown, and the same key goes again later). */
  readonly signal?: AbortSignal;
}

/** Steps one `advance` takes at most: the whole flow is six writes. */
const MAX_STEPS = 8;

/**
 * The payout desk: carries each withdrawal from its debit through the merchant's own on-chain
 * payment to confirm or fail, through any crash, in the merchant's store. See docs/payouts.md.
 *
 * - {@link PayoutWorkflow.start} records a payout, then debits it (key derived from the reference).
 * - {@link PayoutWorkflow.runOnce} (or {@link PayoutWorkflow.run}) moves every open payout on: a
 *   debit of unknown outcome again with its key, a debited payout handed out to `pay` (once), a
 *   paid one confirmed, an unpaid one failed, a hand-out past its lease to a person.
 * - A person settles what the workflow cannot decide alone with {@link PayoutWorkflow.resolve}.
 *
 * Every method that returns a promise rejects, never throws; bad input rejects with
 * `InvalidArgumentError` before anything is written or sent.
 */
export class PayoutWorkflow {
  readonly #ctx: PayoutContext;

  /** @throws InvalidArgumentError for an unknown option or a bad value (named). */
  constructor(options: PayoutWorkflowOptions) {
    const settings = resolvePayoutOptions(options);
    this.#ctx = new PayoutContext(options, settings, new PayoutTelemetry(options.logger, options.openTelemetry));
  }

  /** This worker's name in hand-outs. */
  get workerId(): string {
    return this.#ctx.settings.workerId;
  }

  /**
   * Records a payout durably, then sends its debit. Starting the same reference again (same
   * member, asset, amount and address) is the same payout: it is moved on, never debited twice.
   * Resolves with the payout as written: `debited`, `rejected`, or still `debit_pending` when the
   * debit's outcome is unknown (a later pass sends it again with the same key).
   *
   * @throws PayoutWorkflowError (`reference_taken`) when the reference names another payout.
   */
  async start(request: PayoutRequest, options: PayoutRunOptions = {}): Promise<PayoutRecord> {
    const record = this.#newRecord(request);
    const { created, record: stored } = await this.#ctx.store.create(record);
    if (created) await this.#ctx.announce(stored, null);
    else if (!samePayout(stored, record))
      throw new PayoutWorkflowError(
        'reference_taken',
        record.reference,
        'the reference names a payout with another member, asset, amount or address.',
      );
    if (stored.state !== 'debit_pending') return stored;
    return (await debitStep(this.#ctx, stored, options.signal)) ?? (await this.#read(stored.reference));
  }

  #newRecord(request: PayoutRequest): PayoutRecord {
    if (request === null || typeof request !== 'object') throw new InvalidArgumentError('request', 'must be an object.');
    const reference = checkNonBlank(request.reference, 'reference');
    const member = checkNonBlank(request.member, 'member');
    this.#ctx.client.member(member); // the client's own check of a member identifier
    const now = this.#ctx.wallNow();
    return {
      reference,
      version: 1,
      state: 'debit_pending',
      member,
      asset: checkNonBlank(request.asset, 'asset').toUpperCase(),
      amount: amount(request.amount, 'amount'),
      toAddress: checkMaxChars(checkNonBlank(request.toAddress, 'toAddress'), 'toAddress', 200),
      createdAt: now,
      updatedAt: now,
      debitKey: debitKeyFor(this.#ctx.settings.namespace, reference),
      debitSends: 0,
      withdrawalId: null,
      handOut: null,
      chainRef: null,
      unpaidReason: null,
      confirmSent: false,
      settle: null,
      attention: null,
      outcome: null,
    };
  }

  /** The payout of `reference`, or undefined. */
  get(reference: string): Promise<PayoutRecord | undefined> {
    return this.#ctx.store.get(reference);
  }

  async #read(reference: string): Promise<PayoutRecord> {
    const r = await this.#ctx.store.get(reference);
    if (r === undefined) throw new PayoutWorkflowError('unknown_reference', reference, 'no such payout.');
    return r;
  }

  /** One step of a payout in its state; undefined when it cannot move now. */
  #step(r: PayoutRecord, signal: AbortSignal | undefined): Promise<PayoutRecord | undefined> {
    switch (r.state) {
      case 'debit_pending':
        return debitStep(this.#ctx, r, signal);
      case 'debited':
        return payStep(this.#ctx, r);
      case 'paying':
        return sweepStep(this.#ctx, r);
      case 'paid':
      case 'unpaid':
        return settleStep(this.#ctx, r, signal);
      default:
        return Promise.resolve(undefined);
    }
  }

  /**
   * Moves one payout on as far as it goes now (debit, hand-out and payment when `pay` is set,
   * confirm or fail), and resolves with it as written.
   *
   * @throws PayoutWorkflowError (`unknown_reference`) when no payout has the reference.
   */
  async advance(reference: string, options: PayoutRunOptions = {}): Promise<PayoutRecord> {
    let r = await this.#read(reference);
    for (let steps = 0; steps < MAX_STEPS && !isFinalPayoutState(r.state) && options.signal?.aborted !== true; steps++) {
      const next = await this.#step(r, options.signal);
      if (next === undefined) return this.#read(reference);
      r = next;
    }
    return r;
  }

  /**
   * One pass over every open payout, oldest first, `concurrency` at a time: each moved on as far as
   * it goes. A payout whose step fails (the store down) is logged and left for the next pass.
   */
  runOnce(options: PayoutRunOptions = {}): Promise<PayoutPassSummary> {
    return runPass(this.#ctx, (reference) => this.advance(reference, options), options.signal);
  }

  /**
   * Runs passes until `signal` aborts, `intervalMs` apart (default 5 s) on the monotonic clock.
   * Resolves when aborted.
   */
  async run(options: PayoutRunOptions & { readonly intervalMs?: number } = {}): Promise<void> {
    const interval = options.intervalMs ?? 5000;
    if (!Number.isSafeInteger(interval) || interval <= 0) throw new InvalidArgumentError('intervalMs', 'must be a positive integer.');
    const signal = options.signal;
    while (signal?.aborted !== true) {
      await this.runOnce(options);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, interval);
        function done(): void {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          resolve();
        }
        signal?.addEventListener('abort', done, { once: true });
      });
    }
  }

  /**
   * Hands a `debited` payout out for payment by the merchant's own payer (when no `pay` function
   * is set): the hand-out is written before this resolves, and the payout is never handed out
   * again. Report the outcome with {@link PayoutWorkflow.reportPaid} or {@link PayoutWorkflow.reportNotPaid}.
   *
   * @throws PayoutWorkflowError (`wrong_state`) when it is not `debited` (already handed out, or not debited yet).
   */
  async handOut(reference: string): Promise<PayoutRecord> {
    const r = await this.#read(reference);
    if (r.state !== 'debited')
      throw new PayoutWorkflowError('wrong_state', reference, `it is ${r.state}; only a debited payout is handed out.`);
    const handed = await handOut(this.#ctx, r);
    if (handed === undefined) throw new PayoutWorkflowError('wrong_state', reference, 'another worker took it first.');
    return handed;
  }

  /**
   * Records the payment of a payout handed out (or waiting for a person after its outcome was
   * unknown), with its chain reference, then sends confirm. Reporting the same again is a no-op.
   *
   * @throws PayoutWorkflowError (`wrong_state`) when it was never handed out or is settled otherwise.
   */
  async reportPaid(reference: string, chainRef: string, options: PayoutRunOptions = {}): Promise<PayoutRecord> {
    await applyReport(this.#ctx, reference, { outcome: 'paid', chainRef: checkNonBlank(chainRef, 'chainRef') });
    return this.advance(reference, options);
  }

  /**
   * Records that a payout's payment definitely failed (never broadcast, or reverted with
   * finality; not merely dropped from a mempool), then sends fail: the member's funds return.
   *
   * @throws PayoutWorkflowError (`may_be_paid`) when a payment is recorded or a confirm was sent;
   * (`wrong_state`) when it was never handed out.
   */
  async reportNotPaid(reference: string, reason: string, options: PayoutRunOptions = {}): Promise<PayoutRecord> {
    await applyReport(this.#ctx, reference, { outcome: 'not_paid', reason: checkNonBlank(reason, 'reason') });
    return this.advance(reference, options);
  }

  /**
   * Cancels a payout debited and never handed out: fail is sent and the funds return to the
   * member's `available`.
   *
   * @throws PayoutWorkflowError (`wrong_state`) for any other state.
   */
  async cancel(reference: string, reason: string, options: PayoutRunOptions = {}): Promise<PayoutRecord> {
    await cancelPayout(this.#ctx, reference, checkNonBlank(reason, 'reason'));
    return this.advance(reference, options);
  }

  /**
   * A person's decision on a payout in `needs_attention` ({@link PayoutDecision}), then the
   * payout moves on (confirm or fail is sent when the decision calls for one).
   *
   * @throws PayoutWorkflowError when the payout is not in `needs_attention` or the decision does not fit it.
   */
  async resolve(reference: string, decision: PayoutDecision, options: PayoutRunOptions = {}): Promise<PayoutRecord> {
    await resolveDecision(this.#ctx, reference, decision);
    return this.advance(reference, options);
  }

  /**
   * Says the custody declaration was raised: confirms refused with `merchant_custody_shortfall`
   * (of `asset`, or every asset) are sent again now. Resolves with the references moved on.
   */
  async custodyRaised(asset?: string, options: PayoutRunOptions = {}): Promise<string[]> {
    const due = await custodyRaised(this.#ctx, asset);
    for (const reference of due) await this.advance(reference, options);
    return due;
  }

  /**
   * Hands the payouts the results `client.recover()` got for their calls (a debit, confirm or
   * fail journaled by the client and resent after a crash). Resolves with the keys applied.
   * Without it nothing is lost: the next pass sends the same key and the service replays the answer.
   */
  async applyRecovery(report: RecoveryReport): Promise<string[]> {
    const written: string[] = [];
    for (const entry of report.intents) if (await applyRecovered(this.#ctx, entry)) written.push(entry.intent.key);
    return written;
  }

  /**
   * {@link PayoutWorkflow.applyRecovery} for one intent, as `client.recover({ onIntent })` hands it
   * over: the client settles the intent only after this resolves, so a crash in between hands the
   * same result over again. Resolves true when it moved a payout on.
   */
  applyRecoveredIntent(entry: RecoveredIntent): Promise<boolean> {
    return applyRecovered(this.#ctx, entry);
  }
}

function samePayout(a: PayoutRecord, b: PayoutRecord): boolean {
  return a.member === b.member && a.asset === b.asset && a.amount === b.amount && a.toAddress === b.toAddress;
}

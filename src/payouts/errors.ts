import { MerchantSdkError } from '../core/errors/errors.js';

/** Why the workflow refused a request of the merchant's. */
export type PayoutRefusal =
  /** No payout has this reference. */
  | 'unknown_reference'
  /** The reference names a payout with another member, asset, amount or address. */
  | 'reference_taken'
  /** The payout is not in a state that allows the request (the message names both). */
  | 'wrong_state'
  /** The request would fail a payout that may have been paid (a recorded payment, or a confirm sent). */
  | 'may_be_paid';

/**
 * A request the workflow refused without changing anything: starting a taken reference, reporting
 * a payment for a payout that was not handed out, failing one that may have been paid. Nothing was
 * sent to the service. `reason` says which; `reference` names the payout.
 */
export class PayoutWorkflowError extends MerchantSdkError {
  /** Class name, `PayoutWorkflowError` (survives minification, unlike `constructor.name`). */
  override name = 'PayoutWorkflowError';
  /** Why. */
  readonly reason: PayoutRefusal;
  /** The payout's reference. */
  readonly reference: string;

  /** @internal Raised by the workflow. */
  constructor(reason: PayoutRefusal, reference: string, message: string) {
    super(`payout ${JSON.stringify(reference)}: ${message}`);
    this.reason = reason;
    this.reference = reference;
  }
}

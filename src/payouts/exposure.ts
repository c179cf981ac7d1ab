import type { PayoutRecord } from './record.js';

/**
 * What a payout holds in its member's `withdrawing` bucket, as far as the store knows:
 * - `none`: nothing (never debited, or ended);
 * - `certain`: exactly its amount (debited, and no confirm or fail may have executed);
 * - `uncertain`: its amount or nothing (the debit's outcome is unknown, or a confirm or fail
 *   attempt may have executed).
 *
 * Reconciliation bounds the bucket with it: the certain amounts below, plus the uncertain ones above.
 */
export type PayoutExposure = 'none' | 'certain' | 'uncertain';

/** The {@link PayoutExposure} of one record. */
export function payoutExposure(record: PayoutRecord): PayoutExposure {
  switch (record.state) {
    case 'confirmed':
    case 'failed':
    case 'rejected':
      return 'none';
    case 'debit_pending':
      return 'uncertain';
    default:
      if (record.withdrawalId === null) return 'uncertain';
      return record.settle?.sent === true ? 'uncertain' : 'certain';
  }
}

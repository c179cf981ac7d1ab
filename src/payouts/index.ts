/**
 * Payouts that always end: the spec's two-phase withdrawal (debit, the merchant's own on-chain
 * payment, confirm or fail) carried through any crash in the merchant's own store, and a
 * reconciliation of the store against the members' `withdrawing` buckets.
 *
 * @packageDocumentation
 */
export {
  PAYOUT_STATES,
  FINAL_PAYOUT_STATES,
  OPEN_PAYOUT_STATES,
  isFinalPayoutState,
  type PayoutState,
  type PayoutRecord,
  type PayoutAttention,
  type PayoutAttentionReason,
  type PayoutHandOut,
  type PayoutSettleStep,
  type PayoutOutcome,
} from './record.js';
export type { PayoutStore, PayoutCreated, PayoutListQuery, PayoutPage, PayoutCursor } from './store.js';
export { MemoryPayoutStore, type MemoryPayoutStoreOptions } from './memory-store.js';
export { payoutExposure, type PayoutExposure } from './exposure.js';
export { PayoutWorkflow, type PayoutRequest, type PayoutRunOptions } from './workflow.js';
export type { PayoutPassSummary } from './pass.js';
export type { PayoutDecision } from './decisions.js';
export type { PayoutWorkflowOptions, PaymentReport, PayContext, PayoutStateChange } from './options.js';
export { PayoutWorkflowError, type PayoutRefusal } from './errors.js';
export { reconcilePayouts } from './reconcile.js';
export { formatReconciliation, reconciliationLines } from './reconcile-report.js';
export type {
  ReconcileOptions,
  PayoutReconciliation,
  ReconcileDirection,
  ReconcileFigures,
  ReconcileCandidate,
  ReconcileDiscrepancy,
  ReconcilePayoutSummary,
  ReconcileMemberNotFound,
  ReconcileStalePayout,
  ReconcileReadFailure,
  ReconcileMemberSource,
  ReconcileMemberRead,
} from './reconcile-types.js';

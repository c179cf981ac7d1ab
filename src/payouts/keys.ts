import { idempotencyKeyFor } from '../core/call/idempotency-key.js';

/**
 * The debit's key: `idempotencyKeyFor(namespace, reference)`, the key docs/idempotency-and-retries.md
 * already shows for a payout, so a merchant moving a payout desk onto the workflow replays its
 * earlier debits instead of making second ones.
 */
export function debitKeyFor(namespace: string, reference: string): string {
  return idempotencyKeyFor(namespace, reference);
}

/**
 * A confirm or fail attempt's key, from (reference, step, attempt number): one namespace per step
 * (`payout:confirm`), the attempt number before the reference (digits, then `:`, so no two pairs
 * give one text).
 */
export function settleKeyFor(namespace: string, reference: string, step: 'confirm' | 'fail', attempt: number): string {
  return idempotencyKeyFor(`${namespace}:${step}`, `${attempt}:${reference}`);
}

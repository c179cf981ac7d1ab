/**
 * Results `client.recover()` got for a payout's journaled debit, confirm or fail, handed to the
 * payout: found by the key of its debit or of its current attempt.
 */
import type { RecoveredIntent } from '../core/journal/report.js';
import { readFailure } from './answers.js';
import type { PayoutContext } from './context.js';
import { debitAnswered } from './debit-step.js';
import type { PayoutRecord } from './record.js';
import { currentSettleKey, settleAnswered } from './settle-step.js';

/** The open payout whose debit, or current confirm or fail attempt, carries `key`. */
async function findByKey(ctx: PayoutContext, key: string): Promise<{ r: PayoutRecord; debit: boolean } | undefined> {
  let after: { createdAt: number; reference: string } | undefined;
  do {
    const page = await ctx.store.list({ states: ['debit_pending', 'paid', 'unpaid'], limit: 100, after });
    for (const r of page.records) {
      if (r.state === 'debit_pending' && r.debitKey === key) return { r, debit: true };
      if (r.settle?.sent === true && currentSettleKey(ctx, r) === key) return { r, debit: false };
    }
    after = page.next;
  } while (after !== undefined);
  return undefined;
}

/** Writes what a resent call's outcome means for its payout; true when it moved one on. */
export async function applyRecovered(ctx: PayoutContext, entry: RecoveredIntent): Promise<boolean> {
  if (entry.outcome !== 'resent' && entry.outcome !== 'failed') return false;
  const found = await findByKey(ctx, entry.intent.key);
  if (found === undefined) return false;
  const answer = entry.outcome === 'resent' ? { kind: 'done' as const, body: entry.result } : readFailure(entry.error);
  const next = found.debit ? await debitAnswered(ctx, found.r, answer) : await settleAnswered(ctx, found.r, answer);
  return next !== undefined;
}

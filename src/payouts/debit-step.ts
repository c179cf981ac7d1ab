/**
 * The debit (`POST /v1/withdrawals`): sent with the key derived from the reference, again with the
 * same key while its outcome is unknown, within the service's 24-hour window less the margin.
 */
import { answerOf, type Answer } from './answers.js';
import type { PayoutContext } from './context.js';
import { IDEMPOTENCY_WINDOW_MS } from './options.js';
import type { PayoutRecord } from './record.js';

/** Whether the debit's key may still be sent: its window, less the margin, has not run out. */
function debitWindowOpen(ctx: PayoutContext, r: PayoutRecord): boolean {
  return ctx.wallNow() < r.createdAt + IDEMPOTENCY_WINDOW_MS - ctx.settings.windowMarginMs;
}

/** Sends the debit of a `debit_pending` payout and writes what its answer means. */
export async function debitStep(ctx: PayoutContext, r: PayoutRecord, signal?: AbortSignal): Promise<PayoutRecord | undefined> {
  if (!debitWindowOpen(ctx, r))
    return ctx.attention(
      r,
      'debit_window_passed',
      null,
      "the debit's outcome stayed unknown until its key's 24-hour window (less the margin) ran out: sending it again would be a new debit",
    );
  const answer = await ctx.telemetry.span('debit', { reference: r.reference }, () =>
    answerOf(() =>
      ctx.client
        .member(r.member)
        .withdrawals.create(
          { asset: r.asset, amount: r.amount, to_address: r.toAddress },
          { idempotencyKey: r.debitKey, ...(signal === undefined ? {} : { signal }) },
        ),
    ),
  );
  return debitAnswered(ctx, r, answer);
}

/** Writes what a debit's answer means (also for a debit `client.recover()` resent). */
export function debitAnswered(ctx: PayoutContext, r: PayoutRecord, answer: Answer): Promise<PayoutRecord | undefined> {
  const sends = r.debitSends + 1;
  switch (answer.kind) {
    case 'done': {
      const id = (answer.body as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' || id === '')
        return ctx.attention({ ...r, debitSends: sends }, 'debit_unreadable', null, 'the debit answered 2xx without a withdrawal id');
      return ctx.commit(r, { state: 'debited', withdrawalId: id, debitSends: sends });
    }
    case 'refused':
      return ctx.commit(r, {
        state: 'rejected',
        debitSends: sends,
        outcome: { state: 'rejected', at: ctx.wallNow(), by: 'service', detail: answer.code },
      });
    case 'key_reused':
      return ctx.attention(
        { ...r, debitSends: sends },
        'debit_key_reused',
        answer.code,
        "the debit's key was used with another body: another payout, or an edited one, shares this reference",
      );
    case 'unknown':
      ctx.telemetry.log(
        'info',
        `payout ${JSON.stringify(r.reference)}: debit outcome unknown (${answer.detail}); sent again later with the same key`,
        { reference: r.reference },
      );
      return Promise.resolve(undefined);
  }
}

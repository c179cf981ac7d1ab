/**
 * Confirm (after a recorded payment) or fail (for a payout never paid), each at most once: the
 * attempt number is written before its call goes out, the same key goes again while the outcome is
 * unknown, and a new attempt number is taken only after a definite answer.
 */
import { answerOf, type Answer } from './answers.js';
import type { PayoutContext } from './context.js';
import { settleKeyFor } from './keys.js';
import type { PayoutRecord, PayoutSettleStep } from './record.js';

/** Which call a payout in `paid` or `unpaid` needs. */
function stepOf(r: PayoutRecord): 'confirm' | 'fail' {
  return r.state === 'paid' ? 'confirm' : 'fail';
}

/** The key of the payout's current attempt. */
export function currentSettleKey(ctx: PayoutContext, r: PayoutRecord): string | undefined {
  return r.settle === null ? undefined : settleKeyFor(ctx.settings.namespace, r.reference, r.settle.step, r.settle.attempt);
}

/** Writes the attempt as sent (or resolves with the record when it already is). */
async function markSent(ctx: PayoutContext, r: PayoutRecord, step: 'confirm' | 'fail'): Promise<PayoutRecord | undefined> {
  const s = r.settle?.step === step ? r.settle : null;
  if (s?.sent === true) return r;
  const settle: PayoutSettleStep = {
    step,
    attempt: s?.attempt ?? 1,
    sent: true,
    merchantLevel: s?.merchantLevel ?? false,
    refusedCode: s?.refusedCode ?? null,
    nextAt: null,
  };
  return ctx.commit(r, { settle, confirmSent: r.confirmSent || step === 'confirm' });
}

/** Sends the current attempt: the member form, or the merchant-level form after `member_not_found`. */
function send(ctx: PayoutContext, r: PayoutRecord, signal: AbortSignal | undefined): Promise<Answer> {
  const s = r.settle!;
  const options = { idempotencyKey: currentSettleKey(ctx, r)!, ...(signal === undefined ? {} : { signal }) };
  const id = r.withdrawalId!;
  return ctx.telemetry.span(s.step, { reference: r.reference }, () =>
    answerOf(() => {
      const api = s.merchantLevel ? ctx.client.withdrawals : ctx.client.member(r.member).withdrawals;
      return s.step === 'confirm' ? api.confirm(id, {}, options) : api.fail(id, {}, options);
    }),
  );
}

/** Sends confirm or fail for a `paid` or `unpaid` payout and writes what its answer means. */
export async function settleStep(ctx: PayoutContext, r: PayoutRecord, signal?: AbortSignal): Promise<PayoutRecord | undefined> {
  const step = stepOf(r);
  // Never fail what may have been paid: unreachable through the workflow's own writes, kept as the last guard.
  if (step === 'fail' && (r.chainRef !== null || r.confirmSent))
    return ctx.attention(r, 'settle_refused', null, 'fail is never sent for a payout with a recorded payment or a confirm sent');
  if (r.withdrawalId === null) return ctx.attention(r, 'debit_unreadable', null, 'no withdrawal id is recorded');
  const waitUntil = r.settle?.step === step ? r.settle.nextAt : null;
  if (waitUntil !== null && (await ctx.store.now()) < waitUntil) return undefined;
  const marked = await markSent(ctx, r, step);
  if (marked === undefined) return undefined;
  return settleAnswered(ctx, marked, await send(ctx, marked, signal), signal);
}

/** Writes what a confirm's or fail's answer means (also for one `client.recover()` resent). */
export async function settleAnswered(
  ctx: PayoutContext,
  r: PayoutRecord,
  answer: Answer,
  signal?: AbortSignal,
): Promise<PayoutRecord | undefined> {
  const s = r.settle!;
  const ended = s.step === 'confirm' ? 'confirmed' : 'failed';
  switch (answer.kind) {
    case 'done':
      return ctx.commit(r, { state: ended, outcome: { state: ended, at: ctx.wallNow(), by: 'service', detail: null } });
    case 'unknown':
      ctx.telemetry.log(
        'info',
        `payout ${JSON.stringify(r.reference)}: ${s.step} outcome unknown (${answer.detail}); sent again later with the same key`,
        { reference: r.reference },
      );
      return undefined;
    case 'key_reused':
      return ctx.attention(r, 'settle_refused', answer.code, `${s.step} attempt ${s.attempt}'s key was used with another body`);
    case 'refused':
      return settleRefused(ctx, r, s, answer, signal);
  }
}

async function settleRefused(
  ctx: PayoutContext,
  r: PayoutRecord,
  s: PayoutSettleStep,
  answer: { readonly code: string; readonly status: number },
  signal: AbortSignal | undefined,
): Promise<PayoutRecord | undefined> {
  if (answer.code === 'merchant_custody_shortfall') {
    const nextAt = (await ctx.store.now()) + ctx.settings.custodyRetryMs;
    ctx.telemetry.log(
      'warn',
      `payout ${JSON.stringify(r.reference)}: confirm refused with merchant_custody_shortfall; waiting for the custody declaration to be raised (custodyRaised(), or again in ${ctx.settings.custodyRetryMs} ms)`,
      { reference: r.reference, code: answer.code },
    );
    return ctx.commit(r, { settle: { ...s, attempt: s.attempt + 1, sent: false, refusedCode: answer.code, nextAt } });
  }
  if (answer.code === 'member_not_found' && !s.merchantLevel) {
    // The member was suspended after the debit: the merchant-level form, once, with the same key.
    const moved = await ctx.commit(r, { settle: { ...s, merchantLevel: true } });
    return moved === undefined ? undefined : settleAnswered(ctx, moved, await send(ctx, moved, signal), signal);
  }
  if (s.merchantLevel)
    return ctx.attention(
      r,
      'member_not_found',
      answer.code,
      `the member answers member_not_found, and the merchant-level ${s.step} answered ${answer.code}`,
    );
  if (answer.code === 'state_invalid' || answer.status === 404)
    return ctx.attention(
      r,
      'settle_unclear',
      answer.code,
      `${s.step} answered ${answer.code}: the withdrawal may have been ended by an earlier attempt or by someone else (there is no GET to tell)`,
    );
  return ctx.attention(r, 'settle_refused', answer.code, `${s.step} was refused with ${answer.code}`);
}

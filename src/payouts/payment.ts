/**
 * The merchant's on-chain payment: handed out once (the hand-out is written before the pay
 * function runs, and nothing ever hands a payout out again), reported back as paid or definitely
 * not paid, or left to a person when its outcome is unknown.
 */
import type { PayoutContext } from './context.js';
import { PayoutWorkflowError } from './errors.js';
import type { PaymentReport } from './options.js';
import type { PayoutRecord } from './record.js';

/** A report as the workflow accepts it, or undefined (a throw or a shape it cannot read). */
function readReport(value: unknown): PaymentReport | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  if (v['outcome'] === 'paid' && typeof v['chainRef'] === 'string' && v['chainRef'].trim() !== '')
    return { outcome: 'paid', chainRef: v['chainRef'] };
  if (v['outcome'] === 'not_paid' && typeof v['reason'] === 'string' && v['reason'].trim() !== '')
    return { outcome: 'not_paid', reason: v['reason'] };
  return undefined;
}

/** Whether a report may still be applied: the payout was handed out and nothing else settled it. */
function awaitingReport(r: PayoutRecord): boolean {
  return r.state === 'paying' || (r.state === 'needs_attention' && r.attention?.reason === 'payment_unknown');
}

/** Whether the same report was written before (repeating it is a no-op). */
function alreadyReported(r: PayoutRecord, report: PaymentReport): boolean {
  if (report.outcome === 'paid') return r.chainRef === report.chainRef && r.state !== 'needs_attention';
  return r.state === 'unpaid' && r.unpaidReason === report.reason;
}

/** Refuses a report that does not fit the payout. */
function checkReportFits(r: PayoutRecord, report: PaymentReport): void {
  if (report.outcome === 'not_paid' && (r.chainRef !== null || r.confirmSent))
    throw new PayoutWorkflowError('may_be_paid', r.reference, 'a payment is recorded for it (or a confirm was sent): it is never failed.');
  if (!awaitingReport(r))
    throw new PayoutWorkflowError(
      'wrong_state',
      r.reference,
      `it is ${r.state}; a payment is reported only for a payout handed out for payment.`,
    );
}

/**
 * Writes a payment report: `paid` with its chain reference (before confirm is sent), or `not_paid`
 * (before fail is sent). Repeating the same report is a no-op; a report for a payout that was not
 * handed out, or `not_paid` after a recorded payment, is refused.
 */
export async function applyReport(ctx: PayoutContext, reference: string, report: PaymentReport): Promise<PayoutRecord> {
  for (let tries = 0; ; tries++) {
    const r = await ctx.store.get(reference);
    if (r === undefined) throw new PayoutWorkflowError('unknown_reference', reference, 'no such payout.');
    if (alreadyReported(r, report)) return r;
    checkReportFits(r, report);
    const written =
      report.outcome === 'paid'
        ? await ctx.commit(r, { state: 'paid', chainRef: report.chainRef })
        : await ctx.commit(r, { state: 'unpaid', unpaidReason: report.reason });
    if (written !== undefined) return written;
    if (tries >= 5)
      throw new PayoutWorkflowError('wrong_state', reference, 'it kept changing while the report was written; report it again.');
  }
}

/** A payment whose outcome is unknown: the lookup hook may settle it, else a person decides. */
async function paymentUnknown(ctx: PayoutContext, r: PayoutRecord, detail: string): Promise<PayoutRecord | undefined> {
  if (ctx.lookupPayment !== undefined) {
    let found: PaymentReport | undefined;
    try {
      found = readReport(await ctx.lookupPayment(r));
    } catch (err) {
      ctx.telemetry.log(
        'warn',
        `payout ${JSON.stringify(r.reference)}: lookupPayment threw (${err instanceof Error ? err.name : typeof err})`,
        { reference: r.reference },
      );
    }
    if (found !== undefined) {
      try {
        return await applyReport(ctx, r.reference, found);
      } catch (err) {
        if (!(err instanceof PayoutWorkflowError)) throw err;
        return undefined; // Settled meanwhile by someone else: the next read says how.
      }
    }
  }
  return ctx.attention(
    r,
    'payment_unknown',
    null,
    `${detail}; the payment may or may not have gone out: check the chain for reference ${JSON.stringify(r.reference)}`,
  );
}

/** Writes the hand-out: from here on the payout is never handed out again. */
export async function handOut(ctx: PayoutContext, r: PayoutRecord): Promise<PayoutRecord | undefined> {
  const now = await ctx.store.now();
  return ctx.commit(r, {
    state: 'paying',
    handOut: { at: ctx.wallNow(), leaseUntil: now + ctx.settings.leaseMs, worker: ctx.settings.workerId },
  });
}

/** Runs the pay function on a payout just handed out, bounded by its lease. */
async function runPay(ctx: PayoutContext, r: PayoutRecord, pay: NonNullable<PayoutContext['pay']>): Promise<PaymentReport | string> {
  const lease = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const leaseEnd = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      lease.abort();
      resolve('the hand-out outlived its lease');
    }, ctx.settings.leaseMs);
  });
  const paying = Promise.resolve()
    .then(() => pay(r, { signal: lease.signal }))
    .then(
      (value) => readReport(value) ?? 'the pay function resolved with something that is not a payment report',
      (err: unknown) => `the pay function threw (${err instanceof Error ? err.name : typeof err})`,
    );
  try {
    const first = await Promise.race([paying, leaseEnd]);
    // A report arriving after the lease still counts: it settles the payout a person would be asked about.
    if (typeof first === 'string' && lease.signal.aborted)
      void paying.then((late) => (typeof late === 'string' ? undefined : applyReport(ctx, r.reference, late))).catch(() => undefined);
    return first;
  } finally {
    clearTimeout(timer);
  }
}

/** Hands a `debited` payout out to the pay function and writes what it reports. */
export async function payStep(ctx: PayoutContext, r: PayoutRecord): Promise<PayoutRecord | undefined> {
  const pay = ctx.pay;
  if (pay === undefined) return undefined;
  const handed = await handOut(ctx, r);
  if (handed === undefined) return undefined;
  const result = await ctx.telemetry.span('pay', { reference: r.reference }, () => runPay(ctx, handed, pay));
  if (typeof result === 'string') return paymentUnknown(ctx, handed, result);
  try {
    return await applyReport(ctx, handed.reference, result);
  } catch (err) {
    if (!(err instanceof PayoutWorkflowError)) throw err;
    return undefined;
  }
}

/** Sends a `paying` payout whose lease ran out (its worker died, or is late) to the lookup or a person. */
export async function sweepStep(ctx: PayoutContext, r: PayoutRecord): Promise<PayoutRecord | undefined> {
  if (r.handOut === null || (await ctx.store.now()) < r.handOut.leaseUntil) return undefined;
  return paymentUnknown(ctx, r, `the hand-out to ${r.handOut.worker} outlived its lease`);
}

/** One pass of the workflow over its open payouts, `concurrency` at a time, with the figures it saw. */
import type { PayoutContext } from './context.js';
import type { PayoutRecord, PayoutState } from './record.js';

/** What one pass saw and did. */
export interface PayoutPassSummary {
  /** Open payouts found (not ended), by state, before the pass moved them. */
  readonly open: Readonly<Partial<Record<PayoutState, number>>>;
  /** Payouts moved on to another state by this pass. */
  readonly moved: number;
  /** Payouts whose step failed (logged; tried again next pass). */
  readonly failed: number;
  /** Age of the oldest open payout (wall clock, from its `createdAt`), or undefined when none is open. */
  readonly oldestOpenAgeMs: number | undefined;
}

const OPEN: readonly PayoutState[] = ['debit_pending', 'debited', 'paying', 'paid', 'unpaid', 'needs_attention'];

/** Lists every open payout, oldest first. */
async function openPayouts(ctx: PayoutContext): Promise<PayoutRecord[]> {
  const all: PayoutRecord[] = [];
  let after: { createdAt: number; reference: string } | undefined;
  do {
    const page = await ctx.store.list({ states: OPEN, limit: 200, after });
    all.push(...page.records);
    after = page.next;
  } while (after !== undefined);
  return all;
}

/** Runs `advance` on every open payout not waiting for a person. */
export async function runPass(
  ctx: PayoutContext,
  advance: (reference: string) => Promise<PayoutRecord>,
  signal: AbortSignal | undefined,
): Promise<PayoutPassSummary> {
  const open = await openPayouts(ctx);
  const byState: Partial<Record<PayoutState, number>> = {};
  for (const r of open) byState[r.state] = (byState[r.state] ?? 0) + 1;
  const oldest = open.reduce<number | undefined>((min, r) => (min === undefined || r.createdAt < min ? r.createdAt : min), undefined);
  const oldestOpenAgeMs = oldest === undefined ? undefined : Math.max(0, ctx.wallNow() - oldest);
  await ctx.telemetry.pass(byState, oldestOpenAgeMs);
  const queue = open.filter((r) => r.state !== 'needs_attention');
  let moved = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    for (let r = queue.shift(); r !== undefined && signal?.aborted !== true; r = queue.shift()) {
      try {
        const after = await advance(r.reference);
        if (after.state !== r.state) moved++;
      } catch (err) {
        failed++;
        ctx.telemetry.log(
          'error',
          `payout ${JSON.stringify(r.reference)}: step failed (${err instanceof Error ? `${err.name}: ${err.message}` : typeof err}); tried again next pass`,
          { reference: r.reference },
        );
      }
    }
  };
  await Promise.all(Array.from({ length: ctx.settings.concurrency }, worker));
  return { open: byState, moved, failed, oldestOpenAgeMs };
}

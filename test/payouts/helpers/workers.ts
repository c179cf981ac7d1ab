/**
 * Workers of the crash tests: a PayoutWorkflow over a store, a client and a pay function, driven
 * the way a merchant's job would drive it (start each payout of the batch, then passes of
 * `runOnce` until nothing is left to move), in this process.
 */
import { MerchantClient, type FetchFunction } from '../../../src/index.js';
import { PayoutWorkflow } from '../../../src/payouts/index.js';
import { isFinalPayoutState, type PayoutRecord } from '../../../src/payouts/record.js';
import type { PayoutStore } from '../../../src/payouts/store.js';
import type { Sandbox } from '../../../src/testing/index.js';
import type { PayAnswer, PlannedPayout } from './batch.js';
import { allRecords } from './watched-store.js';

/** The hand-out lease the tests give (a resumed worker's store clock is stepped past it). */
export const LEASE_MS = 60_000;

/** Test backoff: a retry never waits seconds. */
export const FAST_BACKOFF = { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 } as const;

/** What a worker is made of. */
export interface WorkerParts {
  readonly client: MerchantClient;
  readonly store: PayoutStore;
  /** Omitted: the worker hands nothing out (it debits, confirms and fails only). */
  readonly pay?: ((payout: PayoutRecord) => Promise<PayAnswer>) | undefined;
  readonly lookupPayment?: ((payout: PayoutRecord) => Promise<PayAnswer | undefined>) | undefined;
  readonly workerId: string;
  readonly leaseMs?: number;
}

/** A workflow over these parts. */
export function workflowOf(parts: WorkerParts): PayoutWorkflow {
  return new PayoutWorkflow({
    client: parts.client,
    store: parts.store,
    ...(parts.pay === undefined ? {} : { pay: parts.pay }),
    ...(parts.lookupPayment === undefined ? {} : { lookupPayment: parts.lookupPayment }),
    workerId: parts.workerId,
    leaseMs: parts.leaseMs ?? LEASE_MS,
    // A step that failed is counted in the pass summary, which drain() reads; no console lines.
    logger: {},
    openTelemetry: false,
  });
}

/** A client on the sandbox in this process, through `fetch` (a test's own, or the sandbox's). */
export function sandboxClient(sandbox: Sandbox, fetch: FetchFunction = sandbox.fetch): MerchantClient {
  return new MerchantClient({
    baseUrl: sandbox.baseUrl,
    ...sandbox.credentials,
    transport: 'fetch',
    fetch,
    backoff: FAST_BACKOFF,
    logLevel: 'off',
  });
}

/** A record a worker still moves on: open, and not waiting for a person. */
const movable = (r: PayoutRecord): boolean => !isFinalPayoutState(r.state) && r.state !== 'needs_attention';

/** Movable by `worker` among live workers: a payout another worker holds (its lease running) is that worker's to finish. */
const movableBy =
  (worker: string | undefined) =>
  (r: PayoutRecord): boolean =>
    movable(r) && (worker === undefined || r.state !== 'paying' || r.handOut?.worker === worker);

/** Passes a batch needs at most (each pass moves every open payout as far as it goes). */
const MAX_PASSES = 25;

/**
 * Passes of `runOnce` until no payout in `store` is movable; the number of passes. Rejects with
 * the records left when that never happens (a workflow that leaves a payout behind), and when a
 * pass says a payout's step failed (nothing here fails but a crashed worker's store).
 *
 * `racing`: other live workers share the store, and a payout one of them handed out is theirs
 * to finish (without it, every open payout counts, as for a worker resuming alone after a crash).
 */
export async function drain(workflow: PayoutWorkflow, store: PayoutStore, racing = false): Promise<number> {
  const mine = movableBy(racing ? workflow.workerId : undefined);
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const summary = await workflow.runOnce();
    if (summary.failed > 0) throw new Error(`a pass failed ${summary.failed} step(s): ${JSON.stringify(summary)}`);
    if (!(await allRecords(store)).some(mine)) return pass;
  }
  const left = (await allRecords(store)).filter(mine);
  throw new Error(`payouts still open after ${MAX_PASSES} passes: ${left.map((r) => `${r.reference} ${r.state}`).join(', ')}`);
}

/** Starts every payout of the batch (a second start of a reference is the same payout), then drains. */
export async function runBatch(workflow: PayoutWorkflow, store: PayoutStore, payouts: readonly PlannedPayout[]): Promise<number> {
  for (const p of payouts) {
    await workflow.start({ reference: p.reference, member: p.member, asset: p.asset, amount: p.amount, toAddress: p.toAddress });
  }
  return drain(workflow, store);
}

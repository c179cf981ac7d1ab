/**
 * Every step of the payout workflow survives a crash, simulated in process over the memory
 * store: a worker dies before or after each store write (create, replace), before each money call
 * is sent or after the service answered it (the answer lost), and inside the merchant's pay
 * function before or after the payment is on the chain. A dead worker's store, fetch and pay
 * function reject from then on (nothing it does afterwards lands; the object is dropped). A fresh
 * worker over the same store and the same sandbox then starts the same batch again and runs
 * until nothing is movable, with its store clock past the dead worker's hand-out lease, without
 * and with a `lookupPayment` that reads the chain.
 *
 * The batch (helpers/batch.ts): one payout paid and confirmed, one not paid and failed, one whose
 * debit is refused. Every N is tried, each side, until the batch has fewer writes (or calls) than
 * N. What is asserted after each resume: helpers/invariants.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { FetchFunction } from '../../src/index.js';
import { MemoryPayoutStore } from '../../src/payouts/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { lookupFunction, memoryChain, payFunction, seedBatch, type PlannedPayout } from './helpers/batch.js';
import { expectPayoutsSound, unknownPayments } from './helpers/invariants.js';
import { allRecords, CrashSwitch, WatchedStore, type Side } from './helpers/watched-store.js';
import { LEASE_MS, runBatch, sandboxClient, workflowOf } from './helpers/workers.js';

type Point =
  | { readonly kind: 'write'; readonly n: number; readonly side: Side }
  | { readonly kind: 'call'; readonly n: number; readonly side: Side }
  | { readonly kind: 'pay'; readonly reference: string; readonly side: Side };

/** How one crash and resume went. */
interface Run {
  /** Where the worker died; undefined when the point was never reached (the batch ended first). */
  readonly crashed: string | undefined;
  /** Each payout's final state. */
  readonly states: Record<string, string>;
}

const SIDES: readonly Side[] = ['before', 'after'];
/** More writes or calls than a batch of three payouts makes, whatever the workflow's bookkeeping: a loop guard. */
const MAX_N = 80;
const table: string[] = [];

/** A fetch onto the sandbox that dies at a call point; counts the money calls (POSTs but the token exchange). */
function crashingFetch(sandbox: Sandbox, point: Point, life: CrashSwitch): FetchFunction {
  let calls = 0;
  return async (input, init) => {
    life.check();
    const money = init.method === 'POST' && !input.endsWith('/v1/connect/token');
    const n = money ? ++calls : 0;
    const here = point.kind === 'call' && point.n === n;
    if (here && point.side === 'before') throw life.crash(`before sending call ${n} (${input.replace(sandbox.baseUrl, '')})`);
    const res = await sandbox.fetch(input, init);
    if (here && point.side === 'after')
      throw life.crash(`after the answer of call ${n} (${input.replace(sandbox.baseUrl, '')}, ${res.status})`);
    life.check();
    return res;
  };
}

/** Runs the batch once with a crash at `point`, then resumes it in a fresh worker and checks everything. */
async function crashAndResume(point: Point, lookup: boolean): Promise<Run> {
  const sandbox = createSandbox();
  const { payouts, funding } = seedBatch(sandbox);
  const plans = new Map(payouts.map((p) => [p.reference, p.plan]));
  let clock = 1_000;
  const store = new MemoryPayoutStore({ now: () => clock });
  const chain = memoryChain();
  const payCalls = new Map<string, number>();

  const life = new CrashSwitch();
  const first = new WatchedStore(
    store,
    (w) => {
      if (point.kind === 'write' && point.n === w.n && point.side === w.side)
        throw life.crash(`${w.side} write ${w.n} (${w.record.reference} ${w.op} ${w.record.state})`);
    },
    life,
  );
  const client1 = sandboxClient(sandbox, crashingFetch(sandbox, point, life));
  const pay1 = payFunction(plans, chain, payCalls, (reference, side) => {
    if (point.kind === 'pay' && point.reference === reference && point.side === side)
      throw life.crash(`in pay ${side} the payment of ${reference}`);
  });
  try {
    await runBatch(workflowOf({ client: client1, store: first, pay: pay1, workerId: 'w-crashed' }), first, payouts);
  } catch (err) {
    if (!life.crashed) throw err;
  }
  await client1.close();
  if (!life.crashed) return { crashed: undefined, states: {} };

  // A fresh worker, later: the dead worker's hand-out lease has run out on the store's clock.
  clock += 2 * LEASE_MS;
  const second = new WatchedStore(store);
  const client2 = sandboxClient(sandbox);
  const workflow = workflowOf({
    client: client2,
    store: second,
    pay: payFunction(plans, chain, payCalls),
    lookupPayment: lookup ? lookupFunction(chain) : undefined,
    workerId: 'w-resumed',
  });
  await runBatch(workflow, second, payouts);
  await client2.close();
  const states = expectPayoutsSound(
    {
      payouts,
      funding,
      records: await allRecords(store),
      landed: [...first.landed, ...second.landed],
      payments: chain.payments(),
      payCalls,
      effects: sandbox.state.effects,
      balance: (m, a) => sandbox.state.balance(m, a),
      unknownWaits: !lookup,
    },
    unknownPayments(first.landed),
  );
  return { crashed: life.where, states };
}

/** Tries every N from 1 until the batch ends before reaching it; how many points crashed. */
async function everyN(kind: 'write' | 'call', side: Side, lookup: boolean): Promise<number> {
  for (let n = 1; n <= MAX_N; n++) {
    const run = await crashAndResume({ kind, n, side }, lookup);
    if (run.crashed === undefined) return n - 1;
    table.push(`${lookup ? 'lookup' : 'no lookup'} | ${run.crashed} | ${JSON.stringify(run.states)}`);
  }
  throw new Error(`more than ${MAX_N} ${kind}s for a batch of three payouts`);
}

describe('payout workflow, crashes simulated in process (memory store, in-process sandbox)', () => {
  afterAll(() => {
    if (table.length > 0) console.info(`simulated crashes (resume | died | final states):\n${table.join('\n')}`);
  });

  it('without a crash the batch ends as planned: confirmed, failed, rejected', async () => {
    const sandbox = createSandbox();
    const { payouts, funding } = seedBatch(sandbox);
    const store = new WatchedStore(new MemoryPayoutStore());
    const chain = memoryChain();
    const payCalls = new Map<string, number>();
    const client = sandboxClient(sandbox);
    const pay = payFunction(new Map(payouts.map((p) => [p.reference, p.plan])), chain, payCalls);
    await runBatch(workflowOf({ client, store, pay, workerId: 'w-1' }), store, payouts);
    await client.close();
    const states = expectPayoutsSound(
      {
        payouts,
        funding,
        records: await allRecords(store),
        landed: store.landed,
        payments: chain.payments(),
        payCalls,
        effects: sandbox.state.effects,
        balance: (m, a) => sandbox.state.balance(m, a),
        unknownWaits: false,
      },
      new Set(),
    );
    const planned: Record<PlannedPayout['plan'], string> = { paid: 'confirmed', not_paid: 'failed', refused: 'rejected' };
    expect(states).toEqual(Object.fromEntries(payouts.map((p) => [p.reference, planned[p.plan]])));
    expect(payCalls).toEqual(new Map(payouts.filter((p) => p.plan !== 'refused').map((p) => [p.reference, 1])));
  });

  for (const lookup of [false, true]) {
    const resume = lookup ? 'a resume with lookupPayment' : 'a resume without lookupPayment';
    for (const side of SIDES) {
      it(`a crash ${side} each store write, then ${resume}`, async () => {
        // create and replace for three payouts: at least create + end each, plus the steps between.
        expect(await everyN('write', side, lookup)).toBeGreaterThanOrEqual(8);
      });

      it(`a crash ${side} each money call (${side === 'before' ? 'never sent' : 'executed, the answer lost'}), then ${resume}`, async () => {
        // Three debits, one confirm, one fail at least.
        expect(await everyN('call', side, lookup)).toBeGreaterThanOrEqual(5);
      });

      it(`a crash in pay ${side} the payment reaches the chain, then ${resume}`, async () => {
        for (const reference of ['ord-b-paid', 'ord-b-unpaid']) {
          const run = await crashAndResume({ kind: 'pay', reference, side }, lookup);
          expect(run.crashed).toBeDefined();
          // Without the lookup, the payment's outcome is unknown: a person decides; with it, it ends.
          if (!lookup) expect(run.states[reference]).toBe('needs_attention');
          else expect(run.states[reference]).toBe(side === 'after' && reference === 'ord-b-paid' ? 'confirmed' : 'failed');
          table.push(`${lookup ? 'lookup' : 'no lookup'} | ${run.crashed} | ${JSON.stringify(run.states)}`);
        }
      });
    }
  }
});

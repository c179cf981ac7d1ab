/**
 * The edges of the workflow: every decision a person can make and the ones refused, the lease
 * ending under a pay function that is still running, the lookup hook's answers, `run()`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatReconciliation, reconcilePayouts } from '../../src/payouts/index.js';
import { effects, makeDesk, request, settleKey } from './helpers/desk.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** A desk whose pay function throws: every payout lands in needs_attention (payment_unknown). */
async function stuck(reference: string) {
  const desk = makeDesk({ pay: () => Promise.reject(new Error('crash')) });
  await desk.workflow.start(request(desk, reference));
  await desk.workflow.runOnce();
  expect((await desk.workflow.get(reference))?.state).toBe('needs_attention');
  return desk;
}

describe('decisions of a person', () => {
  it('refuses a decision for a payout not waiting for one, an unknown reference, and blank texts', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'd-1'));
    await expect(desk.workflow.resolve('d-1', { decision: 'retry' })).rejects.toMatchObject({
      name: 'PayoutWorkflowError',
      reason: 'wrong_state',
    });
    await expect(desk.workflow.resolve('nope', { decision: 'retry' })).rejects.toMatchObject({ reason: 'unknown_reference' });
    const d2 = await stuck('d-2');
    await expect(d2.workflow.resolve('d-2', { decision: 'paid', chainRef: ' ' })).rejects.toMatchObject({ reason: 'wrong_state' });
    await expect(d2.workflow.resolve('d-2', { decision: 'ended', state: 'confirmed', note: '' })).rejects.toMatchObject({
      reason: 'wrong_state',
    });
    await expect(d2.workflow.resolve('d-2', { decision: 'ended', state: 'paid' as never, note: 'x' })).rejects.toMatchObject({
      reason: 'wrong_state',
    });
    await expect(d2.workflow.resolve('d-2', { decision: 'retry' })).rejects.toMatchObject({ reason: 'wrong_state' });
    expect((await d2.workflow.get('d-2'))?.state).toBe('needs_attention');
  });

  it('debited: a debit found after its window ran out goes on to its hand-out; paid needs the id first', async () => {
    const desk = makeDesk();
    desk.sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 504, when: 'after' });
    const r = await desk.workflow.start(request(desk, 'd-late'));
    vi.spyOn(Date, 'now').mockReturnValue(r.createdAt + 24 * 3600_000);
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('d-late')).toMatchObject({ state: 'needs_attention', attention: { reason: 'debit_window_passed' } });
    await expect(desk.workflow.resolve('d-late', { decision: 'paid', chainRef: '0x' })).rejects.toMatchObject({ reason: 'wrong_state' });
    await expect(desk.workflow.resolve('d-late', { decision: 'not_paid', reason: 'x' })).rejects.toMatchObject({ reason: 'wrong_state' });
    const id = desk.sandbox.state.effects[0]!.id;
    expect(await desk.workflow.resolve('d-late', { decision: 'debited', withdrawalId: id })).toMatchObject({
      state: 'confirmed',
      withdrawalId: id,
    });
    expect(desk.payments.get('d-late')).toBe(1);
    expect(desk.sandbox.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('retry after a refusal was dealt with: a new attempt number, the member form again', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'd-retry'));
    await desk.workflow.handOut('d-retry');
    desk.sandbox.faults.inject(
      { method: 'POST', path: '/v1/withdrawals/*/confirm' },
      { kind: 'unknown_code', status: 400, code: 'invalid_request' },
    );
    expect(await desk.workflow.reportPaid('d-retry', '0xr')).toMatchObject({
      state: 'needs_attention',
      attention: { reason: 'settle_refused', code: 'invalid_request', from: 'paid' },
    });
    expect(await desk.workflow.resolve('d-retry', { decision: 'retry' })).toMatchObject({
      state: 'confirmed',
      settle: { attempt: 2, merchantLevel: false },
    });
    expect(effects(desk.sandbox, 'withdrawal.confirm').map((e) => e.key)).toEqual([settleKey('d-retry', 'confirm', 2)]);
  });

  it('ended: recorded as final by a person, nothing sent', async () => {
    const desk = await stuck('d-end');
    const before = desk.sandbox.requests.length;
    expect(await desk.workflow.resolve('d-end', { decision: 'ended', state: 'failed', note: 'failed by support' })).toMatchObject({
      state: 'failed',
      outcome: { state: 'failed', by: 'person', detail: 'failed by support' },
    });
    expect(desk.sandbox.requests.length).toBe(before);
  });

  it('a member suspended whose merchant-level form is refused too goes to a person', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'd-gone'));
    await desk.workflow.handOut('d-gone');
    desk.sandbox.state.suspendMember(desk.member);
    // The merchant-level form is refused too: a fault armed when the workflow writes that form down, before it sends.
    const replace = desk.store.replace.bind(desk.store);
    vi.spyOn(desk.store, 'replace').mockImplementation((next) => {
      if (next.settle?.merchantLevel === true)
        desk.sandbox.faults.inject(
          { method: 'POST', path: '/v1/withdrawals/*/fail' },
          { kind: 'unknown_code', status: 404, code: 'not_found' },
        );
      return replace(next);
    });
    await desk.workflow.reportNotPaid('d-gone', 'never broadcast');
    expect(await desk.workflow.get('d-gone')).toMatchObject({
      state: 'needs_attention',
      attention: { reason: 'member_not_found', code: 'not_found' },
    });
  });

  it('idempotency_key_reused on a debit goes to a person', async () => {
    const desk = makeDesk();
    desk.sandbox.faults.inject(
      { method: 'POST', path: '/v1/withdrawals' },
      { kind: 'unknown_code', status: 409, code: 'idempotency_key_reused' },
    );
    expect(await desk.workflow.start(request(desk, 'd-reused'))).toMatchObject({
      state: 'needs_attention',
      attention: { reason: 'debit_key_reused' },
    });
  });
});

describe('the payment under its lease', () => {
  it('a pay function still running when the lease ends: the payout goes to a person, and its late report still records the payment', async () => {
    let calls = 0;
    // Reports only once the payout is with a person: the report arrives late, whatever the machine's speed.
    const late = async (reference: string): Promise<void> => {
      while ((await desk.store.get(reference))?.state !== 'needs_attention') await new Promise((r) => setImmediate(r));
    };
    const desk = makeDesk({
      pay: (payout, { signal }) => {
        calls++;
        return new Promise((resolve) =>
          signal.addEventListener(
            'abort',
            () => void late(payout.reference).then(() => resolve({ outcome: 'paid', chainRef: `late-${payout.reference}` })),
          ),
        );
      },
      overrides: { leaseMs: 1 },
    });
    await desk.workflow.start(request(desk, 'l-1'));
    await desk.workflow.runOnce();
    await vi.waitFor(async () => expect((await desk.workflow.get('l-1'))?.state).toBe('paid'));
    expect(await desk.workflow.get('l-1')).toMatchObject({
      chainRef: 'late-l-1',
      attention: { reason: 'payment_unknown', detail: expect.stringContaining('outlived its lease') },
    });
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('l-1')).toMatchObject({ state: 'confirmed' });
    expect(calls).toBe(1);
  });

  it('the lookup hook: not_paid sends fail; undefined or a throw leaves it to a person', async () => {
    const answers: (() => Promise<unknown>)[] = [
      () => Promise.resolve({ outcome: 'not_paid', reason: 'tx rejected by the node' }),
      () => Promise.resolve(undefined),
      () => Promise.reject(new Error('lookup down')),
      () => Promise.resolve({ outcome: 'paid', chainRef: '' }),
    ];
    const desk = makeDesk({
      pay: () => Promise.reject(new Error('crash')),
      overrides: { lookupPayment: () => answers.shift()!() as never },
    });
    for (const ref of ['k-1', 'k-2', 'k-3', 'k-4']) {
      await desk.workflow.start(request(desk, ref));
      await desk.workflow.advance(ref);
    }
    expect(await desk.workflow.get('k-1')).toMatchObject({ state: 'failed', unpaidReason: 'tx rejected by the node' });
    for (const ref of ['k-2', 'k-3', 'k-4']) expect((await desk.workflow.get(ref))?.state).toBe('needs_attention');
  });

  it('a pay function answering something that is not a report: outcome unknown', async () => {
    const desk = makeDesk({ pay: () => Promise.resolve({ outcome: 'maybe' } as never) });
    await desk.workflow.start(request(desk, 'x-1'));
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('x-1')).toMatchObject({
      state: 'needs_attention',
      attention: { detail: expect.stringContaining('not a payment report') },
    });
  });
});

describe('run()', () => {
  it('passes until aborted, and refuses a bad interval', async () => {
    const desk = makeDesk();
    await desk.workflow.start(request(desk, 'r-1'));
    const stop = new AbortController();
    const running = desk.workflow.run({ signal: stop.signal, intervalMs: 60_000 });
    await vi.waitFor(async () => expect((await desk.workflow.get('r-1'))?.state).toBe('confirmed'));
    stop.abort();
    await expect(running).resolves.toBeUndefined();
    await expect(desk.workflow.run({ intervalMs: 0 })).rejects.toMatchObject({ name: 'InvalidArgumentError', argument: 'intervalMs' });
  });
});

/** A clock that moves only when slept on: the wait between the two reads costs no real time. */
function stepped() {
  let now = 0;
  return {
    now: () => now,
    sleep: (ms: number) => {
      now += Math.max(0, ms);
      return Promise.resolve();
    },
  };
}

describe('the reconciliation printout of a desk', () => {
  it('prints a discrepancy with its candidate, a stale payout and the members read', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'p-1', '4'));
    await desk.workflow.cancel('p-1', 'customer changed their mind');
    // A debit outside the workflow: 6 in withdrawing that no payout explains.
    await desk.sandbox
      .client({ logLevel: 'off' })
      .member(desk.member)
      .withdrawals.create({ asset: 'USDT', amount: '6', to_address: 'T-x' });
    const report = await reconcilePayouts({
      client: desk.sandbox.client({ logLevel: 'off' }),
      store: desk.store,
      clock: stepped(),
    });
    const lines = formatReconciliation(report).split('\n');
    expect(lines[0]).toMatch(/: 1 discrepancy, 0 members not found, 0 stale payouts, 0 read failures, 1 member read$/);
    expect(lines[1]).toMatch(/^DISCREPANCY mem_\S+ USDT above by 6\.000000: withdrawing 6\.000000 outside \[0\.000000, 0\.000000\]/);
    expect(lines.at(-1)).toMatch(/^NOT READ /);
  });
});

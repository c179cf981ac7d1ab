/**
 * The payout workflow against the in-process sandbox: what went over the wire (the sandbox's
 * effects and their keys), what the member's buckets show, what the store holds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { idempotencyKeyFor } from '../../src/index.js';
import { PayoutWorkflowError } from '../../src/payouts/errors.js';
import { effects, makeDesk, request, settleKey } from './helpers/desk.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a payout from start to confirm', () => {
  it('records, debits, hands out once, confirms: one debit and one confirm at the service, withdrawing back to zero', async () => {
    const desk = makeDesk();
    const started = await desk.workflow.start(request(desk, 'ord-1', '25.5'));
    expect(started).toMatchObject({ state: 'debited', asset: 'USDT', amount: '25.5', version: 2 });
    expect(desk.sandbox.state.balance(desk.member, 'USDT')).toMatchObject({ available: '974.500000', withdrawing: '25.500000' });
    const pass = await desk.workflow.runOnce();
    expect(pass).toMatchObject({ open: { debited: 1 }, moved: 1, failed: 0 });
    const done = await desk.workflow.get('ord-1');
    expect(done).toMatchObject({
      state: 'confirmed',
      chainRef: '0xchain-ord-1',
      confirmSent: true,
      outcome: { state: 'confirmed', by: 'service' },
    });
    expect(desk.payments.get('ord-1')).toBe(1);
    expect(effects(desk.sandbox, 'withdrawal.create')).toEqual([{ id: started.withdrawalId, key: idempotencyKeyFor('payout', 'ord-1') }]);
    expect(effects(desk.sandbox, 'withdrawal.confirm')).toEqual([{ id: started.withdrawalId, key: settleKey('ord-1', 'confirm', 1) }]);
    expect(desk.sandbox.state.balance(desk.member, 'USDT')).toMatchObject({ available: '974.500000', withdrawing: '0.000000' });
    expect(desk.changes).toEqual([
      'ord-1: new -> debit_pending',
      'ord-1: debit_pending -> debited',
      'ord-1: debited -> paying',
      'ord-1: paying -> paid',
      'ord-1: paid -> confirmed',
    ]);
    // Nothing open: another pass sends nothing.
    expect(await desk.workflow.runOnce()).toMatchObject({ open: {}, moved: 0 });
    expect(desk.sandbox.state.countEffects()).toBe(2);
  });

  it('is one payout per reference: a second start moves the same payout on; another body is refused before anything is sent', async () => {
    const desk = makeDesk({ pay: null });
    const first = await desk.workflow.start(request(desk, 'ord-2'));
    const again = await desk.another().start(request(desk, 'ord-2'));
    expect(again).toEqual(first);
    const err = await desk.workflow.start(request(desk, 'ord-2', '11')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PayoutWorkflowError);
    expect(err).toMatchObject({ reason: 'reference_taken', reference: 'ord-2' });
    expect(desk.sandbox.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('refuses bad input by name before anything is written or sent, and rejects rather than throws', async () => {
    const desk = makeDesk();
    const bad = [
      { ...request(desk, 'x'), amount: 10 as unknown as string },
      { ...request(desk, 'x'), amount: '-1' },
      { ...request(desk, 'x'), toAddress: ' ' },
      { ...request(desk, 'x'), toAddress: 'a'.repeat(201) },
      { ...request(desk, ''), member: desk.member },
    ];
    for (const b of bad) {
      const p = desk.workflow.start(b);
      await expect(p).rejects.toMatchObject({ name: 'InvalidArgumentError' });
    }
    expect((await desk.store.list({ limit: 10 })).records).toEqual([]);
    expect(desk.sandbox.requests.length).toBe(0);
  });
});

describe('the debit', () => {
  it('ends rejected on a definite refusal, and nothing moves', async () => {
    const desk = makeDesk();
    const r = await desk.workflow.start(request(desk, 'ord-poor', '5000'));
    expect(r).toMatchObject({ state: 'rejected', outcome: { state: 'rejected', by: 'service', detail: 'insufficient_balance' } });
    expect(desk.sandbox.state.balance(desk.member, 'USDT')).toMatchObject({ available: '1000.000000', withdrawing: '0.000000' });
    await desk.workflow.runOnce();
    expect(desk.payments.size).toBe(0);
  });

  it('stays debit_pending when its outcome is unknown, and is finished with the same key: one debit', async () => {
    const desk = makeDesk();
    desk.sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 504, when: 'after' });
    const r = await desk.workflow.start(request(desk, 'ord-504'));
    expect(r).toMatchObject({ state: 'debit_pending', withdrawalId: null });
    expect(desk.sandbox.state.balance(desk.member, 'USDT').withdrawing).toBe('10.000000');
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-504')).toMatchObject({ state: 'confirmed' });
    const debits = effects(desk.sandbox, 'withdrawal.create');
    expect(debits).toHaveLength(1);
    const sent = desk.sandbox.requests.filter((q) => q.path === '/v1/withdrawals').map((q) => q.headers['x-idempotency-key']);
    expect(sent).toEqual([idempotencyKeyFor('payout', 'ord-504'), idempotencyKeyFor('payout', 'ord-504')]);
  });

  it("goes to a person once the key's 24-hour window (less the margin) has run out, and sends nothing", async () => {
    const desk = makeDesk();
    desk.sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'reset' });
    const r = await desk.workflow.start(request(desk, 'ord-late'));
    expect(r.state).toBe('debit_pending');
    const sentBefore = desk.sandbox.requests.length;
    vi.spyOn(Date, 'now').mockReturnValue(r.createdAt + 23 * 3600_000 + 1);
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-late')).toMatchObject({
      state: 'needs_attention',
      attention: { reason: 'debit_window_passed', from: 'debit_pending' },
    });
    expect(desk.sandbox.requests.length).toBe(sentBefore);
  });
});

describe('the payment', () => {
  it('a definite failure sends fail, and the member gets the funds back', async () => {
    const desk = makeDesk({ pay: () => Promise.resolve({ outcome: 'not_paid', reason: 'never broadcast' }) });
    await desk.workflow.start(request(desk, 'ord-np'));
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-np')).toMatchObject({ state: 'failed', unpaidReason: 'never broadcast', confirmSent: false });
    expect(effects(desk.sandbox, 'withdrawal.fail')).toHaveLength(1);
    expect(effects(desk.sandbox, 'withdrawal.confirm')).toHaveLength(0);
    expect(desk.sandbox.state.balance(desk.member, 'USDT')).toMatchObject({ available: '1000.000000', withdrawing: '0.000000' });
  });

  it('a pay function that throws leaves the payout to a person, never handed out again', async () => {
    let calls = 0;
    const desk = makeDesk({
      pay: () => {
        calls++;
        return Promise.reject(new Error('node unreachable'));
      },
    });
    await desk.workflow.start(request(desk, 'ord-throw'));
    await desk.workflow.runOnce();
    await desk.workflow.runOnce();
    const r = await desk.workflow.get('ord-throw');
    expect(r).toMatchObject({
      state: 'needs_attention',
      attention: { reason: 'payment_unknown', from: 'paying' },
      handOut: { worker: desk.workflow.workerId },
    });
    expect(r?.attention?.detail).toContain('the pay function threw (Error)');
    expect(calls).toBe(1);
    expect(desk.sandbox.state.countEffects('withdrawal.fail') + desk.sandbox.state.countEffects('withdrawal.confirm')).toBe(0);
  });

  it('the lookup hook settles an unknown payment before a person is asked', async () => {
    const desk = makeDesk({
      pay: () => Promise.reject(new Error('timeout')),
      overrides: { lookupPayment: (p) => Promise.resolve({ outcome: 'paid', chainRef: `found-${p.reference}` }) },
    });
    await desk.workflow.start(request(desk, 'ord-look'));
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-look')).toMatchObject({ state: 'confirmed', chainRef: 'found-ord-look' });
  });

  it("a hand-out that outlives its lease (its worker died) goes to a person at the next pass, on the store's clock", async () => {
    const desk = makeDesk({ pay: null, overrides: { leaseMs: 60_000 } });
    await desk.workflow.start(request(desk, 'ord-lease'));
    const handed = await desk.workflow.handOut('ord-lease');
    expect(handed.handOut).toMatchObject({ leaseUntil: 61_000 });
    await expect(desk.workflow.handOut('ord-lease')).rejects.toMatchObject({ reason: 'wrong_state' });
    desk.storeClock = 60_999;
    await desk.another().runOnce();
    expect((await desk.workflow.get('ord-lease'))?.state).toBe('paying');
    desk.storeClock = 61_000;
    await desk.another({ pay: () => Promise.reject(new Error('must not be called')) }).runOnce();
    expect(await desk.workflow.get('ord-lease')).toMatchObject({ state: 'needs_attention', attention: { reason: 'payment_unknown' } });
    // The late report still counts: the payment is recorded and confirmed.
    const late = await desk.workflow.reportPaid('ord-lease', '0xlate');
    expect(late).toMatchObject({ state: 'confirmed', chainRef: '0xlate' });
  });

  it('never fails what may have been paid', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'ord-paid'));
    desk.sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals/*/confirm' }, { kind: 'reset' });
    await desk.workflow.handOut('ord-paid');
    const r = await desk.workflow.reportPaid('ord-paid', '0xabc');
    expect(r).toMatchObject({ state: 'paid', confirmSent: true, settle: { step: 'confirm', attempt: 1, sent: true } });
    await expect(desk.workflow.reportNotPaid('ord-paid', 'oops')).rejects.toMatchObject({ reason: 'may_be_paid' });
    await expect(desk.workflow.cancel('ord-paid', 'oops')).rejects.toMatchObject({ reason: 'wrong_state' });
    expect(desk.sandbox.state.countEffects('withdrawal.fail')).toBe(0);
  });

  it('cancels a payout never handed out: fail is sent', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'ord-cancel'));
    expect(await desk.workflow.cancel('ord-cancel', 'customer withdrew the request')).toMatchObject({ state: 'failed' });
    expect(effects(desk.sandbox, 'withdrawal.fail')).toEqual([
      { id: expect.stringMatching(/^wdr_/), key: settleKey('ord-cancel', 'fail', 1) },
    ]);
  });
});

describe('confirm and fail', () => {
  it('an unknown confirm goes again with the same key, and ends the payout once', async () => {
    const desk = makeDesk();
    desk.sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals/*/confirm' }, { kind: 'status', status: 504, when: 'after' });
    await desk.workflow.start(request(desk, 'ord-c504'));
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-c504')).toMatchObject({ state: 'paid', settle: { attempt: 1, sent: true } });
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-c504')).toMatchObject({ state: 'confirmed' });
    const keys = desk.sandbox.requests.filter((q) => q.path.endsWith('/confirm')).map((q) => q.headers['x-idempotency-key']);
    expect(keys).toEqual([settleKey('ord-c504', 'confirm', 1), settleKey('ord-c504', 'confirm', 1)]);
    expect(desk.sandbox.state.countEffects('withdrawal.confirm')).toBe(1);
  });

  it('merchant_custody_shortfall keeps it paid and waiting, then a new attempt number when the declaration is raised', async () => {
    const desk = makeDesk();
    desk.sandbox.state.setCustodyDeclaration('USDT', '1');
    await desk.workflow.start(request(desk, 'ord-custody'));
    await desk.workflow.runOnce();
    const waiting = await desk.workflow.get('ord-custody');
    expect(waiting).toMatchObject({
      state: 'paid',
      settle: { attempt: 2, sent: false, refusedCode: 'merchant_custody_shortfall', nextAt: 1_000 + 300_000 },
    });
    await desk.workflow.runOnce(); // not due yet: nothing sent
    expect(desk.sandbox.requests.filter((q) => q.path.endsWith('/confirm'))).toHaveLength(1);
    desk.sandbox.state.setCustodyDeclaration('USDT', '100');
    expect(await desk.workflow.custodyRaised('usdt')).toEqual(['ord-custody']);
    expect(await desk.workflow.get('ord-custody')).toMatchObject({ state: 'confirmed' });
    expect(effects(desk.sandbox, 'withdrawal.confirm').map((e) => e.key)).toEqual([settleKey('ord-custody', 'confirm', 2)]);
  });

  it('after its schedule, a confirm refused for custody is tried again on its own', async () => {
    const desk = makeDesk();
    desk.sandbox.state.setCustodyDeclaration('USDT', '1');
    await desk.workflow.start(request(desk, 'ord-sched'));
    await desk.workflow.runOnce();
    desk.sandbox.state.setCustodyDeclaration('USDT', '100');
    desk.storeClock += 300_000;
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('ord-sched')).toMatchObject({ state: 'confirmed' });
  });

  it('a member suspended after the debit: the merchant-level confirm, once, with the same key', async () => {
    const desk = makeDesk({ pay: null });
    await desk.workflow.start(request(desk, 'ord-susp'));
    await desk.workflow.handOut('ord-susp');
    desk.sandbox.state.suspendMember(desk.member);
    expect(await desk.workflow.reportPaid('ord-susp', '0x1')).toMatchObject({
      state: 'confirmed',
      settle: { merchantLevel: true, attempt: 1 },
    });
    const sent = desk.sandbox.requests.filter((q) => q.path.endsWith('/confirm'));
    expect(sent.map((q) => [q.headers['x-on-behalf-of'] ?? null, q.headers['x-idempotency-key']])).toEqual([
      [desk.member, settleKey('ord-susp', 'confirm', 1)],
      [null, settleKey('ord-susp', 'confirm', 1)],
    ]);
  });

  it('an answer that cannot be read as done (state_invalid) goes to a person: ended by someone else looks the same', async () => {
    const desk = makeDesk({ pay: null });
    const r = await desk.workflow.start(request(desk, 'ord-else'));
    await desk.workflow.handOut('ord-else');
    await desk.sandbox.client({ logLevel: 'off' }).withdrawals.confirm(r.withdrawalId!, {}, { idempotencyKey: crypto.randomUUID() });
    const after = await desk.workflow.reportPaid('ord-else', '0x2');
    expect(after).toMatchObject({ state: 'needs_attention', attention: { reason: 'settle_unclear', code: 'state_invalid', from: 'paid' } });
    // A person checked: it was confirmed. Recorded, nothing sent.
    const ended = await desk.workflow.resolve('ord-else', { decision: 'ended', state: 'confirmed', note: 'confirmed by ops, ticket 7' });
    expect(ended).toMatchObject({ state: 'confirmed', outcome: { by: 'person', detail: 'confirmed by ops, ticket 7' } });
    expect(desk.sandbox.state.countEffects('withdrawal.confirm')).toBe(1);
  });
});

describe('decisions of a person', () => {
  it('a payment found on the chain: paid is recorded and confirm sent; not_paid is refused after it', async () => {
    const desk = makeDesk({ pay: () => Promise.reject(new Error('crash')) });
    await desk.workflow.start(request(desk, 'ord-p'));
    await desk.workflow.runOnce();
    await expect(desk.workflow.resolve('ord-p', { decision: 'debited', withdrawalId: 'wdr_x' })).rejects.toMatchObject({
      reason: 'wrong_state',
    });
    expect(await desk.workflow.resolve('ord-p', { decision: 'paid', chainRef: '0xfound' })).toMatchObject({ state: 'confirmed' });
    await expect(desk.workflow.resolve('ord-p', { decision: 'not_paid', reason: 'x' })).rejects.toMatchObject({ reason: 'wrong_state' });
  });

  it('a payment that never went out: fail is sent and the funds return', async () => {
    const desk = makeDesk({ pay: () => Promise.reject(new Error('crash')) });
    await desk.workflow.start(request(desk, 'ord-n'));
    await desk.workflow.runOnce();
    expect(await desk.workflow.resolve('ord-n', { decision: 'not_paid', reason: 'nonce never used' })).toMatchObject({ state: 'failed' });
    expect(desk.sandbox.state.balance(desk.member, 'USDT')).toMatchObject({ available: '1000.000000', withdrawing: '0.000000' });
  });
});

describe('options', () => {
  it('refuses an unknown option by name, and a store that is not one', () => {
    const desk = makeDesk();
    const client = desk.sandbox.client();
    expect(() => desk.another({ leaseMS: 5 } as never)).toThrow(
      'leaseMS: is not an option of new PayoutWorkflow(); did you mean `leaseMs`?',
    );
    expect(() => desk.another({ store: {} as never })).toThrow(/store: must be a PayoutStore/);
    expect(() => desk.another({ client, leaseMs: 0 })).toThrow(/leaseMs/);
  });
});

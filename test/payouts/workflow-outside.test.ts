/**
 * The workflow seen from outside and beside the client's journal: results `client.recover()` got
 * reach the payouts; log lines, metrics and spans; nothing secret in any of them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryJournal, type OpenTelemetryApi } from '../../src/index.js';
import { MemoryPayoutStore } from '../../src/payouts/memory-store.js';
import { PayoutWorkflow } from '../../src/payouts/workflow.js';
import { createSandbox } from '../../src/testing/index.js';
import { makeDesk, request } from './helpers/desk.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function journaled() {
  const sandbox = createSandbox();
  const member = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } }).id;
  const journal = new MemoryJournal();
  const client = sandbox.client({ journal, maxRetries: 0, logLevel: 'off' });
  const store = new MemoryPayoutStore();
  const workflow = new PayoutWorkflow({ client, store, logger: {}, openTelemetry: false });
  return { sandbox, member, journal, client, store, workflow };
}

describe("beside the client's journal", () => {
  it('a debit client.recover() resent reaches its payout (onIntent): debited, and the workflow sends no debit of its own', async () => {
    const { sandbox, member, journal, client, workflow } = journaled();
    sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'reset' });
    const r = await workflow.start({ reference: 'rec-1', member, asset: 'USDT', amount: '7', toAddress: 'T-1' });
    expect(r.state).toBe('debit_pending');
    expect(journal.open().map((i) => i.key)).toEqual([r.debitKey]);
    const report = await client.recover({ minAgeMs: 0, onIntent: (entry) => workflow.applyRecoveredIntent(entry).then(() => undefined) });
    expect(report.intents.map((i) => i.outcome)).toEqual(['resent']);
    const after = await workflow.get('rec-1');
    expect(after).toMatchObject({ state: 'debited', withdrawalId: sandbox.state.effects[0]!.id });
    expect(journal.open()).toEqual([]);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
    expect(sandbox.requests.filter((q) => q.path === '/v1/withdrawals')).toHaveLength(2);
  });

  it('a confirm resent by recovery ends its payout; a report naming no payout changes nothing', async () => {
    const { sandbox, member, client, workflow } = journaled();
    await workflow.start({ reference: 'rec-2', member, asset: 'USDT', amount: '3', toAddress: 'T-2' });
    await workflow.handOut('rec-2');
    sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals/*/confirm' }, { kind: 'reset' });
    expect(await workflow.reportPaid('rec-2', '0xc')).toMatchObject({ state: 'paid', settle: { sent: true } });
    const report = await client.recover({ minAgeMs: 0 });
    expect(await workflow.applyRecovery(report)).toHaveLength(1);
    expect(await workflow.get('rec-2')).toMatchObject({ state: 'confirmed' });
    expect(await workflow.applyRecovery(report)).toEqual([]);
    expect(sandbox.state.countEffects('withdrawal.confirm')).toBe(1);
  });
});

describe('seen from outside', () => {
  function fakeOtel() {
    const spans: { name: string; attributes: unknown; ended: boolean }[] = [];
    const counters: { name: string; value: number; attributes: unknown }[] = [];
    const gauges: { name: string; value: number; attributes: unknown }[] = [];
    const api = {
      trace: {
        getTracer: () => ({
          startSpan: (name: string, options?: { attributes?: unknown }) => {
            const span = { name, attributes: options?.attributes, ended: false };
            spans.push(span);
            return {
              setAttributes: () => undefined,
              addEvent: () => undefined,
              setStatus: () => undefined,
              end: () => (span.ended = true),
            };
          },
        }),
        setSpan: (c: unknown) => c,
      },
      metrics: {
        getMeter: () => ({
          createCounter: (name: string) => ({ add: (value: number, attributes?: unknown) => counters.push({ name, value, attributes }) }),
          createHistogram: () => ({ record: () => undefined }),
          createGauge: (name: string) => ({ record: (value: number, attributes?: unknown) => gauges.push({ name, value, attributes }) }),
        }),
      },
      context: { active: () => ({}) },
      propagation: { inject: () => undefined },
    } as unknown as OpenTelemetryApi;
    return { api, spans, counters, gauges };
  }

  it('counts each state change, records the open payouts by state and the oldest age, and spans each step', async () => {
    const otel = fakeOtel();
    const desk = makeDesk({ overrides: { openTelemetry: otel.api } });
    vi.spyOn(Date, 'now').mockReturnValue(1_800_000_000_000);
    await desk.workflow.start(request(desk, 'obs-1'));
    vi.spyOn(Date, 'now').mockReturnValue(1_800_000_042_000);
    await desk.workflow.runOnce();
    expect(otel.counters.map((c) => [c.name, c.attributes])).toEqual([
      ['merchant_stablecoin.payout.transitions', { from: 'new', to: 'debit_pending' }],
      ['merchant_stablecoin.payout.transitions', { from: 'debit_pending', to: 'debited' }],
      ['merchant_stablecoin.payout.transitions', { from: 'debited', to: 'paying' }],
      ['merchant_stablecoin.payout.transitions', { from: 'paying', to: 'paid' }],
      ['merchant_stablecoin.payout.transitions', { from: 'paid', to: 'confirmed' }],
    ]);
    expect(otel.gauges).toEqual([
      { name: 'merchant_stablecoin.payout.open', value: 1, attributes: { state: 'debited' } },
      { name: 'merchant_stablecoin.payout.oldest_open_age', value: 42, attributes: undefined },
    ]);
    expect(otel.spans.map((s) => [s.name, s.attributes, s.ended])).toEqual([
      ['payout.debit', { reference: 'obs-1' }, true],
      ['payout.pay', { reference: 'obs-1' }, true],
      ['payout.confirm', { reference: 'obs-1' }, true],
    ]);
  });

  it('logs each change (info), a payout for a person (warn) and a failed step (error), with no secret', async () => {
    const lines: { level: string; message: string; fields: unknown }[] = [];
    const logger = Object.fromEntries(
      (['debug', 'info', 'warn', 'error'] as const).map((level) => [
        level,
        (message: string, fields?: unknown) => lines.push({ level, message, fields }),
      ]),
    );
    const desk = makeDesk({ pay: () => Promise.reject(new Error('boom')), overrides: { logger } });
    await desk.workflow.start(request(desk, 'log-1'));
    await desk.workflow.runOnce();
    expect(lines.map((l) => `${l.level} ${l.message}`)).toEqual([
      'info payout "log-1" new -> debit_pending',
      'info payout "log-1" debit_pending -> debited',
      'info payout "log-1" debited -> paying',
      expect.stringMatching(/^warn payout "log-1" paying -> needs_attention: payment_unknown \(the pay function threw \(Error\)/),
    ]);
    const store = desk.store;
    vi.spyOn(store, 'replace').mockRejectedValue(new Error('store down'));
    await desk.workflow.start(request(desk, 'log-2')).catch(() => undefined);
    await desk.workflow.runOnce();
    expect(lines.at(-1)).toMatchObject({
      level: 'error',
      message: expect.stringContaining('payout "log-2": step failed (Error: store down); tried again next pass'),
    });
    const creds = desk.sandbox.credentials;
    const all = JSON.stringify(lines);
    for (const secret of [creds.apiKey, creds.signingKey]) expect(all).not.toContain(secret);
  });

  it('an onStateChange that throws is logged, and the change stays written', async () => {
    const errors: string[] = [];
    const desk = makeDesk({
      overrides: {
        onStateChange: () => {
          throw new Error('ledger down');
        },
        logger: { error: (m: string) => errors.push(m) },
      },
    });
    await desk.workflow.start(request(desk, 'cb-1'));
    await desk.workflow.runOnce();
    expect(await desk.workflow.get('cb-1')).toMatchObject({ state: 'confirmed' });
    expect(errors).toHaveLength(5);
    expect(errors[0]).toBe('payout "cb-1": onStateChange threw (the change is written and stays)');
  });
});

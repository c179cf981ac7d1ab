/**
 * The payout reconciliation against the in-process sandbox: debits made with a real client, their
 * records in a MemoryPayoutStore, and the report read as a merchant reads it. The wait between
 * the two reads goes through an injected clock that records what it was asked and never waits.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../src/client.js';
import type { Clock } from '../../src/core/time/clock.js';
import type { Logger } from '../../src/core/telemetry/logger.js';
import { MemoryPayoutStore } from '../../src/payouts/memory-store.js';
import { formatReconciliation, reconcilePayouts, type ReconcileOptions } from '../../src/payouts/index.js';
import type { PayoutRecord } from '../../src/payouts/record.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { payoutRecord } from './helpers/records.js';

const NOW = 1_765_000_000_000; // the run's wall clock (records' createdAt is wall clock)
const SINCE = NOW - 3_600_000;
const HOUR = 3_600_000;

const clients: MerchantClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

/** A monotonic clock that never waits: it records each sleep asked, runs `during`, then moves on. */
function stepClock(during?: () => Promise<void>): { clock: Clock; asked: number[] } {
  let t = 0;
  const asked: number[] = [];
  const clock: Clock = {
    now: () => t,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      asked.push(ms);
      await during?.();
      t += ms;
    },
  };
  return { clock, asked };
}

interface Desk {
  sb: Sandbox;
  client: MerchantClient;
  store: MemoryPayoutStore;
  /** A member with 1000 USDT available. */
  member(): string;
  /** A debit through the client, recorded in the store as `debited` (or with `overrides`). */
  recorded(member: string, amount: string, overrides?: Partial<PayoutRecord>): Promise<{ reference: string; withdrawalId: string }>;
  /** A debit through the client, recorded nowhere. */
  debit(member: string, amount: string): Promise<string>;
  run(options?: Partial<ReconcileOptions>): ReturnType<typeof reconcilePayouts>;
}

let seq = 0;
function desk(clientFor?: (sb: Sandbox) => MerchantClient): Desk {
  const sb = createSandbox();
  const client = clientFor?.(sb) ?? sb.client({ logLevel: 'off' });
  clients.push(client);
  const store = new MemoryPayoutStore();
  const debit = async (member: string, amount: string): Promise<string> =>
    (await client.member(member).withdrawals.create({ asset: 'USDT', amount, to_address: 'T-recon-destination' })).id;
  return {
    sb,
    client,
    store,
    member: () => sb.state.seedMember({ balances: { USDT: { available: '1000' } } }).id,
    debit,
    async recorded(member, amount, overrides = {}) {
      const withdrawalId = await debit(member, amount);
      const reference = `po-${++seq}`;
      const record = payoutRecord({
        reference,
        member,
        amount,
        state: 'debited',
        withdrawalId,
        debitSends: 1,
        createdAt: NOW - 600_000,
        ...overrides,
      });
      await store.create(record);
      return { reference, withdrawalId };
    },
    run: (options = {}) => reconcilePayouts({ client, store, since: SINCE, now: () => NOW, clock: stepClock().clock, ...options }),
  };
}

const ended = (state: 'confirmed' | 'failed', by: 'service' | 'person' = 'service'): Partial<PayoutRecord> => ({
  state,
  outcome: { state, at: NOW - 300_000, by, detail: by === 'person' ? 'resolved by the desk' : null },
});

const balanceReads = (sb: Sandbox, member?: string): number =>
  sb.requests.filter(
    (r) => r.method === 'GET' && r.path.startsWith('/v1/balances') && (member === undefined || r.headers['x-on-behalf-of'] === member),
  ).length;

describe('reconcilePayouts: a clean ledger and payouts in flight', () => {
  it('reports nothing when every debit is recorded in its state (open, confirmed, failed), and never waits', async () => {
    const d = desk();
    const a = d.member();
    const b = d.member();
    await d.recorded(a, '25.5');
    const done = await d.recorded(a, '10', ended('confirmed'));
    await d.client.member(a).withdrawals.confirm(done.withdrawalId);
    const back = await d.recorded(b, '7.25', ended('failed'));
    await d.client.member(b).withdrawals.fail(back.withdrawalId);
    const { clock, asked } = stepClock();

    const report = await d.run({ clock });

    expect(report.clean).toBe(true);
    expect(report.discrepancies).toEqual([]);
    expect(report.membersNotFound).toEqual([]);
    expect(report.stalePayouts).toEqual([]);
    expect(report.membersRead).toEqual([
      { member: a, source: 'store', reads: 1, assets: ['USDT'] },
      { member: b, source: 'store', reads: 1, assets: ['USDT'] },
    ]);
    expect(asked).toEqual([]);
    expect(balanceReads(d.sb)).toBe(2);
    expect(d.sb.state.balance(a, 'USDT').withdrawing).toBe('25.500000');
  });

  it('reports nothing while payouts are in flight: a debit unanswered (executed or not) and a confirm sent that the sandbox already executed', async () => {
    const d = desk();
    const m = d.member();
    // The debit executed, its answer never reached the store.
    await d.debit(m, '40');
    await d.store.create(
      payoutRecord({
        reference: 'po-flight-debit',
        member: m,
        amount: '40',
        state: 'debit_pending',
        debitSends: 1,
        createdAt: NOW - 60_000,
      }),
    );
    // Recorded, the debit never reached the service.
    await d.store.create(
      payoutRecord({ reference: 'po-flight-unsent', member: m, amount: '5', state: 'debit_pending', createdAt: NOW - 30_000 }),
    );
    // Confirm marked sent, executed by the service, its answer not recorded yet.
    const paid = await d.recorded(m, '15', {
      state: 'paid',
      chainRef: '0xabc',
      confirmSent: true,
      settle: { step: 'confirm', attempt: 1, sent: true, merchantLevel: false, refusedCode: null, nextAt: null },
    });
    await d.client.member(m).withdrawals.confirm(paid.withdrawalId);
    const { clock, asked } = stepClock();

    const report = await d.run({ clock });

    expect(d.sb.state.balance(m, 'USDT').withdrawing).toBe('40.000000'); // inside [0, 60]
    expect(report.discrepancies).toEqual([]);
    expect(report.clean).toBe(true);
    expect(asked).toEqual([]);
  });
});

describe('reconcilePayouts: discrepancies seen at both reads', () => {
  it('finds a debit made with the client outside the workflow: above, by its amount, after a gap asked of the injected clock', async () => {
    const d = desk();
    const m = d.member();
    await d.recorded(m, '25.5');
    await d.debit(m, '12.34');
    const { clock, asked } = stepClock();

    const report = await d.run({ clock });

    expect(asked).toEqual([90_000]);
    expect(balanceReads(d.sb, m)).toBe(2);
    expect(report.discrepancies).toEqual([
      {
        member: m,
        asset: 'USDT',
        direction: 'above',
        withdrawing: '37.840000',
        lower: '25.500000',
        upper: '25.500000',
        difference: '12.340000',
        firstRead: { withdrawing: '37.840000', lower: '25.500000', upper: '25.500000' },
        candidates: [],
      },
    ]);
    expect(report.membersRead).toEqual([{ member: m, source: 'store', reads: 2, assets: ['USDT'] }]);
    expect(report.clean).toBe(false);
  });

  it('finds a payout whose confirm was lost (stored confirmed, withdrawing still holds it), naming it first with its amount', async () => {
    const d = desk();
    const m = d.member();
    const lost = await d.recorded(m, '30', ended('confirmed'));
    // A person ended another payout (its fail did execute): a candidate, without the matching amount.
    const other = await d.recorded(m, '4', ended('failed', 'person'));
    await d.client.member(m).withdrawals.fail(other.withdrawalId);

    const report = await d.run({ gapMs: 5_000 });

    expect(report.discrepancies).toHaveLength(1);
    const [found] = report.discrepancies;
    expect(found).toMatchObject({
      member: m,
      asset: 'USDT',
      direction: 'above',
      withdrawing: '30.000000',
      lower: '0.000000',
      upper: '0.000000',
      difference: '30.000000',
    });
    expect(found?.candidates.map((c) => [c.reference, c.amount, c.amountMatches, c.endedBy])).toEqual([
      [lost.reference, '30', true, 'service'],
      [other.reference, '4', false, 'person'],
    ]);
    expect(found?.candidates[0]).toMatchObject({
      state: 'confirmed',
      withdrawalId: lost.withdrawalId,
      exposure: 'none',
      endedAt: NOW - 300_000,
    });
  });

  it('finds a payout the store holds as debited that the service already confirmed: below, with that payout as candidate', async () => {
    const d = desk();
    const m = d.member();
    await d.recorded(m, '8');
    const gone = await d.recorded(m, '19.5');
    await d.client.member(m).withdrawals.confirm(gone.withdrawalId);

    const report = await d.run();

    expect(report.discrepancies).toHaveLength(1);
    const [found] = report.discrepancies;
    expect(found).toMatchObject({
      direction: 'below',
      withdrawing: '8.000000',
      lower: '27.500000',
      upper: '27.500000',
      difference: '19.500000',
    });
    expect(found?.candidates.map((c) => [c.amount, c.amountMatches, c.exposure])).toEqual([
      ['19.5', true, 'certain'],
      ['8', false, 'certain'],
    ]);
    expect(found?.candidates[0]?.reference).toBe(gone.reference);
  });

  it('does not report a discrepancy fixed between the reads: the store is read again at the second read', async () => {
    const d = desk();
    const m = d.member();
    const id = await d.debit(m, '50');
    // The workflow's answer lands during the gap: the second read sees the payout in the store.
    const { clock, asked } = stepClock(async () => {
      await d.store.create(
        payoutRecord({ reference: 'po-late', member: m, amount: '50', state: 'debited', withdrawalId: id, createdAt: NOW - 1_000 }),
      );
    });

    const report = await d.run({ clock, members: [m] });

    expect(asked).toEqual([90_000]);
    expect(report.discrepancies).toEqual([]);
    expect(report.membersRead).toEqual([{ member: m, source: 'named', reads: 2, assets: ['USDT'] }]);
    expect(report.clean).toBe(true);
  });
});

describe('reconcilePayouts: members not found, stale payouts, the members read', () => {
  it('lists a member answering 404 member_not_found with its open payouts, and a named member nobody knows', async () => {
    const d = desk();
    const m = d.member();
    const open = await d.recorded(m, '11');
    d.sb.state.suspendMember(m);

    const report = await d.run({ members: ['ext-nobody-knows'] });

    expect(report.membersNotFound).toEqual([
      {
        member: m,
        openPayouts: [
          expect.objectContaining({ reference: open.reference, amount: '11', state: 'debited', withdrawalId: open.withdrawalId }),
        ],
      },
      { member: 'ext-nobody-knows', openPayouts: [] },
    ]);
    expect(report.membersRead).toEqual([]);
    expect(report.discrepancies).toEqual([]);
    expect(report.notRead).toMatch(/never read/);
  });

  it('lists a read that failed (a 500) as a read failure, not judged, and goes on with the other members', async () => {
    const d = desk((sb) => sb.client({ logLevel: 'off', maxRetries: 0 }));
    const a = d.member();
    const b = d.member();
    await d.recorded(a, '3');
    await d.recorded(b, '4');
    d.sb.faults.inject({ method: 'GET', path: '/v1/balances' }, { kind: 'status', status: 500, when: 'before' });

    const report = await d.run({ concurrency: 1 });

    expect(report.readFailures).toEqual([
      { member: a, code: 'api_error', status: 500, message: expect.stringMatching(/^ApiError: /) as unknown },
    ]);
    expect(report.membersRead.map((r) => r.member)).toEqual([b]);
    expect(report.discrepancies).toEqual([]);
    expect(report.clean).toBe(false);
    expect(formatReconciliation(report).split('\n')).toContain(`READ FAILED ${a}: 500 api_error (${report.readFailures[0]?.message})`);
  });

  it('lists payouts open longer than staleAfterMs in any non-final state, oldest first, and not the ended ones', async () => {
    const d = desk();
    const m = d.member();
    const oldest = await d.recorded(m, '3', { createdAt: NOW - 30 * HOUR });
    await d.store.create(
      payoutRecord({
        reference: 'po-stuck',
        member: m,
        amount: '2',
        state: 'needs_attention',
        withdrawalId: null,
        createdAt: NOW - 26 * HOUR,
      }),
    );
    await d.recorded(m, '1', { createdAt: NOW - 23 * HOUR });
    const old = await d.recorded(m, '6', { ...ended('confirmed'), createdAt: NOW - 40 * HOUR });
    await d.client.member(m).withdrawals.confirm(old.withdrawalId);

    const report = await d.run({ since: NOW - 48 * HOUR });

    expect(report.stalePayouts.map((p) => [p.reference, p.state, p.ageMs])).toEqual([
      [oldest.reference, 'debited', 30 * HOUR],
      ['po-stuck', 'needs_attention', 26 * HOUR],
    ]);
    expect(report.discrepancies).toEqual([]); // the unanswered-outcome payout widens the bounds only
  });

  it('reads a member with an open payout older than the period, and says in the text what was never read', async () => {
    const d = desk();
    const m = d.member();
    await d.recorded(m, '9', { createdAt: SINCE - 10 * HOUR });
    const named = d.sb.state.seedMember().id; // never received funds: no balance row

    const report = await d.run({ members: [named, m] });

    expect(report.membersRead.map((r) => [r.member, r.source])).toEqual([
      [m, 'store_and_named'],
      [named, 'named'],
    ]);
    const lines = formatReconciliation(report).split('\n');
    expect(lines[0]).toMatch(/0 discrepancies, 0 members not found, 0 stale payouts, 0 read failures, 2 members read$/);
    expect(lines).toContain(`READ ${m} (store and named, 1 read): USDT`);
    expect(lines).toContain(`READ ${named} (named, 1 read): no asset`);
    expect(lines.at(-1)).toMatch(/^NOT READ Only the 2 member\(s\) above were asked for their balances: .*never read/);
  });
});

describe('reconcilePayouts: concurrency, the wait, the log', () => {
  for (const bound of [1, 4]) {
    it(`never has more than ${bound} balance read(s) in flight (counted at the fetch), and reaches the bound`, async () => {
      let inFlight = 0;
      let max = 0;
      let started = 0;
      const held: Array<() => void> = [];
      const total = 10;
      const d = desk((sb) => {
        // Each balance read is held until the bound is reached, or every read started: a pool that
        // exceeded the bound would show it, one that stayed below would never be released early.
        const counting = async (input: string, init: RequestInit): Promise<Response> => {
          if (!input.includes('/v1/balances')) return sb.fetch(input, init);
          inFlight++;
          started++;
          max = Math.max(max, inFlight);
          const gate = new Promise<void>((open) => held.push(open));
          if (inFlight === bound || started === total) for (const open of held.splice(0)) open();
          await gate;
          try {
            return await sb.fetch(input, init);
          } finally {
            inFlight--;
          }
        };
        return new MerchantClient({ baseUrl: sb.baseUrl, ...sb.credentials, transport: 'fetch', fetch: counting, logLevel: 'off' });
      });
      for (let i = 0; i < total; i++) await d.recorded(d.member(), '1');

      const report = await d.run({ concurrency: bound });

      expect(max).toBe(bound);
      expect(started).toBe(total);
      expect(report.membersRead).toHaveLength(total);
      expect(report.clean).toBe(true);
    });
  }

  it('ends the wait between the reads when the signal aborts, rejecting with its reason', async () => {
    const d = desk();
    const m = d.member();
    await d.debit(m, '5');
    await d.store.create(payoutRecord({ reference: 'po-x', member: 'other', amount: '1', createdAt: NOW - 1_000 }));
    const controller = new AbortController();
    const asked: number[] = [];
    const clock: Clock = {
      now: () => 0,
      sleep: (ms, signal) =>
        new Promise((_resolve, reject) => {
          asked.push(ms);
          signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
          controller.abort(new Error('desk closed'));
        }),
    };

    await expect(d.run({ clock, members: [m], signal: controller.signal })).rejects.toThrow('desk closed');
    expect(asked).toEqual([90_000]);
  });

  it('logs a warn line per discrepancy and an info summary, with no credential in them', async () => {
    const d = desk();
    const m = d.member();
    await d.debit(m, '2.5');
    const lines: Array<{ level: string; message: string; fields: unknown }> = [];
    const logger: Logger = {
      info: (message, fields) => lines.push({ level: 'info', message, fields }),
      warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    };

    await d.run({ members: [m], logger });

    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
    expect(lines[0]?.fields).toMatchObject({ member: m, asset: 'USDT', direction: 'above', difference: '2.500000', candidates: 'none' });
    expect(lines[1]?.fields).toMatchObject({ membersRead: 1, secondReads: 1, discrepancies: 1 });
    const text = JSON.stringify(lines);
    for (const secret of [d.sb.credentials.apiKey, d.sb.credentials.signingKey]) expect(text).not.toContain(secret);
  });

  it('rejects a bad option without reading anything', async () => {
    const d = desk();
    await expect(d.run({ concurrency: 0 })).rejects.toThrow(/concurrency/);
    await expect(d.run({ members: [''] })).rejects.toThrow(/members/);
    expect(balanceReads(d.sb)).toBe(0);
  });
});

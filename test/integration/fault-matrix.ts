/**
 * The fault matrix (issue 7, first section; issue 9, "Done when"): every money-moving endpoint
 * the simulator implements × every fault mode × (a one-off fault | a fault that persists).
 *
 * Each cell asserts, from the simulator's counters and request log:
 * - the effect happened at most once, and exactly once when the call reported success;
 * - every attempt carried the same idempotency key and a new nonce (and signature);
 * - the number of attempts is what the spec's retry rules allow (never more: no loop);
 * - the balance invariant: the eight buckets plus what left the member equal what was there
 *   (or, for the merchant prepaid account, what was credited or converted);
 * - after a call that gave up, the merchant's retry with the same key converges on exactly one
 *   effect (a replay when the first run had executed).
 *
 * Expectations are written from the spec here, not read from the SDK's endpoint table, so a
 * table entry that drifted would fail the matrix rather than move it.
 */
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import {
  AcceptedButUnreadableError,
  ApiError,
  CallInterruptedError,
  ConnectionError,
  MalformedResponseError,
  TimeoutError,
  type ApiPromise,
  type CallOptions,
  type MerchantClient,
  type MerchantClientOptions,
  type MerchantSdkError,
  type RequestLimiter,
} from '../../src/index.js';
import type { Fault, FaultMatch } from '../../src/testing/index.js';
import { hangDriver } from '../helpers/time.js';
import { attemptsOn, expectBuckets, expectConserved, expectSameKeyNewNonce, type Mode, type World } from './harness.js';

/** A prepared money-moving call and how to check the money around it. */
interface Prepared {
  /** Exact path of the call (to pick its attempts out of the request log). */
  readonly path: string;
  call(client: MerchantClient, options: CallOptions): ApiPromise<unknown>;
  /** Asserts every balance involved, given how many times the effect executed (0 or 1). */
  money(executed: number): void;
  /** Extra checks of a successful result. */
  result?(data: Record<string, unknown>, replayed: boolean): void;
}

/** One money-moving endpoint of the simulator. */
interface MoneyOp {
  readonly name: string;
  /** `sandbox.state.effects` kind. */
  readonly effect: string;
  readonly match: FaultMatch;
  /** Codes the spec says retrying does not resolve on this endpoint. */
  readonly noRetry: readonly string[];
  prepare(w: World): Promise<Prepared>;
}

const d = (v: Decimal.Value): Decimal => new Decimal(v);

/** The seven money-moving endpoints. Amounts are small and distinct per endpoint. */
const MONEY_OPS: readonly MoneyOp[] = [
  {
    name: 'withdrawal create',
    effect: 'withdrawal.create',
    match: { method: 'POST', path: '/v1/withdrawals' },
    noRetry: [],
    async prepare({ sandbox }) {
      const m = sandbox.state.seedMember({ balances: { USDT: { available: '100', earn: '5' } } });
      return {
        path: '/v1/withdrawals',
        call: (c, o) => c.member(m.external_member_id).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T-matrix' }, o),
        money(n) {
          const row = sandbox.state.balance(m.id, 'USDT');
          expectBuckets(row, { available: d(100).minus(10 * n), earn: 5, withdrawing: 10 * n });
          expectConserved(row, 105);
        },
        result: (data) => expect(data).toMatchObject({ status: 'locked', amount: '10.000000' }),
      };
    },
  },
  {
    name: 'withdrawal confirm',
    effect: 'withdrawal.confirm',
    match: { method: 'POST', path: '/v1/withdrawals/:id/confirm' },
    noRetry: [],
    async prepare({ sandbox, client }) {
      const m = sandbox.state.seedMember({ balances: { USDT: { available: '100', earn: '5' } } });
      const w = await client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T-matrix' });
      return {
        path: `/v1/withdrawals/${w.id}/confirm`,
        call: (c, o) => c.member(m.id).withdrawals.confirm(w.id, {}, o),
        money(n) {
          const row = sandbox.state.balance(m.id, 'USDT');
          expectBuckets(row, { available: 90, earn: 5, withdrawing: 10 - 10 * n });
          // On confirm the amount leaves the member (paid on-chain by the merchant).
          expectConserved(row, 105, 10 * n);
        },
      };
    },
  },
  {
    name: 'withdrawal fail',
    effect: 'withdrawal.fail',
    match: { method: 'POST', path: '/v1/withdrawals/:id/fail' },
    noRetry: [],
    async prepare({ sandbox, client }) {
      const m = sandbox.state.seedMember({ balances: { USDT: { available: '100', earn: '5' } } });
      const w = await client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T-matrix' });
      return {
        path: `/v1/withdrawals/${w.id}/fail`,
        call: (c, o) => c.member(m.id).withdrawals.fail(w.id, {}, o),
        money(n) {
          const row = sandbox.state.balance(m.id, 'USDT');
          expectBuckets(row, { available: 90 + 10 * n, earn: 5, withdrawing: 10 - 10 * n });
          expectConserved(row, 105);
        },
      };
    },
  },
  {
    name: 'sandbox faucet',
    effect: 'faucet.credit',
    match: { method: 'POST', path: '/v1/sandbox/faucet' },
    noRetry: [],
    async prepare({ sandbox }) {
      sandbox.state.setPrepaid('USDT', { available: '500' });
      return {
        path: '/v1/sandbox/faucet',
        call: (c, o) => c.sandbox.faucet({ asset: 'USDT', amount: '250' }, o),
        money(n) {
          const p = sandbox.state.merchant.prepaid['USDT']!;
          expect(d(p.available).toFixed()).toBe(
            d(500)
              .plus(250 * n)
              .toFixed(),
          );
          expect(d(p.locked).toFixed()).toBe('0');
        },
        result(data, replayed) {
          expect(data).toMatchObject({ ok: true, asset: 'USDT', credited: '250.000000' });
          // The same key returns the same credit with `duplicated: true` (spec: Sandbox faucet).
          expect(data['duplicated'] === true).toBe(replayed);
        },
      };
    },
  },
  {
    name: 'merchant conversion',
    effect: 'conversion.execute',
    match: { method: 'POST', path: '/v1/merchant/conversions' },
    noRetry: [],
    async prepare({ sandbox }) {
      sandbox.state.setPrepaid('USDT', { available: '1000' });
      return {
        path: '/v1/merchant/conversions',
        call: (c, o) =>
          c.merchant.conversions.create({ from_asset: 'USDT', to_asset: 'USDC', from_amount: '100', min_to_amount: '99.9' }, o),
        money(n) {
          const p = sandbox.state.merchant.prepaid;
          const usdt = d(p['USDT']!.available);
          const usdc = d(p['USDC']?.available ?? 0);
          expect(usdt.toFixed()).toBe(
            d(1000)
              .minus(100 * n)
              .toFixed(),
          );
          expect(usdc.toFixed()).toBe(d('99.9').mul(n).toFixed());
          // What left USDT reached USDC, less the 0.1 fee (sandbox price list).
          expect(usdt.plus(usdc).plus(d('0.1').mul(n)).toFixed()).toBe('1000');
        },
        result(data) {
          expect(data).toMatchObject({ from_amount: '100.000000', to_amount: '99.900000', fee_asset: 'USDC', fee_amount: '0.100000' });
          // `duplicated` is only the funds-layer hit after 24 hours, never a replay within them.
          expect(data['duplicated']).toBeUndefined();
        },
      };
    },
  },
  {
    name: 'remittance cancel',
    effect: 'remittance.cancel',
    match: { method: 'POST', path: '/v1/remittances/:id/cancel' },
    // Spec: an order outside needs_reconfirm surfaces as 500 api_error, "which retrying does not resolve".
    noRetry: ['api_error'],
    async prepare({ sandbox }) {
      const m = sandbox.state.seedMember({ balances: { USDT: { available: '10' } } });
      const r = sandbox.state.seedRemittance({ member: m.id, amount: '100', extra_holds: ['2.5'] });
      return {
        path: `/v1/remittances/${r.id}/cancel`,
        call: (c, o) => c.member(m.id).remittances.cancel(r.id, o),
        money(n) {
          const row = sandbox.state.balance(m.id, 'USDT');
          expectBuckets(row, { available: d(10).plus(d('102.5').mul(n)), locked: d('102.5').mul(1 - n) });
          expectConserved(row, '112.5');
          expect(sandbox.state.remittance(r.id)?.status).toBe(n === 1 ? 'canceled' : 'needs_reconfirm');
        },
        result: (data) => expect(data).toEqual({ id: r.id, status: 'canceled' }),
      };
    },
  },
  {
    name: 'card top-up',
    effect: 'card.topup',
    match: { method: 'POST', path: '/v1/cards/:id/topups' },
    noRetry: [],
    async prepare({ sandbox }) {
      const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
      const card = sandbox.state.seedCard({ member: m.id, form: 'virtual' });
      return {
        path: `/v1/cards/${card.id}/topups`,
        call: (c, o) => c.member(m.id).cards.topUp(card.id, { asset: 'USDT', amount: '25' }, o),
        money(n) {
          const row = sandbox.state.balance(m.id, 'USDT');
          expectBuckets(row, { available: 100 - 25 * n, card: 25 * n });
          expectConserved(row, 100);
          expect(sandbox.state.card(card.id)?.balance).toBe(n === 1 ? '25.00' : '0.00');
        },
        result: (data) => expect(String(data['id'])).toMatch(/^ctp_/),
      };
    },
  },
];

/**
 * The client's timeout in the "client timeout" cells. It runs on fake time: the simulator holds
 * the attempt (a `hang` fault) and the test moves time by this much once the attempt has
 * arrived, so the timeout fires at that point whatever the machine's speed. A second, so that
 * the call's deadline (three of them) leaves room for the retry after 409 in progress (150 to
 * 600 ms of backoff); on fake time it costs nothing.
 */
const CLIENT_TIMEOUT_MS = 1000;

/** One fault mode. */
interface FaultMode {
  readonly name: string;
  readonly fault: Fault;
  /** The error code the SDK classifies, when the fault is an error envelope. */
  readonly code?: string;
  /** The catalogue code whose retry rule applies (an unknown code is treated as `api_error`). */
  readonly treatedAs?: string;
  /** The faulted attempt executed the request (an `after` fault, or a delay the client gave up on). */
  readonly executes: boolean;
  /** Attempts when the fault persists: 1 + maxRetries (2), but an unknown code is retried once only. */
  readonly persistentAttempts: number;
  /** Asserts the error the SDK raised when it gave up. */
  readonly expectError: (err: unknown) => void;
  /** Client settings for this fault. */
  readonly client?: Partial<MerchantClientOptions>;
}

const apiErrorOf = (code: string, status: number) => (err: unknown) => {
  expect(err).toBeInstanceOf(ApiError);
  expect({ code: (err as ApiError).code, status: (err as ApiError).status }).toEqual({ code, status });
};

function statusFault(status: 500 | 502 | 504, when: 'before' | 'after'): FaultMode {
  const code = status === 500 ? 'api_error' : status === 502 ? 'upstream_error' : 'upstream_timeout';
  return {
    name: `${status} ${when}`,
    fault: { kind: 'status', status, when },
    code,
    executes: when === 'after',
    persistentAttempts: 3,
    expectError: apiErrorOf(code, status),
  };
}

/** Every fault mode of the kit that applies to a money-moving call. */
const FAULT_MODES: readonly FaultMode[] = [
  statusFault(500, 'before'),
  statusFault(500, 'after'),
  statusFault(502, 'before'),
  statusFault(502, 'after'),
  statusFault(504, 'before'),
  statusFault(504, 'after'),
  {
    name: '409 in_progress',
    fault: { kind: 'in_progress' },
    code: 'idempotency_in_progress',
    executes: false,
    persistentAttempts: 3,
    expectError: apiErrorOf('idempotency_in_progress', 409),
  },
  {
    name: '429 flat',
    fault: { kind: 'rate_limited', retryAfter: 0, shape: 'flat' },
    code: 'rate_limited',
    executes: false,
    persistentAttempts: 3,
    expectError: apiErrorOf('rate_limited', 429),
  },
  {
    name: '429 wrapped',
    fault: { kind: 'rate_limited', retryAfter: 0, shape: 'wrapped' },
    code: 'rate_limited',
    executes: false,
    persistentAttempts: 3,
    expectError: apiErrorOf('rate_limited', 429),
  },
  {
    name: 'reset connection',
    fault: { kind: 'reset' },
    executes: false,
    persistentAttempts: 3,
    expectError: (err) => {
      expect(err).toBeInstanceOf(ConnectionError);
      expect(err).not.toBeInstanceOf(TimeoutError);
    },
  },
  {
    name: 'client timeout',
    fault: { kind: 'hang' },
    executes: true,
    persistentAttempts: 3,
    expectError: (err) => expect(err).toBeInstanceOf(TimeoutError),
    // The simulator holds the attempt unanswered and the client times out. Its retry meets 409
    // in_progress (the held first run has the key); the test then releases the first run, which
    // executes, and the third attempt gets the stored result. Persisting, every attempt is held.
    client: { timeoutMs: CLIENT_TIMEOUT_MS, backoff: { baseDelayMs: 1, inProgressDelayMs: 150, maxDelayMs: 1000 } },
  },
  {
    name: 'HTML 502',
    fault: { kind: 'html', status: 502 },
    executes: false,
    persistentAttempts: 3,
    expectError: (err) => {
      expect(err).toBeInstanceOf(MalformedResponseError);
      expect((err as MalformedResponseError).status).toBe(502);
    },
  },
  {
    name: 'unknown code',
    fault: { kind: 'unknown_code' },
    treatedAs: 'api_error',
    executes: false,
    // Spec: an unknown code is treated as api_error: retry once with the same key, then report.
    persistentAttempts: 2,
    expectError: apiErrorOf('brand_new_code', 500),
  },
];

/** How many times each fault is injected: a one-off, and one that outlasts the retries. */
const FAULT_TIMES = [1, Infinity] as const;

/** What a cell expects. */
interface Expectation {
  readonly succeeds: boolean;
  /** Attempts on the wire, as an inclusive range (always exact here: nothing depends on timing). */
  readonly attempts: readonly [number, number];
  /** Effects right after the call. */
  readonly effects: number;
  /** Faults the simulator injects in this cell. */
  readonly injections: number;
}

function expectationOf(op: MoneyOp, f: FaultMode, times: number): Expectation {
  const asCode = f.treatedAs ?? f.code;
  const notRetried = asCode !== undefined && op.noRetry.includes(asCode);
  if (notRetried) return { succeeds: false, attempts: [1, 1], effects: f.executes ? 1 : 0, injections: 1 };
  if (times === 1) {
    // A timed-out first attempt is followed by 409 in_progress (the held run has the key), then,
    // once the test has released that run, by the replay: three attempts.
    const attempts: [number, number] = f.fault.kind === 'hang' ? [3, 3] : [2, 2];
    return { succeeds: true, attempts, effects: 1, injections: 1 };
  }
  return {
    succeeds: false,
    attempts: [f.persistentAttempts, f.persistentAttempts],
    effects: f.executes ? 1 : 0,
    injections: f.persistentAttempts,
  };
}

/** Cells of the matrix and the faults they inject, for the closing count. */
function matrixSize(): { cells: number; injections: number } {
  let cells = 0;
  let injections = 0;
  for (const op of MONEY_OPS)
    for (const f of FAULT_MODES)
      for (const t of FAULT_TIMES) {
        cells++;
        injections += expectationOf(op, f, t).injections;
      }
  return { cells, injections };
}

/** Registers the whole matrix for one mode. */
export function describeFaultMatrix(mode: Mode): void {
  const ran = { cells: 0, injections: 0, attempts: 0, invariants: 0 };
  const expected = matrixSize();

  describe.each(MONEY_OPS.map((op) => [op.name, op] as const))(`[${mode.name}] fault matrix: %s`, (_name, op) => {
    const rows = FAULT_MODES.flatMap((f) => FAULT_TIMES.map((t) => [f.name, t === 1 ? 'once' : 'persisting', f, t] as const));
    it.each(rows)('%s, %s', async (_f, _t, f, times) => {
      const want = expectationOf(op, f, times);
      // The "client timeout" cells run on fake time, driven by events (see hangDriver).
      const hang = f.fault.kind === 'hang' ? hangDriver(CLIENT_TIMEOUT_MS) : undefined;
      const w = await mode.open({ client: hang ? { ...f.client, logger: hang.logger } : f.client });
      try {
        const { sandbox, client } = w;
        const p = await op.prepare(w);
        p.money(0);
        ran.invariants++;
        sandbox.resetRequests();
        const effectsBefore = sandbox.state.countEffects(op.effect);
        expect(effectsBefore).toBe(0);

        const injected = sandbox.faults.inject(op.match, f.fault, { times });
        const key = randomUUID();
        let result: { data: Record<string, unknown>; replayed: boolean; attempts: number } | undefined;
        let error: unknown;
        hang?.start(injected);
        try {
          const r = await p.call(client, { idempotencyKey: key }).withResponse();
          result = { data: r.data as Record<string, unknown>, replayed: r.response.replayed, attempts: r.response.attempts };
        } catch (err) {
          error = err;
        } finally {
          // The simulator finishes what the client gave up on: every held attempt is released
          // and answered before anything is counted, so that a second execution would be seen.
          await hang?.stop();
        }
        injected.remove();
        ran.injections += injected.hits;
        expect(injected.hits).toBe(want.injections);

        // Wire: the attempts, one key, fresh nonces.
        const attempts = attemptsOn(sandbox, 'POST', p.path);
        ran.attempts += attempts.length;
        expect(attempts.length).toBeGreaterThanOrEqual(want.attempts[0]);
        expect(attempts.length).toBeLessThanOrEqual(want.attempts[1]);
        expectSameKeyNewNonce(attempts, key);

        // Outcome and effects: at most once, exactly once on success.
        const effects = sandbox.state.effects.filter((e) => e.kind === op.effect);
        expect(effects.length).toBe(want.effects);
        for (const e of effects) expect(e.idempotencyKey).toBe(key);
        if (want.succeeds) {
          expect(error).toBeUndefined();
          expect(result!.attempts).toBe(attempts.length);
          // Success after an executed first run is the stored result, replayed.
          expect(result!.replayed).toBe(f.executes);
          p.result?.(result!.data, result!.replayed);
        } else {
          expect(result).toBeUndefined();
          f.expectError(error);
          expect((error as { idempotencyKey?: string }).idempotencyKey).toBe(key);
          const reported = (error as { attempts?: number }).attempts;
          if (reported !== undefined) expect(reported).toBe(attempts.length);
        }
        p.money(effects.length);
        ran.invariants++;

        if (!want.succeeds) {
          // The merchant retries later with the same key: exactly one effect in the end.
          const again = await p.call(client, { idempotencyKey: key }).withResponse();
          expect(again.response.replayed).toBe(want.effects === 1);
          p.result?.(again.data as Record<string, unknown>, again.response.replayed);
          expect(sandbox.state.countEffects(op.effect)).toBe(1);
          const all = attemptsOn(sandbox, 'POST', p.path);
          ran.attempts += all.length - attempts.length;
          expectSameKeyNewNonce(all, key);
          p.money(1);
          ran.invariants++;
        }
        ran.cells++;
      } finally {
        await hang?.stop();
        await w.close();
      }
    });
  });

  describeFailsAfterMaybeExecuted(mode);

  // Totals stay discoverable without printing: the test names carry them, and they must add up.
  describe(`[${mode.name}] fault matrix totals`, () => {
    it(`ran ${expected.cells} cells (${MONEY_OPS.length} endpoints × ${FAULT_MODES.length} faults × ${FAULT_TIMES.length}) and injected ${expected.injections} faults`, () => {
      expect(ran.cells).toBe(expected.cells);
      expect(ran.injections).toBe(expected.injections);
      expect(ran.invariants).toBeGreaterThanOrEqual(2 * expected.cells);
      expect(ran.attempts).toBeGreaterThanOrEqual(expected.injections);
    });
  });
}

/**
 * The column "fails after it may have executed" (issue 14): the first attempt executes and is
 * answered 504, or executes and is answered a body the client cannot read; then a step of the
 * client fails instead of the retry. The caller must still hold the call's key and state, and the
 * merchant's retry with that key must converge on the one effect (a replay).
 */
interface AfterStep {
  readonly name: string;
  /** The fault on the money-moving endpoint (one hit). */
  readonly fault: Fault;
  /** Client settings of the cell (a limiter that can be armed). */
  client?(arm: { armed: boolean }): Partial<MerchantClientOptions>;
  /** Runs right after the endpoint's fault hit, before the client can send anything else. */
  afterHit?(w: World, arm: { armed: boolean }): { remove(): void } | undefined;
  /** Attempts of the endpoint on the wire. */
  readonly attempts: number;
  readonly expectError: (err: unknown) => void;
}

const AFTER_STEPS: readonly AfterStep[] = [
  {
    name: 'token renewal fails (502 on every exchange attempt)',
    fault: { kind: 'status', status: 504, when: 'after' },
    // The token dies with the first attempt: the retry meets 401 invalid_token, the renewal
    // that follows meets 502s until it gives up.
    afterHit: ({ sandbox }) => {
      sandbox.revokeTokens();
      return sandbox.faults.inject(
        { method: 'POST', path: '/v1/connect/token' },
        { kind: 'status', status: 502, when: 'before' },
        { times: Infinity },
      );
    },
    attempts: 2,
    expectError: (err) => {
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(502);
    },
  },
  {
    name: 'the limiter rejects the retry',
    fault: { kind: 'status', status: 504, when: 'after' },
    client: (arm) => {
      const limiter: RequestLimiter = {
        acquire: () => {
          if (!arm.armed) return Promise.resolve();
          arm.armed = false;
          return Promise.reject(new Error('limiter store unreachable'));
        },
      };
      return { limiter };
    },
    afterHit: (_w, arm) => {
      arm.armed = true;
      return undefined;
    },
    attempts: 1,
    expectError: (err) => {
      expect(err).toBeInstanceOf(CallInterruptedError);
      expect(String((err as Error).cause)).toContain('limiter store unreachable');
    },
  },
  {
    // Not JSON at all: endpoints whose shape the spec does not show accept any JSON value (an
    // empty body or `null` included), so only text that is no JSON is unreadable on every one.
    name: 'the 2xx answer cannot be read (not JSON)',
    fault: { kind: 'garble', body: '<html>upstream garbled the answer</html>' },
    attempts: 1,
    expectError: (err) => {
      expect(err).toBeInstanceOf(AcceptedButUnreadableError);
      expect(String((err as AcceptedButUnreadableError).status)).toMatch(/^2\d\d$/);
    },
  },
];

function describeFailsAfterMaybeExecuted(mode: Mode): void {
  describe.each(MONEY_OPS.map((op) => [op.name, op] as const))(`[${mode.name}] fails after it may have executed: %s`, (_name, op) => {
    it.each(AFTER_STEPS.map((s) => [s.name, s] as const))('%s', async (_s, step) => {
      const arm = { armed: false };
      const w = await mode.open({ client: step.client?.(arm) });
      let extra: { remove(): void } | undefined;
      try {
        const { sandbox, client } = w;
        const p = await op.prepare(w);
        sandbox.resetRequests();
        const injected = sandbox.faults.inject(op.match, step.fault, { times: 1 });
        // The hit resolves in a microtask of the simulator's handling: before its answer is
        // read and before any backoff timer, so the next step is armed in time at any speed.
        const armed = injected.waitForHits(1).then(() => {
          extra = step.afterHit?.(w, arm);
        });
        const key = randomUUID();
        const err = await p.call(client, { idempotencyKey: key }).then(
          () => undefined,
          (e: unknown) => e,
        );
        await armed;
        injected.remove();
        extra?.remove();

        step.expectError(err);
        const failure = err as MerchantSdkError;
        expect(failure.idempotencyKey).toBe(key);
        expect(failure.call).toMatchObject({ idempotencyKey: key });
        expect(failure.call?.sent).toMatch(/^(maybe|yes)$/);
        const attempts = attemptsOn(sandbox, 'POST', p.path);
        expect(attempts.length).toBe(step.attempts);
        expectSameKeyNewNonce(attempts, key);
        expect(sandbox.state.countEffects(op.effect)).toBe(1);
        p.money(1);

        // The recipe of the error: call again with the same key. One effect, replayed.
        const again = await p.call(client, { idempotencyKey: key }).withResponse();
        expect(again.response.replayed).toBe(true);
        p.result?.(again.data as Record<string, unknown>, true);
        expect(sandbox.state.countEffects(op.effect)).toBe(1);
        expectSameKeyNewNonce(attemptsOn(sandbox, 'POST', p.path), key);
        p.money(1);
      } finally {
        extra?.remove();
        await w.close();
      }
    });
  });
}

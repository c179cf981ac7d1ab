/**
 * The journal in the call path (src/core/journal/hook.ts), at its edges: the record as one of the
 * call's waits (its deadline on fake time, never a race), a record that fails or is refused and the
 * settle that must clear it, a failed call whose intent cannot be settled, and what an intent and
 * its log lines hold. Over the loopback ledger; fake timers only where nothing reaches a socket.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  AcceptedButUnreadableError,
  ApiError,
  CallInterruptedError,
  MemoryJournal,
  OutcomeUnknownError,
  TimeoutError,
  type IntentJournal,
  type JournalIntent,
  type LogFields,
  type MerchantClientOptions,
  type MerchantSdkError,
} from '../../src/index.js';
import { JournalHook } from '../../src/core/journal/hook.js';
import type { PreparedCall } from '../../src/core/call/call.js';
import { WITHDRAWALS_CONFIRM } from '../../src/facts/endpoints.js';
import { failure, wireClient } from '../helpers/client.js';
import { apiError, WITHDRAWAL } from '../helpers/wire-server.js';
import { ROUTES, startLedger, type Ledger } from './helpers/ledger.js';

const MEMBER = 'ext-member-42';
const NOW = Date.parse('2026-11-27T10:00:00.000Z');

const logs: Array<{ level: string; message: string; fields: LogFields | undefined }> = [];
const logger = {
  info: (message: string, fields?: LogFields) => logs.push({ level: 'info', message, fields }),
  warn: (message: string, fields?: LogFields) => logs.push({ level: 'warn', message, fields }),
};

let ledger: Ledger;
beforeEach(async () => {
  ledger = await startLedger();
  logs.length = 0;
});
afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  await ledger.close();
});

function client(journal: IntentJournal, options: Partial<MerchantClientOptions> = {}) {
  return wireClient(ledger.url, { journal, logger, ...options });
}

/** A promise and its resolvers, to hold a journal's answer until the test releases it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A journal whose `record` and `settle` do as told, and which remembers what it was asked. */
function scripted(script: { record: (i: JournalIntent) => Promise<void>; settle: (key: string) => Promise<void> }) {
  const recorded: JournalIntent[] = [];
  const settled: string[] = [];
  const recording = deferred();
  const journal: IntentJournal = {
    record: (i) => {
      recorded.push(i);
      recording.resolve();
      return script.record(i);
    },
    settle: (_, key) => (settled.push(key), script.settle(key)),
    claim: () => Promise.resolve([]),
  };
  return {
    journal,
    recorded,
    settled,
    /** Resolves once `record` was called. */
    recording: () => recording.promise,
  };
}

/** Whether `promise` has settled, without waiting for it. */
function watch(promise: Promise<unknown>): { done: () => boolean; error: Promise<unknown> } {
  let done = false;
  const error = promise.then(
    () => ((done = true), undefined),
    (e: unknown) => ((done = true), e),
  );
  return { done: () => done, error };
}

/** An OutcomeUnknownError's message: what happened, then what the caller does (the same key, never a new one). */
function expectUnknown(message: string, what: string): void {
  const head = `${what} Treat the outcome as unknown: call again with the same idempotencyKey`;
  expect(message.slice(0, head.length)).toBe(head);
  expect(message).toMatch(/; never make it again with a new key\.$/);
}

/** The fields every journal log line carries for `intent`. */
function fieldsOf(intent: JournalIntent) {
  return {
    endpoint: intent.endpoint,
    method: intent.method,
    idempotencyKey: intent.key,
    recordedAt: new Date(intent.createdAt).toISOString(),
  };
}

describe("the record's deadline: timeoutMs × (maxRetries + 1) from the call's start, on fake time", () => {
  it('a record that hangs fails the call at the deadline exactly, not a millisecond before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const j = scripted({ record: () => new Promise<void>(() => undefined), settle: () => Promise.resolve() });
    const call = watch(client(j.journal, { timeoutMs: 200, maxRetries: 1 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    await j.recording();
    await vi.advanceTimersByTimeAsync(399);
    expect(call.done()).toBe(false);
    expect(j.settled).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    const err = (await call.error) as MerchantSdkError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(
      "The call's deadline (400 ms: timeoutMs 200 × 2 attempts) passed while the intent journal recorded it, so nothing was sent (POST /v1/withdrawals).",
    );
    expect(err.call).toEqual({ idempotencyKey: j.recorded[0]!.key, sent: 'no', status: undefined, requestId: undefined, attempts: 0 });
    expect(j.settled).toEqual([j.recorded[0]!.key]);
    expect(ledger.server.requests).toEqual([]);
    expect(logs).toEqual([
      { level: 'warn', message: 'journal: the intent could not be recorded; the call was not sent', fields: fieldsOf(j.recorded[0]!) },
    ]);
  });

  it('with no retries the deadline is one timeoutMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const j = scripted({ record: () => new Promise<void>(() => undefined), settle: () => Promise.resolve() });
    const call = watch(client(j.journal, { timeoutMs: 300, maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    await j.recording();
    await vi.advanceTimersByTimeAsync(299);
    expect(call.done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(((await call.error) as Error).message).toMatch(/^The call's deadline \(300 ms: timeoutMs 300 × 1 attempt\) passed/);
  });

  it('the deadline passed and the clearing settle hangs: the record may have landed, the outcome is unknown', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const j = scripted({ record: () => new Promise<void>(() => undefined), settle: () => new Promise<void>(() => undefined) });
    const call = watch(client(j.journal, { timeoutMs: 200, maxRetries: 1 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    await j.recording();
    await vi.advanceTimersByTimeAsync(400);
    // The settle was asked for; it is given no more than the turn of a zero timer.
    expect(j.settled).toHaveLength(1);
    expect(call.done()).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    await vi.runOnlyPendingTimersAsync();
    const err = (await call.error) as MerchantSdkError;
    const key = j.recorded[0]!.key;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err.idempotencyKey).toBe(key);
    expect(err.call).toEqual({ idempotencyKey: key, sent: 'maybe', status: undefined, requestId: undefined, attempts: 0 });
    expect(err.cause).toBeInstanceOf(TimeoutError);
    expect(j.settled).toEqual([key]);
    expect(ledger.server.requests).toEqual([]);
  });

  it('a failed record whose settle hangs waits for that settle until the deadline, then says the outcome is unknown', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const j = scripted({ record: () => Promise.reject(new Error('disk full')), settle: () => new Promise<void>(() => undefined) });
    const call = watch(client(j.journal, { timeoutMs: 200, maxRetries: 1 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    await j.recording();
    await vi.advanceTimersByTimeAsync(399);
    expect(call.done()).toBe(false);
    expect(j.settled).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    const err = (await call.error) as MerchantSdkError;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err.call?.sent).toBe('maybe');
    expect(err.cause).toBeInstanceOf(CallInterruptedError);
  });

  it('a failed record whose settle answers later, within the deadline: cleared, not sent', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const settle = deferred();
    const j = scripted({ record: () => Promise.reject(new Error('disk full')), settle: () => settle.promise });
    const call = watch(client(j.journal, { timeoutMs: 200, maxRetries: 1 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    await j.recording();
    await vi.advanceTimersByTimeAsync(100);
    expect(call.done()).toBe(false);
    settle.resolve();
    const err = (await call.error) as MerchantSdkError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.call?.sent).toBe('no');
  });

  it('leaves no timer behind once the record has failed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const refusal = Object.assign(new Error('read-only replica'), { executed: false });
    const j = scripted({ record: () => Promise.reject(refusal), settle: () => Promise.resolve() });
    const err = await failure(client(j.journal, { timeoutMs: 200, maxRetries: 1 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("the record's deadline counts from the call's start (JournalHook, on fake time)", () => {
  /** A prepared withdrawal confirm, as the pipeline hands it to the hook. */
  function prepared(startedAt?: number): PreparedCall {
    return {
      name: 'member.withdrawals.confirm',
      route: WITHDRAWALS_CONFIRM.path,
      method: 'POST',
      path: '/v1/withdrawals/wdr_1/confirm',
      body: new TextEncoder().encode('{}'),
      signed: true,
      idempotencyKey: '0a9f0a9f-0a9f-4a9f-8a9f-0a9f0a9f0a9f',
      member: undefined,
      bucket: 'orders',
      subKey: undefined,
      extraHeaders: undefined,
      options: undefined,
      secrets: [],
      ...(startedAt === undefined ? {} : { startedAt }),
    };
  }

  it.each([
    ['a call made 150 ms before its record: 50 ms left of one 200 ms attempt', -150, 49],
    ['a call with no start time: the whole 200 ms from the record', undefined, 199],
  ])('%s', async (_, startOffset, quiet) => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const recording = deferred();
    const settled: string[] = [];
    const journal: IntentJournal = {
      record: () => (recording.resolve(), new Promise<void>(() => undefined)),
      settle: (_, key) => (settled.push(key), Promise.resolve()),
      claim: () => Promise.resolve([]),
    };
    const hook = new JournalHook(journal, 'scope-1', undefined);
    const sent: string[] = [];
    const call = prepared(startOffset === undefined ? undefined : performance.now() + startOffset);
    const tracked = watch(
      hook.track(call, WITHDRAWALS_CONFIRM, { timeoutMs: 200, maxRetries: 0 }, () => (sent.push('sent'), Promise.resolve())),
    );
    await recording.promise;
    await vi.advanceTimersByTimeAsync(quiet);
    expect(tracked.done()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await tracked.error).toBeInstanceOf(TimeoutError);
    expect(sent).toEqual([]);
    expect(settled).toEqual([call.idempotencyKey]);
  });
});

describe('a record that fails', () => {
  it('refused by the journal (executed: false): nothing was stored, so no settle, and "not sent"', async () => {
    const refusal = Object.assign(new Error('read-only replica'), { executed: false });
    const j = scripted({ record: () => Promise.reject(refusal), settle: () => Promise.resolve() });
    const err = (await failure(client(j.journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    const key = j.recorded[0]!.key;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.message).toBe('The intent journal could not record the call, so nothing was sent.');
    expect(err.cause).toBe(refusal);
    expect(err.call).toEqual({ idempotencyKey: key, sent: 'no', status: undefined, requestId: undefined, attempts: 0 });
    expect(j.settled).toEqual([]);
    expect(ledger.server.requests).toEqual([]);
    expect(logs).toEqual([
      { level: 'warn', message: 'journal: the intent could not be recorded; the call was not sent', fields: fieldsOf(j.recorded[0]!) },
    ]);
  });

  it('an error that may have been stored (executed true, or not said) is cleared by a settle first', async () => {
    for (const error of [new Error('timeout'), Object.assign(new Error('lost reply'), { executed: true }), null]) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a journal may reject with anything, null included
      const j = scripted({ record: () => Promise.reject(error), settle: () => Promise.resolve() });
      const err = (await failure(client(j.journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
      expect(err).toBeInstanceOf(CallInterruptedError);
      expect(err.call?.sent).toBe('no');
      expect(j.settled).toEqual([j.recorded[0]!.key]);
    }
  });

  it("an abort whose reason says executed: false is the caller's, not the journal's refusal: the record is still cleared", async () => {
    const j = scripted({ record: () => new Promise<void>(() => undefined), settle: () => Promise.resolve() });
    const stop = new AbortController();
    const reason = Object.assign(new Error('shutting down'), { executed: false });
    const call = watch(client(j.journal).member(MEMBER).withdrawals.create(WITHDRAWAL, { signal: stop.signal }));
    await j.recording();
    stop.abort(reason);
    const err = (await call.error) as MerchantSdkError;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.cause).toBe(reason);
    expect(err.call).toEqual({ idempotencyKey: j.recorded[0]!.key, sent: 'no', status: undefined, requestId: undefined, attempts: 0 });
    expect(j.settled).toEqual([j.recorded[0]!.key]);
    expect(ledger.server.requests).toEqual([]);
  });

  it('an abort before the call: the record is not waited for', async () => {
    const j = scripted({ record: () => new Promise<void>(() => undefined), settle: () => Promise.resolve() });
    const reason = new Error('gone');
    const err = (await failure(
      client(j.journal)
        .member(MEMBER)
        .withdrawals.create(WITHDRAWAL, { signal: AbortSignal.abort(reason) }),
    )) as MerchantSdkError;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.cause).toBe(reason);
    expect(err.call?.sent).toBe('no');
  });

  it('neither recorded nor cleared: the outcome is unknown (a later recover() may send it), and a line says why', async () => {
    const j = scripted({ record: () => Promise.reject(new Error('disk full')), settle: () => Promise.reject(new Error('disk full')) });
    const err = (await failure(client(j.journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    const key = j.recorded[0]!.key;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expectUnknown(
      err.message,
      'The intent journal could not record the call, nor confirm that it holds no record of it (POST /v1/withdrawals): nothing was sent by this call, but a later recover() may send it with its idempotency key.',
    );
    expect(err.idempotencyKey).toBe(key);
    expect(err.call).toEqual({ idempotencyKey: key, sent: 'maybe', status: undefined, requestId: undefined, attempts: 0 });
    expect(err.cause).toBeInstanceOf(CallInterruptedError);
    expect(((err.cause as Error).cause as Error).message).toBe('disk full');
    expect(j.settled).toEqual([key]);
    expect(ledger.server.requests).toEqual([]);
    expect(logs).toEqual([
      {
        level: 'warn',
        message:
          'journal: the intent could not be recorded, and may have been written all the same (it could not be cleared); the call was not sent by this process, but a later recover() may send it with its key: the outcome is unknown',
        fields: fieldsOf(j.recorded[0]!),
      },
    ]);
  });
});

describe('a call whose intent cannot be settled', () => {
  /** A journal that records but cannot settle. */
  function stuck() {
    const memory = new MemoryJournal();
    const journal: IntentJournal = {
      record: (i) => memory.record(i),
      settle: () => Promise.reject(new Error('connection lost')),
      claim: (r) => memory.claim(r),
    };
    return { memory, journal };
  }

  it('succeeded: the caller gets the order, the intent stays open, and a line says a recover() replays it', async () => {
    const { memory, journal } = stuck();
    const order = await client(journal).member(MEMBER).withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
    const [intent] = memory.open();
    expect(logs).toEqual([
      {
        level: 'warn',
        message:
          'journal: the call succeeded but its intent could not be settled; a later recover() sends it again with its key and the service replays this same result',
        fields: fieldsOf(intent!),
      },
    ]);
  });

  it('failed with an answer kept under the key: the caller gets that answer as it is', async () => {
    const { memory, journal } = stuck();
    ledger.interpose('withdrawal', () => apiError(400, 'insufficient_balance'));
    const err = (await failure(client(journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'insufficient_balance', call: { sent: 'yes', status: 400, attempts: 1 } });
    const [intent] = memory.open();
    expect(intent!.key).toBe(err.idempotencyKey);
    expect(logs).toEqual([
      {
        level: 'warn',
        message:
          'journal: the intent of a failed call could not be settled; a later recover() sends it again with its key and the service answers the same (it keeps the answer under the key)',
        fields: fieldsOf(intent!),
      },
    ]);
  });

  // A settle that never answers: the caller still gets its answer, at the call's deadline at the
  // latest (a wait past it would leave this test hanging until vitest's guard fails it).
  function hanging() {
    const memory = new MemoryJournal();
    const settles: string[] = [];
    const journal: IntentJournal = {
      record: (i) => memory.record(i),
      settle: (_, key) => (settles.push(key), new Promise<void>(() => undefined)),
      claim: (r) => memory.claim(r),
    };
    return { memory, journal, settles };
  }

  it("succeeded, its settle never answering: the caller gets the order by the call's deadline, the intent left for recover()", async () => {
    const { memory, journal, settles } = hanging();
    const order = await client(journal, { timeoutMs: 3_000, maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
    const [intent] = memory.open();
    expect(settles).toEqual([intent!.key]);
    expect(logs.map((l) => [l.level, l.message])).toEqual([
      [
        'warn',
        'journal: the call succeeded but its intent could not be settled; a later recover() sends it again with its key and the service replays this same result',
      ],
    ]);
  });

  it("failed with an answer kept under the key, its settle never answering: the caller gets that answer by the call's deadline", async () => {
    const { memory, journal, settles } = hanging();
    ledger.interpose('withdrawal', () => apiError(400, 'insufficient_balance'));
    const err = (await failure(
      client(journal, { timeoutMs: 3_000, maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL),
    )) as MerchantSdkError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'insufficient_balance', call: { sent: 'yes', status: 400, attempts: 1 } });
    expect(settles).toEqual([err.idempotencyKey]);
    expect(memory.open().map((i) => i.key)).toEqual([err.idempotencyKey]);
  });

  it('failed with a 2xx it could not read: the operation ran, the caller gets that error as it is', async () => {
    const { memory, journal } = stuck();
    ledger.interpose('withdrawal', () => ({ status: 201, body: '{"id": 1' }));
    const err = (await failure(client(journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    expect(memory.open()).toHaveLength(1);
  });

  it('failed with an answer given before the key was read: the caller could make it again while recover() may send it, so unknown', async () => {
    const { memory, journal } = stuck();
    ledger.interpose('withdrawal', () => apiError(403, 'insufficient_scope'));
    const err = (await failure(client(journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    const [intent] = memory.open();
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expectUnknown(
      err.message,
      'ApiError ended the call (POST /v1/withdrawals) before it ran, but its intent could not be removed from the intent journal, so a later recover() may still send it with its idempotency key.',
    );
    expect(err.idempotencyKey).toBe(intent!.key);
    const cause = err.cause as ApiError;
    expect(cause).toBeInstanceOf(ApiError);
    expect(cause.code).toBe('insufficient_scope');
    expect(err.call).toEqual({ ...cause.call, sent: 'maybe' });
    expect(err.call).toMatchObject({ idempotencyKey: intent!.key, status: 403, attempts: 1 });
    expect(logs).toEqual([
      {
        level: 'warn',
        message:
          'journal: the call did not run, but its intent could not be settled; a later recover() may still send it with its key: the outcome is unknown',
        fields: fieldsOf(intent!),
      },
    ]);
  });

  it('failed before anything was sent: unknown too, since the intent is still there for recover()', async () => {
    const { memory, journal } = stuck();
    ledger.server.onToken(apiError(401, 'invalid_credentials'));
    const err = (await failure(client(journal).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err.cause as MerchantSdkError).call?.sent).toBe('no');
    expect(err.call).toMatchObject({ sent: 'maybe', attempts: 0 });
    expect(memory.open().map((i) => i.key)).toEqual([err.idempotencyKey]);
    expect(ledger.server.calls()).toEqual([]);
  });

  it('failed with an outcome still open (a 504): the settle is not even tried, the error is as it is', async () => {
    const settled: string[] = [];
    const memory = new MemoryJournal();
    const journal: IntentJournal = {
      record: (i) => memory.record(i),
      settle: (s, k) => (settled.push(k), memory.settle(s, k)),
      claim: (r) => memory.claim(r),
    };
    ledger.interpose('withdrawal', () => apiError(504, 'upstream_timeout'));
    const err = (await failure(client(journal, { maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    expect(err).toMatchObject({ code: 'upstream_timeout', call: { sent: 'yes' } });
    expect(settled).toEqual([]);
    expect(logs).toEqual([]);
  });
});

describe('what an intent holds', () => {
  it('the time of the record on the wall clock, the member or null, and the exact body', async () => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const recorded: JournalIntent[] = [];
    const memory = new MemoryJournal();
    const journal: IntentJournal = {
      record: (i) => (recorded.push(i), memory.record(i)),
      settle: (s, k) => memory.settle(s, k),
      claim: (r) => memory.claim(r),
    };
    const c = client(journal);
    const conversion = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' };
    const { response } = await c.merchant.conversions.create(conversion).withResponse();
    await c.member(MEMBER).cards.topUp('crd_1', { amount: '5.00' });
    expect(recorded[0]).toStrictEqual({
      key: response.idempotencyKey,
      scope: recorded[1]!.scope,
      endpoint: 'merchant.conversions.create',
      method: 'POST',
      path: '/v1/merchant/conversions',
      body: JSON.stringify(conversion),
      withheld: false,
      member: null,
      createdAt: NOW,
    });
    expect(recorded[1]).toMatchObject({ endpoint: 'member.cards.topUp', path: ROUTES.topup, member: MEMBER, createdAt: NOW });
  });

  it('a call without a body is recorded with body null (JournalHook)', async () => {
    const memory = new MemoryJournal();
    const hook = new JournalHook(memory, 'scope-1', undefined);
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
    const call: PreparedCall = {
      name: 'member.withdrawals.confirm',
      route: WITHDRAWALS_CONFIRM.path,
      method: 'POST',
      path: '/v1/withdrawals/wdr_1/confirm',
      body: undefined,
      signed: true,
      idempotencyKey: '0a9f0a9f-0a9f-4a9f-8a9f-0a9f0a9f0a9f',
      member: undefined,
      bucket: 'orders',
      subKey: undefined,
      extraHeaders: undefined,
      options: undefined,
      secrets: [],
    };
    let open: JournalIntent[] = [];
    const result = await hook.track(call, WITHDRAWALS_CONFIRM, { timeoutMs: 1000, maxRetries: 0 }, () => {
      open = memory.open();
      return Promise.resolve('done');
    });
    expect(result).toBe('done');
    expect(open).toStrictEqual([
      {
        key: call.idempotencyKey,
        scope: 'scope-1',
        endpoint: 'member.withdrawals.confirm',
        method: 'POST',
        path: '/v1/withdrawals/wdr_1/confirm',
        body: null,
        withheld: false,
        member: null,
        createdAt: NOW,
      },
    ]);
    expect(memory.open()).toEqual([]);
  });
});

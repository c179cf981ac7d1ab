/**
 * The journal's failure matrix in one process, on `MemoryJournal` behind a journal that can fail
 * the way a store does: a reply lost after the write, a refusal, a settle that fails, a claim that
 * fails mid-recovery, records that cannot be read or trusted. A crash is a journal call that never
 * returns (the process "dies" inside it; the next client on the same journal is the new process).
 * The API sits behind a switch that refuses connections for real; the ledger counts executions
 * per key. Every test ends with the same invariants: no key executed twice, and every order the
 * service made was handed to someone.
 *
 * The same cases with real processes killed by SIGKILL and a real redis-server are in
 * crash.test.ts and crash-faults.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  CallInterruptedError,
  idempotencyKeyFor,
  MemoryJournal,
  OutcomeUnknownError,
  RecoveryInterruptedError,
  type ClaimedRecord,
  type IntentFailed,
  type IntentJournal,
  type IntentResent,
  type IntentToCheck,
  type JournalClaimRequest,
  type JournalIntent,
  type JournalOpenAfter,
  type JournalOpenAfterRequest,
  type LogFields,
  type MerchantClientOptions,
  type RecoveredIntent,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { apiError, WITHDRAWAL } from '../helpers/wire-server.js';
import { startApiSwitch, type ApiSwitch } from './helpers/api-switch.js';
import { ROUTES, startLedger, type Ledger } from './helpers/ledger.js';

const MEMBER = 'ext-matrix';
const forever = (): Promise<never> => new Promise<never>(() => undefined);

/** A store failing on demand in front of a MemoryJournal. */
class FaultyJournal implements IntentJournal {
  readonly inner = new MemoryJournal();
  /** The next record: `lost` writes then rejects (its reply lost), `refused` writes nothing (`executed: false`), `hang` writes and never answers. */
  nextRecord: 'lost' | 'refused' | 'hang' | undefined;
  /** Settles: `fail` rejects without removing, `hang-before` never answers and removes nothing, `hang-after` removes and never answers. */
  settles: 'fail' | 'hang-before' | 'hang-after' | undefined;
  /** Claims that succeed before every claim fails (the store killed mid-recovery). */
  claimsLeft = Number.POSITIVE_INFINITY;
  /** Records the next claims return first, one each (unreadable records older than the rest). */
  injected: unknown[] = [];
  settleCalls = 0;

  async record(intent: JournalIntent): Promise<void> {
    const mode = this.nextRecord;
    this.nextRecord = undefined;
    if (mode === 'refused') throw Object.assign(new Error('the store refused the write'), { executed: false });
    await this.inner.record(intent);
    if (mode === 'lost') throw new Error('the store did not answer');
    if (mode === 'hang') await forever();
  }

  async settle(scope: string, key: string): Promise<void> {
    this.settleCalls++;
    if (this.settles === 'fail') throw new Error('the store did not answer');
    if (this.settles === 'hang-before') await forever();
    await this.inner.settle(scope, key);
    if (this.settles === 'hang-after') await forever();
  }

  async claim(request: JournalClaimRequest): Promise<readonly ClaimedRecord[]> {
    if (this.claimsLeft-- <= 0) throw new Error('the store did not answer');
    if (this.injected.length > 0) return [this.injected.shift() as ClaimedRecord];
    return this.inner.claim(request);
  }

  openAfter(request: JournalOpenAfterRequest): Promise<JournalOpenAfter> {
    return this.inner.openAfter(request);
  }

  keys(): string[] {
    return this.inner.open().map((i) => i.key);
  }
}

let ledger: Ledger;
let api: ApiSwitch;
let journal: FaultyJournal;
const logs: Array<{ level: string; message: string; fields: LogFields | undefined }> = [];
const logger = {
  info: (message: string, fields?: LogFields) => logs.push({ level: 'info', message, fields }),
  warn: (message: string, fields?: LogFields) => logs.push({ level: 'warn', message, fields }),
  error: (message: string, fields?: LogFields) => logs.push({ level: 'error', message, fields }),
};
/** Orders handed to the merchant's code (results of calls, recovery outcomes), by key. */
const handed = new Map<string, unknown>();

beforeEach(async () => {
  ledger = await startLedger();
  api = await startApiSwitch(ledger.url);
  journal = new FaultyJournal();
  logs.length = 0;
  handed.clear();
});
afterEach(async () => {
  vi.restoreAllMocks();
  // The invariants of every case: no key executed twice, and each execution's order reached someone.
  const executed = ledger.executedKeys();
  expect(new Set(executed).size).toBe(executed.length);
  for (const key of executed) expect(handed.has(key), `order of ${key} handed to nobody`).toBe(true);
  await api.close();
  await ledger.close();
});

/** A new process: a client of the API (through the switch) on the shared journal. */
function client(options: Partial<MerchantClientOptions> = {}) {
  return wireClient(api.url, { journal, logger, logLevel: 'info', maxRetries: 0, ...options });
}

/** A withdrawal the merchant's code got back. */
async function withdraw(options: { idempotencyKey?: string } = {}): Promise<{ key: string; id: string; replayed: boolean }> {
  const { data, response } = await client().member(MEMBER).withdrawals.create(WITHDRAWAL, options).withResponse();
  handed.set(response.idempotencyKey!, data);
  return { key: response.idempotencyKey!, id: data.id, replayed: response.replayed };
}

/** A withdrawal the service executed whose caller died before its answer: the intent stays open. */
async function executedThenDied(): Promise<string> {
  const executed = ledger.holdAnswer('withdrawal');
  const dies = new AbortController();
  void executed.then(() => dies.abort());
  await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL, { signal: dies.signal }));
  return executed;
}

/** A withdrawal whose connection was reset before the service executed it: open, never executed. */
async function neverExecuted(): Promise<string> {
  ledger.interpose('withdrawal', () => ({ reset: true }));
  const err = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string };
  ledger.interpose('withdrawal', undefined);
  return err.idempotencyKey;
}

/** Recovers with `minAgeMs: 0`, handing each order over. */
async function recover(options: Parameters<ReturnType<typeof client>['recover']>[0] = {}) {
  const report = await client().recover({ minAgeMs: 0, ...options });
  for (const entry of report.intents) handOver(entry);
  return report;
}

function handOver(entry: RecoveredIntent): void {
  if (entry.outcome === 'resent') handed.set(entry.intent.key, entry.result);
}

/** The log lines naming `key`. */
const linesOf = (key: string) => logs.filter((l) => l.fields?.['idempotencyKey'] === key && l.message.startsWith('journal:'));

describe('a record whose reply is lost', () => {
  it('and the clearing settle too: OutcomeUnknownError with the key (sent maybe), one warn line; the same key again executes once', async () => {
    journal.nextRecord = 'lost';
    journal.settles = 'fail';
    const err = await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL));
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    const { idempotencyKey: key, call, cause } = err as OutcomeUnknownError;
    expect(call).toEqual({ idempotencyKey: key, sent: 'maybe', status: undefined, requestId: undefined, attempts: 0 });
    expect(cause).toBeInstanceOf(CallInterruptedError);
    expect((err as Error).message).toMatch(/never make it again with a new key/);
    expect(ledger.received(key!)).toHaveLength(0);
    // The record landed: a later recover() could send it, which is why "not sent" was not said.
    expect(journal.keys()).toEqual([key]);
    expect(linesOf(key!).map((l) => [l.level, l.message])).toEqual([
      [
        'warn',
        'journal: the intent could not be recorded, and may have been written all the same (it could not be cleared); the call was not sent by this process, but a later recover() may send it with its key: the outcome is unknown',
      ],
    ]);

    // The caller follows the advice: the same key once the store answers.
    journal.settles = undefined;
    const again = await withdraw({ idempotencyKey: key! });
    expect(again).toMatchObject({ key, replayed: false });
    expect(journal.keys()).toEqual([]);
    expect((await recover()).intents).toEqual([]);
    expect(ledger.effects(key!)).toBe(1);
  });

  it('and the caller does nothing: recover() sends it once and hands the order over', async () => {
    journal.nextRecord = 'lost';
    journal.settles = 'fail';
    const { idempotencyKey: key } = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as OutcomeUnknownError;
    journal.settles = undefined;
    const report = await recover();
    expect(report.intents).toEqual([
      expect.objectContaining({ outcome: 'resent', settled: true, intent: expect.objectContaining({ key }) }),
    ]);
    expect(ledger.effects(key!)).toBe(1);
  });

  it('and the clearing settle goes through: CallInterruptedError (sent no), nothing left, a new key makes the one payout', async () => {
    journal.nextRecord = 'lost';
    const err = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as CallInterruptedError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.call).toMatchObject({ sent: 'no', attempts: 0 });
    expect(journal.keys()).toEqual([]);
    expect(linesOf(err.idempotencyKey!).map((l) => l.message)).toEqual([
      'journal: the intent could not be recorded; the call was not sent',
    ]);
    const payout = await withdraw();
    expect((await recover()).intents).toEqual([]);
    expect(ledger.executedKeys()).toEqual([payout.key]);
  });

  it('refused by the store (executed: false): CallInterruptedError (sent no) without a clearing settle', async () => {
    journal.nextRecord = 'refused';
    const err = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as CallInterruptedError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.call?.sent).toBe('no');
    expect(journal.settleCalls).toBe(0);
    expect(journal.keys()).toEqual([]);
  });

  it("a caller's abort while the record hangs: the intent is cleared if the store answers at once, else the outcome is unknown", async () => {
    // The record hangs after its write; the caller gives up; the in-memory settle clears it at once.
    journal.nextRecord = 'hang';
    const giveUp = new AbortController();
    const call = failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL, { signal: giveUp.signal }));
    await until(() => expect(journal.keys()).toHaveLength(1));
    giveUp.abort(new Error('shutting down'));
    const err = (await call) as { name: string; call: { sent: string } };
    expect(err).toMatchObject({ name: 'AbortError', call: { sent: 'no' } });
    expect(journal.keys()).toEqual([]);
    // The same with a settle that cannot answer at once: the truth is "unknown".
    journal.nextRecord = 'hang';
    journal.settles = 'hang-before';
    const later = new AbortController();
    const second = failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL, { signal: later.signal }));
    await until(() => expect(journal.keys()).toHaveLength(1));
    later.abort(new Error('shutting down'));
    const unknown = (await second) as OutcomeUnknownError;
    expect(unknown).toBeInstanceOf(OutcomeUnknownError);
    expect(unknown.call?.sent).toBe('maybe');
    expect((unknown.cause as Error).name).toBe('AbortError');
    expect(journal.keys()).toEqual([unknown.idempotencyKey]);
    journal.settles = undefined;
    await recover();
    expect(ledger.effects(unknown.idempotencyKey!)).toBe(1);
  });
});

describe('a settle lost after the outcome', () => {
  it('of an answer given before the key was read (403 merchant_disabled): OutcomeUnknownError, and recovery sends it once', async () => {
    ledger.interpose('withdrawal', () => apiError(403, 'merchant_disabled'));
    journal.settles = 'fail';
    const err = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as OutcomeUnknownError;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err.call).toMatchObject({ sent: 'maybe', status: 403, attempts: 1 });
    expect(err.cause).toBeInstanceOf(ApiError);
    expect((err.cause as ApiError).code).toBe('merchant_disabled');
    const key = err.idempotencyKey!;
    expect(linesOf(key).map((l) => l.message)).toEqual([
      'journal: the call did not run, but its intent could not be settled; a later recover() may still send it with its key: the outcome is unknown',
    ]);
    ledger.interpose('withdrawal', undefined);
    journal.settles = undefined;
    await recover();
    expect(ledger.effects(key)).toBe(1);
  });

  it('of a call that never left (the API refusing connections): OutcomeUnknownError, and recovery sends it once', async () => {
    await api.off();
    journal.settles = 'fail';
    const err = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as OutcomeUnknownError;
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err.cause as { call: { sent: string } }).call.sent).toBe('no');
    await api.on();
    journal.settles = undefined;
    await recover();
    expect(ledger.effects(err.idempotencyKey!)).toBe(1);
  });

  it('of an answer kept under the key (400 insufficient_balance): that error as it is, and the resend only gets it again', async () => {
    ledger.interpose('withdrawal', () => apiError(400, 'insufficient_balance'));
    journal.settles = 'fail';
    const err = (await failure(client().member(MEMBER).withdrawals.create(WITHDRAWAL))) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('insufficient_balance');
    expect(linesOf(err.idempotencyKey!).map((l) => l.message)).toEqual([
      'journal: the intent of a failed call could not be settled; a later recover() sends it again with its key and the service answers the same (it keeps the answer under the key)',
    ]);
    journal.settles = undefined;
    const report = await recover();
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'failed', settled: true })]);
    expect(ledger.executedKeys()).toEqual([]);
  });

  it('of a success: the order is returned, and a later recovery gets the replay', async () => {
    journal.settles = 'fail';
    const { key, id } = await withdraw();
    expect(linesOf(key).map((l) => l.message)).toEqual([
      'journal: the call succeeded but its intent could not be settled; a later recover() sends it again with its key and the service replays this same result',
    ]);
    journal.settles = undefined;
    const [entry] = (await recover()).intents as IntentResent[];
    expect(entry).toMatchObject({ outcome: 'resent', settled: true, response: { replayed: true }, result: { id } });
    expect(ledger.effects(key)).toBe(1);
  });
});

describe('recovery settles only on an answer definitive for the original key', () => {
  const open = (entry: RecoveredIntent | undefined): IntentFailed => {
    expect(entry).toMatchObject({ outcome: 'failed', settled: false });
    expect((entry as IntentFailed).reclaimableAt).toBeGreaterThan(Date.now() - 1000);
    expect((entry as IntentFailed).next).toMatch(/^left open: .* recover\(\) again from \d{4}-\d\d-\d\dT.*Z \(the end of this lease\)/);
    return entry as IntentFailed;
  };

  async function thenReplayed(key: string): Promise<void> {
    expect(journal.keys()).toEqual([key]);
    leaseOver();
    // The next recovery, with the API healthy, gets the order the dead process made.
    const [entry] = (await recover()).intents as IntentResent[];
    expect(entry).toMatchObject({ outcome: 'resent', settled: true, response: { replayed: true } });
    expect(entry!.result).toEqual(ledger.answer(key)!.body);
    expect(ledger.effects(key)).toBe(1);
  }

  it('the API refusing connections: left open', async () => {
    const key = await executedThenDied();
    await api.off();
    const failed = open((await recover()).intents[0]);
    expect((failed.error as { call: { sent: string } }).call.sent).toBe('no');
    await api.on();
    await thenReplayed(key);
  });

  it('the token exchange refused (401 invalid_credentials): left open', async () => {
    const key = await executedThenDied();
    ledger.server.onToken(apiError(401, 'invalid_credentials'));
    const failed = open((await recover()).intents[0]);
    expect(failed.error).toMatchObject({ code: 'invalid_credentials' });
    ledger.server.onToken(() => ({
      body: { auth_token: 'tok_again', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    }));
    await thenReplayed(key);
  });

  it('the recovery aborted during the resend: left open', async () => {
    const key = await executedThenDied();
    const stop = new AbortController();
    ledger.interpose('withdrawal', () => {
      stop.abort();
      return forever();
    });
    const failed = open((await recover({ signal: stop.signal })).intents[0]);
    expect(failed.error).toMatchObject({ name: 'AbortError' });
    ledger.interpose('withdrawal', undefined);
    await thenReplayed(key);
  });

  it.each([
    [403, 'merchant_disabled'],
    [403, 'insufficient_scope'],
    [403, 'ip_not_allowed'],
    [404, 'member_not_found'],
    [404, 'not_found'],
    [429, 'rate_limited'],
    [409, 'idempotency_in_progress'],
    [409, 'idempotency_key_reused'],
    [500, 'api_error'],
    [504, 'upstream_timeout'],
    [400, 'idempotency_key_invalid'],
    [400, 'member_context_required'],
    [400, 'step_up_required'],
    [400, 'a_code_this_sdk_does_not_know'],
  ])('a resend answered %i %s: left open, the order got later', async (status, code) => {
    const key = await executedThenDied();
    ledger.interpose('withdrawal', () => apiError(status, code));
    const failed = open((await recover()).intents[0]);
    expect(failed.error).toMatchObject({ code });
    ledger.interpose('withdrawal', undefined);
    await thenReplayed(key);
  });

  it('a resend answered 400 with a business failure the service keeps under the key: settled', async () => {
    const key = await neverExecuted();
    ledger.interpose('withdrawal', () => apiError(400, 'insufficient_balance'));
    const [entry] = (await recover()).intents as IntentFailed[];
    expect(entry).toMatchObject({ outcome: 'failed', settled: true, reclaimableAt: undefined });
    expect(entry!.next).toMatch(/^settled: the service keeps this answer under the key/);
    expect(journal.keys()).toEqual([]);
    expect(ledger.effects(key)).toBe(0);
  });

  it('a conversion resend answered service_unavailable (not cached under the key there): left open', async () => {
    ledger.interpose('conversion', () => ({ reset: true }));
    const conversion = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' };
    const err = (await failure(client().merchant.conversions.create(conversion))) as { idempotencyKey: string };
    ledger.interpose('conversion', () => apiError(400, 'service_unavailable'));
    open((await recover()).intents[0]);
    ledger.interpose('conversion', undefined);
    leaseOver();
    const [entry] = (await recover()).intents as IntentResent[];
    expect(entry).toMatchObject({ outcome: 'resent', settled: true, response: { replayed: false } });
    expect(ledger.effects(err.idempotencyKey)).toBe(1);
  });
});

describe('a process dying at each point (a journal call that never returns)', () => {
  it('while its record is written: nothing was sent; recovery sends it once and hands the order over', async () => {
    journal.nextRecord = 'hang';
    void client()
      .member(MEMBER)
      .withdrawals.create(WITHDRAWAL)
      .catch(() => undefined);
    await until(() => expect(journal.keys()).toHaveLength(1));
    const [key] = journal.keys();
    expect(ledger.received(key!)).toHaveLength(0);
    await recover();
    expect(ledger.effects(key!)).toBe(1);
  });

  it('after the answer, before the settle: recovery hands the same order over (a replay)', async () => {
    journal.settles = 'hang-before';
    void client()
      .member(MEMBER)
      .withdrawals.create(WITHDRAWAL)
      .catch(() => undefined);
    await until(() => expect(ledger.executedKeys()).toHaveLength(1));
    await until(() => expect(journal.settleCalls).toBe(1));
    const [key] = ledger.executedKeys();
    journal.settles = undefined;
    const [entry] = (await recover()).intents as IntentResent[];
    expect(entry).toMatchObject({ outcome: 'resent', response: { replayed: true }, result: ledger.answer(key!)!.body });
  });

  it('after the settle, before its code had the order: recovery has nothing, and the same derived key gets the order back', async () => {
    journal.settles = 'hang-after';
    const key = idempotencyKeyFor('payout', 'po_981');
    void client()
      .member(MEMBER)
      .withdrawals.create(WITHDRAWAL, { idempotencyKey: key })
      .catch(() => undefined);
    await until(() => expect(journal.settleCalls).toBe(1));
    journal.settles = undefined;
    expect((await recover()).intents).toEqual([]);
    // The documented recipe: the merchant's own payout id gives the same key, and the service replays.
    const again = await withdraw({ idempotencyKey: idempotencyKeyFor('payout', 'po_981') });
    expect(again).toMatchObject({ key, replayed: true, id: (ledger.answer(key)!.body as { id: string }).id });
    expect(ledger.effects(key)).toBe(1);
  });

  it('recovering, inside onIntent: the next recovery hands the same order over again', async () => {
    const key = await executedThenDied();
    const first: RecoveredIntent[] = [];
    void client()
      .recover({
        minAgeMs: 0,
        onIntent: async (entry) => {
          first.push(entry);
          await forever();
        },
      })
      .catch(() => undefined);
    await until(() => expect(first).toHaveLength(1));
    expect(journal.keys()).toEqual([key]);
    leaseOver();
    const given: RecoveredIntent[] = [];
    const report = await client().recover({ minAgeMs: 0, onIntent: (entry) => void given.push(entry) });
    for (const entry of report.intents) handOver(entry);
    expect(given.map((g) => [g.intent.key, g.outcome, (g as IntentResent).result])).toEqual([[key, 'resent', ledger.answer(key)!.body]]);
    expect(report.intents[0]).toMatchObject({ settled: true });
    expect(journal.keys()).toEqual([]);
  });

  it('recovering, after onIntent and before the settle: the next recovery hands it over again', async () => {
    const key = await executedThenDied();
    journal.settles = 'hang-before';
    const first: string[] = [];
    void client()
      .recover({ minAgeMs: 0, onIntent: (entry) => void first.push(entry.intent.key) })
      .catch(() => undefined);
    await until(() => expect(journal.settleCalls).toBe(1));
    expect(first).toEqual([key]);
    journal.settles = undefined;
    leaseOver();
    const [entry] = (await recover()).intents;
    expect(entry).toMatchObject({ outcome: 'resent', settled: true, intent: { key } });
  });

  it('onIntent failing: the intent stays open, and the next recovery hands it over again', async () => {
    const key = await executedThenDied();
    const report = await client().recover({
      minAgeMs: 0,
      onIntent: () => {
        throw new Error('the merchant database is down');
      },
    });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'resent', settled: false })]);
    expect(logs.map((l) => l.message)).toContain(
      'recovery: onIntent failed; the intent stays open and the next recover() hands it over again',
    );
    leaseOver();
    expect((await recover()).intents).toEqual([
      expect.objectContaining({ outcome: 'resent', settled: true, intent: expect.objectContaining({ key }) }),
    ]);
  });
});

describe('the journal failing during recover()', () => {
  it('a claim failing after the first resend: RecoveryInterruptedError keeps that outcome and its order; the rest stay open', async () => {
    const keys = [await executedThenDied(), await neverExecuted(), await neverExecuted()];
    journal.claimsLeft = 1;
    const err = (await failure(client().recover({ minAgeMs: 0 }))) as RecoveryInterruptedError;
    expect(err).toBeInstanceOf(RecoveryInterruptedError);
    expect(err.cause).toMatchObject({ message: 'the store did not answer' });
    expect(err.report.intents.map((r) => [r.intent.key, r.outcome, r.settled])).toEqual([[keys[0], 'resent', true]]);
    for (const entry of err.report.intents) handOver(entry);
    const line = logs.find((l) => l.message.startsWith('recovery: interrupted'));
    expect(line).toMatchObject({
      level: 'warn',
      fields: { handled: `${keys[0]} resent ${(ledger.answer(keys[0]!)!.body as { id: string }).id}` },
    });
    expect(journal.keys()).toEqual(keys.slice(1));
    journal.claimsLeft = Number.POSITIVE_INFINITY;
    const report = await recover();
    expect(report.intents.map((r) => [r.intent.key, r.outcome, r.settled])).toEqual([
      [keys[1], 'resent', true],
      [keys[2], 'resent', true],
    ]);
    for (const key of keys) expect(ledger.effects(key)).toBe(1);
  });

  it('a settle failing: the entry says settled false, the recovery goes on, and the next one replays it', async () => {
    const keys = [await executedThenDied(), await neverExecuted()];
    journal.settles = 'fail';
    const report = await recover();
    expect(report.intents.map((r) => [r.outcome, r.settled])).toEqual([
      ['resent', false],
      ['resent', false],
    ]);
    expect(logs.filter((l) => l.message.startsWith('recovery: the intent could not be settled'))).toHaveLength(2);
    journal.settles = undefined;
    leaseOver();
    const again = await recover();
    expect(again.intents.map((r) => [r.outcome, (r as IntentResent).response.replayed])).toEqual([
      ['resent', true],
      ['resent', true],
    ]);
    for (const key of keys) expect(ledger.effects(key)).toBe(1);
  });
});

describe('records recovery cannot trust', () => {
  it('unreadable records older than the real intents are reported and passed over; every real intent is handled in the same recover()', async () => {
    const keys = [await executedThenDied(), await neverExecuted(), await neverExecuted()];
    journal.injected = [
      { unreadable: true, key: 'newer-format-key', scope: 'x', problem: 'not JSON' },
      { key: 42, note: 'hand edited' },
      'garbage',
    ];
    const report = await recover();
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual(keys.map((k) => [k, 'resent']));
    expect(report.unreadable).toEqual([
      { unreadable: true, key: 'newer-format-key', scope: 'x', problem: 'not JSON' },
      expect.objectContaining({
        unreadable: true,
        key: undefined,
        problem: expect.stringMatching(/^missing or mistyped fields: key, scope/) as string,
      }),
      expect.objectContaining({ unreadable: true, key: undefined, problem: 'not an object' }),
    ]);
    expect(logs.filter((l) => l.message.startsWith('recovery: an unreadable journal record was set aside'))).toHaveLength(3);
    for (const key of keys) expect(ledger.effects(key)).toBe(1);
  });

  const mismatches: Array<[string, Partial<JournalIntent>, RegExp]> = [
    [
      'a withdrawal record whose path is /v1/withdrawals/wdr_1/fail',
      { path: '/v1/withdrawals/wdr_1/fail' },
      /its path does not match \/v1\/withdrawals/,
    ],
    ['a dot segment', { endpoint: 'member.cards.topUp', path: '/v1/cards/../withdrawals/topups' }, /its path does not match/],
    ['a query', { path: '/v1/withdrawals?as=admin' }, /its path does not match/],
    ['another method', { method: 'PUT' }, /its method is not POST/],
    ['no member on a member-scoped endpoint', { member: null }, /names no member/],
    ['a blank member', { member: ' ' }, /its member is blank/],
    ['a member on a merchant endpoint', { endpoint: 'merchant.conversions.create', path: '/v1/merchant/conversions' }, /names a member/],
    ['a key that is not UUID-shaped', { key: 'not-a-uuid' }, /not UUID-shaped/],
    ['a body that is not JSON', { body: '{"asset":' }, /its body is not JSON/],
  ];
  it.each(mismatches)('%s: reported as skipped, left open, never sent', async (_, change, why) => {
    const key = await neverExecuted();
    const [original] = journal.inner.open();
    await journal.inner.settle(original!.scope, key);
    const tampered = { ...original!, ...change };
    await journal.inner.record(tampered);
    const received = ledger.server.calls().length;
    const [entry] = (await recover()).intents as IntentToCheck[];
    expect(entry).toMatchObject({ outcome: 'skipped', settled: false });
    expect(entry!.check).toMatch(why);
    expect(ledger.server.calls()).toHaveLength(received);
    // The route the tampered record names was never called, in this recovery or before it.
    expect(ledger.server.calls().filter((c) => c.url !== ROUTES.withdrawal && c.url !== ROUTES.conversion)).toEqual([]);
    expect(journal.inner.open()).toEqual([tampered]);
    expect(logs.find((l) => l.message === 'recovery: intent skipped')).toMatchObject({ level: 'warn' });
  });
});

describe('several processes recovering at once', () => {
  it.each([2, 5])('%i recoverers: each intent resent by exactly one of them, once', async (count) => {
    const keys: string[] = [];
    for (let i = 0; i < 10; i++) keys.push(i % 3 === 0 ? await executedThenDied() : await neverExecuted());
    const reports = await Promise.all(Array.from({ length: count }, () => recover()));
    const resent = reports.flatMap((r) => r.intents.map((i) => i.intent.key));
    expect([...resent].sort()).toEqual([...keys].sort());
    for (const report of reports) for (const entry of report.intents) expect(entry).toMatchObject({ outcome: 'resent', settled: true });
    for (const key of keys) expect(ledger.effects(key)).toBe(1);
    expect(journal.keys()).toEqual([]);
  });
});

describe('what recovery leaves for later', () => {
  it('intents younger than minAgeMs: counted, named, when they become eligible, with an info line', async () => {
    const t0 = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(t0);
    const first = await neverExecuted();
    vi.spyOn(Date, 'now').mockReturnValue(t0 + 60_000);
    const second = await neverExecuted();
    vi.spyOn(Date, 'now').mockReturnValue(t0 + 120_000);
    const report = await client().recover();
    expect(report).toEqual({ intents: [], unreadable: [], leftForLater: { count: 2, keys: [first, second], eligibleAt: t0 + 300_000 } });
    expect(logs.find((l) => l.message.includes('left for a later recover()'))).toEqual({
      level: 'info',
      message: 'recovery: 2 open intent(s) younger than minAgeMs left for a later recover()',
      fields: { minAgeMs: 300_000, keys: `${first} ${second}`, eligibleAt: new Date(t0 + 300_000).toISOString() },
    });
    vi.spyOn(Date, 'now').mockReturnValue(t0 + 300_000);
    const later = await recover({ minAgeMs: 300_000 });
    expect(later.intents.map((r) => r.intent.key)).toEqual([first]);
    expect(later.leftForLater).toEqual({ count: 1, keys: [second], eligibleAt: t0 + 360_000 });
    vi.spyOn(Date, 'now').mockReturnValue(t0 + 360_000);
    expect((await recover({ minAgeMs: 300_000 })).intents.map((r) => r.intent.key)).toEqual([second]);
  });

  it('nothing young: count 0 and no line; a journal that cannot list them: undefined', async () => {
    expect((await recover()).leftForLater).toMatchObject({ count: 0, keys: [] });
    expect(logs.some((l) => l.message.includes('left for a later'))).toBe(false);
    const withoutList: IntentJournal = {
      record: (i) => journal.record(i),
      settle: (s, k) => journal.settle(s, k),
      claim: (r) => journal.claim(r),
    };
    const bare = wireClient(api.url, { journal: withoutList, logger });
    expect((await bare.recover({ minAgeMs: 0 })).leftForLater).toBeUndefined();
  });
});

/** Polls `check` until it passes (a hang guard only: the events it waits for always come). */
function until(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: 60_000, interval: 5 });
}

const realNow = performance.now.bind(performance);
let monotonicOffset = 0;
beforeEach(() => {
  monotonicOffset = 0;
});
/**
 * Moves the monotonic clock (MemoryJournal's leases run on `performance.now()`) past every lease
 * (the default 300 000 ms): what the next process sees once the dead one's claims ended.
 */
function leaseOver(): void {
  monotonicOffset += 600_000;
  vi.spyOn(performance, 'now').mockImplementation(() => realNow() + monotonicOffset);
}

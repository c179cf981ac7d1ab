/**
 * `recover()` at its edges (src/core/journal/recovery.ts, the records it reads through
 * src/core/journal/intent-journal.ts): what a report entry and its log line hold for each outcome, `onIntent` and
 * a settle that fail, the young intents left for later, records a journal cannot read or hands out
 * again, a journal that fails mid-run, the resend's bytes, member, bucket and signal, and what each
 * report tells a person to check. Over the loopback ledger, with `Date.now` stubbed where the wall
 * clock decides (the window, the lease, the age).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AbortError,
  InvalidArgumentError,
  MemoryJournal,
  RecoveryInterruptedError,
  type ClaimedRecord,
  type IntentFailed,
  type IntentJournal,
  type IntentResent,
  type IntentToCheck,
  type JournalIntent,
  type LogFields,
  type MerchantClientOptions,
  type RecoveredIntent,
  type RequestLimiter,
  type UnreadableJournalRecord,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { apiError, WITHDRAWAL } from '../helpers/wire-server.js';
import { startLedger, type Ledger } from './helpers/ledger.js';

const MEMBER = 'ext-member-42';
const HOUR = 60 * 60 * 1000;
const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const BALANCES =
  'no GET by id in the spec: GET /v1/balances (same member; a withdrawal sits in withdrawing) shows whether the funds moved; quote the idempotency key to support';

let ledger: Ledger;
let journal: MemoryJournal;
const logs: Array<{ level: string; message: string; fields: LogFields | undefined }> = [];
const logger = {
  info: (message: string, fields?: LogFields) => logs.push({ level: 'info', message, fields }),
  warn: (message: string, fields?: LogFields) => logs.push({ level: 'warn', message, fields }),
};

beforeEach(async () => {
  ledger = await startLedger();
  journal = new MemoryJournal();
  logs.length = 0;
});
afterEach(async () => {
  vi.restoreAllMocks();
  await ledger.close();
});

function client(options: Partial<MerchantClientOptions> = {}) {
  return wireClient(ledger.url, { journal, logger, logLevel: 'info', ...options });
}

/** Sets the wall clock (`Date.now`) to `time`. */
function at(time: number): void {
  vi.spyOn(Date, 'now').mockReturnValue(time);
}

/** A withdrawal lost before the service executed it: its intent is left open. Returns the intent. */
async function lost(c = client({ maxRetries: 0 })): Promise<JournalIntent> {
  ledger.interpose('withdrawal', () => ({ reset: true }));
  const err = (await failure(c.member(MEMBER).withdrawals.create(WITHDRAWAL))) as { idempotencyKey: string };
  ledger.interpose('withdrawal', undefined);
  return journal.open().find((i) => i.key === err.idempotencyKey)!;
}

/** A key of the spec's shape, different for each `n`. */
function keyOf(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
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

/** A journal that hands out `records` one claim at a time (then nothing), and settles into `journal`. */
function handingOut(records: readonly unknown[], extra: Partial<IntentJournal> = {}) {
  let claims = 0;
  const faulty: IntentJournal = {
    record: (i) => journal.record(i),
    settle: (s, k) => journal.settle(s, k),
    claim: () => {
      const next = records[claims++];
      return Promise.resolve(next === undefined ? [] : [next as ClaimedRecord]);
    },
    ...extra,
  };
  return { journal: faulty, claims: () => claims };
}

describe('the report entry and the log line of each outcome', () => {
  it('resent: info, with the order id, the request id and whether it was a replay; settled, nothing to reclaim', async () => {
    at(T0);
    const intent = await lost();
    at(T0 + HOUR);
    const report = await client().recover({ minAgeMs: 0 });
    const [entry] = report.intents as IntentResent[];
    expect(entry).toMatchObject({ intent, outcome: 'resent', settled: true, reclaimableAt: undefined, result: { id: 'wdr_1' } });
    const requestId = entry!.response.requestId;
    expect(requestId).toMatch(/^req_\d+$/);
    expect(logs.filter((l) => l.message.startsWith('recovery: intent'))).toEqual([
      {
        level: 'info',
        message: 'recovery: intent resent',
        fields: { ...fieldsOf(intent), settles: true, replayed: false, requestId, orderId: 'wdr_1' },
      },
    ]);
  });

  it("resent: the order id is the server's text with control characters escaped", async () => {
    const intent = await lost();
    ledger.interpose('withdrawal', () => ({ status: 201, body: { id: 'wdr_\n7', status: 'locked', ledger_scale: 6, ...WITHDRAWAL } }));
    await client().recover({ minAgeMs: 0 });
    expect(logs.find((l) => l.message === 'recovery: intent resent')?.fields).toMatchObject({
      idempotencyKey: intent.key,
      orderId: 'wdr_\\u000a7',
    });
  });

  it('resent with a result that has no id: the line has no orderId', async () => {
    at(T0);
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const confirm = { ...intent, endpoint: 'member.withdrawals.confirm', path: '/v1/withdrawals/wdr_1/confirm', body: '{}' };
    await journal.record(confirm);
    ledger.server.on('POST', '/v1/withdrawals/wdr_1/confirm', { status: 200, body: { confirmed: true } });
    at(T0 + HOUR);
    await client().recover({ minAgeMs: 0 });
    const line = logs.find((l) => l.message === 'recovery: intent resent')!;
    expect(line.fields).toEqual({ ...fieldsOf(confirm), settles: true, replayed: false, requestId: expect.stringMatching(/^req_/) });
  });

  it('failed and left open: warn, with the error, its code and what happens next; reclaimable at the end of the lease', async () => {
    at(T0);
    const intent = await lost();
    ledger.interpose('withdrawal', () => apiError(504, 'upstream_\u0007timeout'));
    at(T0 + HOUR);
    const report = await client({ maxRetries: 0 }).recover({ minAgeMs: 0, leaseMs: 60_000 });
    const [entry] = report.intents as IntentFailed[];
    const next =
      'left open: this answer does not show whether the first attempt executed; recover() again from 2026-11-27T11:01:00.000Z (the end of this lease) sends it again with its key';
    expect(entry).toMatchObject({ outcome: 'failed', settled: false, reclaimableAt: T0 + HOUR + 60_000, next });
    expect(logs.filter((l) => l.message.startsWith('recovery: intent'))).toEqual([
      {
        level: 'warn',
        message: 'recovery: intent failed',
        fields: { ...fieldsOf(intent), settles: false, error: 'ApiError', code: 'upstream_\\u0007timeout', next },
      },
    ]);
    expect(journal.open()).toEqual([intent]);
  });

  it('failed and settled (a stored business failure): warn, settles true, nothing to reclaim', async () => {
    const intent = await lost();
    ledger.interpose('withdrawal', () => apiError(400, 'insufficient_balance'));
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents[0]).toMatchObject({ outcome: 'failed', settled: true, reclaimableAt: undefined });
    expect(logs.find((l) => l.message === 'recovery: intent failed')?.fields).toEqual({
      ...fieldsOf(intent),
      settles: true,
      error: 'ApiError',
      code: 'insufficient_balance',
      next: 'settled: the service keeps this answer under the key (the operation did not happen; the same key only replays it)',
    });
  });

  it('failed with an error that has no code (a reset): the line names the error only', async () => {
    const intent = await lost();
    ledger.interpose('withdrawal', () => ({ reset: true }));
    await client({ maxRetries: 0 }).recover({ minAgeMs: 0 });
    expect(logs.find((l) => l.message === 'recovery: intent failed')?.fields).toEqual({
      ...fieldsOf(intent),
      settles: false,
      error: 'ConnectionError',
      next: expect.stringMatching(/^left open: /),
    });
  });

  it('expired: warn, with what to check; settled', async () => {
    at(T0);
    const intent = await lost();
    at(T0 + 25 * HOUR);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([{ intent, outcome: 'expired', check: BALANCES, settled: true, reclaimableAt: undefined }]);
    expect(logs.filter((l) => l.message.startsWith('recovery: intent'))).toEqual([
      { level: 'warn', message: 'recovery: intent expired', fields: { ...fieldsOf(intent), settles: true, check: BALANCES } },
    ]);
    expect(journal.open()).toEqual([]);
    expect(ledger.received(intent.key)).toHaveLength(1);
  });

  it('skipped: warn, with why; left open and reclaimable at the end of the lease', async () => {
    at(T0);
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const unknown = { ...intent, endpoint: 'member.widgets.polish' };
    await journal.record(unknown);
    at(T0 + HOUR);
    const report = await client().recover({ minAgeMs: 0 });
    const check = `not sent by this client (endpoint unknown to this SDK version): ${BALANCES}`;
    expect(report.intents).toEqual([{ intent: unknown, outcome: 'skipped', check, settled: false, reclaimableAt: T0 + HOUR + 300_000 }]);
    expect(logs.filter((l) => l.message.startsWith('recovery: intent'))).toEqual([
      { level: 'warn', message: 'recovery: intent skipped', fields: { ...fieldsOf(unknown), settles: false, check } },
    ]);
  });

  it('another scope: skipped with that reason, never sent', async () => {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const foreign = { ...intent, scope: 'f'.repeat(32) };
    const report = await client({ journal: handingOut([foreign]).journal }).recover({ minAgeMs: 0 });
    expect((report.intents[0] as IntentToCheck).check).toBe(`not sent by this client (another scope): ${BALANCES}`);
    expect(ledger.received(intent.key)).toHaveLength(1);
  });
});

describe('the window and the withheld flag', () => {
  it('expires at the window minus the margin exactly; a millisecond before, it is sent', async () => {
    at(T0);
    const first = await lost();
    at(T0 + 1);
    const second = await lost();
    at(T0 + 23 * HOUR);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([
      [first.key, 'expired'],
      [second.key, 'resent'],
    ]);
  });

  it('with no margin, at the 24th hour exactly', async () => {
    at(T0);
    const intent = await lost();
    at(T0 + 24 * HOUR);
    expect((await client().recover({ minAgeMs: 0, windowMarginMs: 0 })).intents).toEqual([
      expect.objectContaining({ intent, outcome: 'expired' }),
    ]);
  });

  it('a record flagged withheld is never sent, whatever its endpoint: reported with what to check, settled', async () => {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const withheld = { ...intent, withheld: true };
    await journal.record(withheld);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([{ intent: withheld, outcome: 'withheld', check: BALANCES, settled: true, reclaimableAt: undefined }]);
    expect(ledger.received(intent.key)).toHaveLength(1);
    expect(journal.open()).toEqual([]);
  });

  it('an activation past the window is withheld (the lockout), with the check of its own card', async () => {
    at(T0);
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const activation = { ...intent, endpoint: 'member.cards.activate', path: '/v1/cards/crd_9/activate', body: null, withheld: true };
    await journal.record(activation);
    at(T0 + 30 * HOUR);
    const [entry] = (await client().recover({ minAgeMs: 0 })).intents as IntentToCheck[];
    expect(entry).toMatchObject({ outcome: 'withheld', settled: true });
    expect(entry!.check).toMatch(/^read the card \(GET \/v1\/cards\/crd_9\): `active` means it succeeded;/);
  });
});

describe('what each report tells a person to check', () => {
  /** An expired intent of `endpoint` at `path`, and the check its report gives. */
  async function checkOf(endpoint: string, path: string, member: string | null = MEMBER): Promise<string> {
    at(T0);
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    await journal.record({ ...intent, endpoint, path, member, key: keyOf(1) });
    at(T0 + 25 * HOUR);
    const [entry] = (await client().recover({ minAgeMs: 0 })).intents as IntentToCheck[];
    expect(entry!.outcome).toBe('expired');
    return entry!.check;
  }

  it.each([
    ['member.cards.topUp', '/v1/cards/crd_1/topups', 'GET /v1/cards/crd_1 shows whether it happened'],
    ['member.cards.withdraw', '/v1/cards/crd_77/withdrawals', 'GET /v1/cards/crd_77 shows whether it happened'],
    ['member.remittances.cancel', '/v1/remittances/rmt_5/cancel', 'GET /v1/remittances/rmt_5 shows whether it happened'],
    ['member.kyc.quickBind', '/v1/kyc/quick', 'GET /v1/kyc (same member) shows whether the binding was made'],
    ['member.deposits.declare', '/v1/deposits', BALANCES],
    // A card path with no id in it: no card to read.
    ['member.cards.apply', '/v1/cards/applications', BALANCES],
  ])('%s at %s', async (endpoint, path, check) => {
    expect(await checkOf(endpoint, path)).toBe(check);
  });

  it('a merchant endpoint: the merchant balances', async () => {
    expect(await checkOf('sandbox.faucet', '/v1/sandbox/faucet', null)).toBe(
      'no GET by id in the spec: GET /v1/merchant/balances shows whether the funds moved; quote the idempotency key to support',
    );
  });
});

describe('young intents, left for later', () => {
  it('counted, named and dated in the report and at info; the intent exactly minAgeMs old is claimed', async () => {
    at(T0);
    const due = await lost();
    at(T0 + 1000);
    const young1 = await lost();
    at(T0 + 2000);
    const young2 = await lost();
    at(T0 + 5000);
    const report = await client().recover({ minAgeMs: 5000 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([[due.key, 'resent']]);
    expect(report.leftForLater).toEqual({ count: 2, keys: [young1.key, young2.key], eligibleAt: T0 + 6000 });
    expect(logs.filter((l) => l.message.includes('younger than minAgeMs'))).toEqual([
      {
        level: 'info',
        message: 'recovery: 2 open intent(s) younger than minAgeMs left for a later recover()',
        fields: { minAgeMs: 5000, keys: `${young1.key} ${young2.key}`, eligibleAt: new Date(T0 + 6000).toISOString() },
      },
    ]);
    expect(journal.open().map((i) => i.key)).toEqual([young1.key, young2.key]);
  });

  it('the default minAgeMs is five minutes', async () => {
    at(T0);
    const intent = await lost();
    at(T0 + 300_000 - 1);
    const early = await client().recover();
    expect(early.intents).toEqual([]);
    expect(early.leftForLater).toEqual({ count: 1, keys: [intent.key], eligibleAt: T0 + 300_000 });
    at(T0 + 300_000);
    expect((await client().recover()).intents).toEqual([expect.objectContaining({ outcome: 'resent' })]);
  });

  it('none: count 0, eligible now, and no line', async () => {
    at(T0);
    const report = await client().recover({ minAgeMs: 5000 });
    expect(report).toEqual({
      intents: [],
      unreadable: [],
      leftForLater: { count: 0, keys: [], eligibleAt: T0 },
      leased: { count: 0, intents: [], reclaimableAt: undefined },
    });
    expect(logs).toEqual([]);
  });

  it('names the oldest 20 and counts them all', async () => {
    at(T0);
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    for (let n = 1; n <= 21; n++) await journal.record({ ...intent, key: keyOf(n), createdAt: T0 + n });
    const report = await client().recover({ minAgeMs: 5000 });
    expect(report.leftForLater).toEqual({ count: 21, keys: Array.from({ length: 20 }, (_, n) => keyOf(n + 1)), eligibleAt: T0 + 5001 });
  });

  it('only those of its own scope', async () => {
    at(T0);
    const intent = await lost();
    await journal.record({ ...intent, key: keyOf(9), scope: 'f'.repeat(32) });
    const report = await client().recover({ minAgeMs: 5000 });
    expect(report.leftForLater).toEqual({ count: 1, keys: [intent.key], eligibleAt: T0 + 5000 });
  });

  it('a recovery stopped before it began still says what is waiting', async () => {
    at(T0);
    const intent = await lost();
    at(T0 + 10);
    const report = await client().recover({ minAgeMs: 5000, signal: AbortSignal.abort() });
    expect(report).toEqual({
      intents: [],
      unreadable: [],
      leftForLater: { count: 1, keys: [intent.key], eligibleAt: T0 + 5000 },
      leased: { count: 0, intents: [], reclaimableAt: undefined },
    });
    expect((await client().recover({ minAgeMs: 0, signal: AbortSignal.abort() })).leftForLater).toEqual({
      count: 0,
      keys: [],
      eligibleAt: T0 + 10,
    });
  });

  it('a journal that cannot list them: undefined, and a journal that fails to: undefined with a line', async () => {
    const { journal: noList } = handingOut([]);
    expect((await client({ journal: noList }).recover({ minAgeMs: 0 })).leftForLater).toBeUndefined();
    const { journal: failing } = handingOut([], { openAfter: () => Promise.reject(new Error('timeout')) });
    expect((await client({ journal: failing }).recover({ minAgeMs: 0 })).leftForLater).toBeUndefined();
    expect(logs).toEqual([
      {
        level: 'warn',
        message: 'recovery: the journal could not list the intents younger than minAgeMs; the report says nothing of them',
        fields: undefined,
      },
    ]);
  });
});

describe('onIntent, and a settle that fails', () => {
  it('is handed each outcome before its settle, as it will stand: settled, or open with when to reclaim it', async () => {
    at(T0);
    const resent = await lost();
    at(T0 + 1);
    const unknown = await lost();
    ledger.interpose('withdrawal', (req) =>
      req.headers['x-idempotency-key'] === unknown.key ? apiError(504, 'upstream_timeout') : undefined,
    );
    at(T0 + HOUR);
    const seen: Array<{ entry: RecoveredIntent; open: string[] }> = [];
    const report = await client({ maxRetries: 0 }).recover({
      minAgeMs: 0,
      leaseMs: 1000,
      onIntent: (entry) => void seen.push({ entry, open: journal.open().map((i) => i.key) }),
    });
    expect(seen).toEqual([
      {
        entry: expect.objectContaining({ intent: resent, outcome: 'resent', settled: true, reclaimableAt: undefined }),
        open: [resent.key, unknown.key],
      },
      {
        entry: expect.objectContaining({ intent: unknown, outcome: 'failed', settled: false, reclaimableAt: T0 + HOUR + 1000 }),
        open: [unknown.key],
      },
    ]);
    expect(report.intents).toEqual(seen.map((s) => s.entry));
  });

  it('waits for an async onIntent before the settle', async () => {
    const intent = await lost();
    let openDuring: number | undefined;
    await client().recover({
      minAgeMs: 0,
      onIntent: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        openDuring = journal.open().length;
      },
    });
    expect(openDuring).toBe(1);
    expect(journal.open()).toEqual([]);
    expect(ledger.effects(intent.key)).toBe(1);
  });

  it.each([
    ['throws an Error', new TypeError('db down'), 'TypeError'],
    ['rejects with a string', 'db down', 'string'],
  ])('%s: the intent stays open, reclaimable, and a line says so', async (_, thrown, error) => {
    at(T0);
    const intent = await lost();
    at(T0 + HOUR);
    const report = await client().recover({
      minAgeMs: 0,
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a callback may reject with anything
      onIntent: () => Promise.reject(thrown),
    });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'resent', settled: false, reclaimableAt: T0 + HOUR + 300_000 })]);
    expect(journal.open()).toEqual([intent]);
    expect(logs.filter((l) => l.message.startsWith('recovery: onIntent'))).toEqual([
      {
        level: 'warn',
        message: 'recovery: onIntent failed; the intent stays open and the next recover() hands it over again',
        fields: { ...fieldsOf(intent), error },
      },
    ]);
  });

  it('must be a function', async () => {
    const err = await failure(client().recover({ onIntent: 'store' as unknown as () => void }));
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toBe('onIntent: must be a function.');
  });

  it('a settle that fails leaves the intent open, reclaimable, and a line says the next recover() handles it', async () => {
    at(T0);
    const intent = await lost();
    const stuck = handingOut([intent], { settle: () => Promise.reject(new Error('timeout')) });
    at(T0 + HOUR);
    const report = await client({ journal: stuck.journal }).recover({ minAgeMs: 0, leaseMs: 5000 });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'resent', settled: false, reclaimableAt: T0 + HOUR + 5000 })]);
    expect(logs.filter((l) => l.message.startsWith('recovery: the intent'))).toEqual([
      {
        level: 'warn',
        message: 'recovery: the intent could not be settled; the next recover() handles it again (a resend gets the same answer)',
        fields: fieldsOf(intent),
      },
    ]);
  });

  it('an outcome that does not settle is not settled even when onIntent succeeds', async () => {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const skipped = { ...intent, endpoint: 'member.widgets.polish' };
    await journal.record(skipped);
    const handed: RecoveredIntent[] = [];
    await client().recover({ minAgeMs: 0, onIntent: (e) => void handed.push(e) });
    expect(handed).toEqual([expect.objectContaining({ outcome: 'skipped', settled: false })]);
    expect(journal.open()).toEqual([skipped]);
  });
});

describe('records a journal cannot read', () => {
  /** The problem recovery reports for each record, in order, and what it logged. */
  async function problems(records: readonly unknown[]) {
    const report = await client({ journal: handingOut(records).journal }).recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([]);
    return report.unreadable;
  }

  async function template(): Promise<JournalIntent> {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    return intent;
  }

  it.each([
    ['key', { key: undefined }],
    ['key', { key: '' }],
    ['key', { key: 7 }],
    ['scope', { scope: '' }],
    ['endpoint', { endpoint: null }],
    ['method', { method: '' }],
    ['path', { path: undefined }],
    ['body', { body: 3 }],
    ['body', { body: undefined }],
    ['member', { member: 42 }],
    ['withheld', { withheld: 'no' }],
    ['withheld', { withheld: undefined }],
    ['createdAt', { createdAt: '1764237600000' }],
    ['createdAt', { createdAt: Number.NaN }],
    ['createdAt', { createdAt: Number.POSITIVE_INFINITY }],
  ])('a record whose %s is missing or mistyped (%o)', async (field, change) => {
    const base = await template();
    const record = { ...base, ...change };
    const [entry] = await problems([record]);
    expect(entry).toEqual({
      unreadable: true,
      key: typeof record.key === 'string' ? record.key : undefined,
      scope: base.scope,
      problem: `missing or mistyped field: ${field}`,
    });
    expect(Object.isFrozen(entry)).toBe(true);
  });

  it('several fields wrong: all named, in order', async () => {
    const base = await template();
    const [entry] = await problems([{ ...base, scope: 1, path: '', member: undefined, createdAt: null }]);
    expect(entry!.problem).toBe('missing or mistyped fields: scope, path, member, createdAt');
  });

  it('a record with body and member null, and withheld false, reads as an intent', async () => {
    const base = await template();
    const record = { ...base, key: keyOf(3), body: null, member: null, endpoint: 'member.widgets.polish' };
    const report = await client({ journal: handingOut([record]).journal }).recover({ minAgeMs: 0 });
    expect(report.unreadable).toEqual([]);
    expect(report.intents).toEqual([expect.objectContaining({ intent: record, outcome: 'skipped' })]);
  });

  it('what is not an object at all: null, an array, a string, a number', async () => {
    const base = await template();
    const entries = await problems([null, [base], 'garbage', 12]);
    expect(entries).toEqual(
      ['not an object', 'not an object', 'not an object', 'not an object'].map((problem) => ({
        unreadable: true,
        key: undefined,
        scope: base.scope,
        problem,
      })),
    );
  });

  it('records without a key are told apart by their content, and the same one twice in a row ends the run', async () => {
    const base = await template();
    const a = { note: 'a' };
    const b = { note: 'b' };
    const faulty = handingOut([a, b, a, a, { ...base, key: keyOf(5) }]);
    const report = await client({ journal: faulty.journal }).recover({ minAgeMs: 0 });
    expect(report.unreadable.map((u) => u.problem)).toEqual([
      'missing or mistyped fields: key, scope, endpoint, method, path, body, member, withheld, createdAt',
      'missing or mistyped fields: key, scope, endpoint, method, path, body, member, withheld, createdAt',
    ]);
    expect(report.intents).toEqual([]);
    expect(faulty.claims()).toBe(4);
  });

  it("the journal's own unreadable record is reported as the journal gave it", async () => {
    const base = await template();
    const own: UnreadableJournalRecord = { unreadable: true, key: keyOf(4), scope: base.scope, problem: 'checksum mismatch' };
    const [entry] = await problems([own]);
    expect(entry).toBe(own);
    // Even with every field of an intent, the flag decides.
    const flagged = { ...base, key: keyOf(6), unreadable: true, problem: 'written by SDK 9' };
    const [second] = await problems([flagged]);
    expect(second).toBe(flagged);
    expect(ledger.received(keyOf(6))).toEqual([]);
  });

  it('is logged at warn with its key and problem, escaped, never its content', async () => {
    const base = await template();
    await problems([
      { unreadable: true, key: 'k\n1', scope: base.scope, problem: 'bad\tcrc' },
      { ...base, key: 9, body: '{"to_address":"TQ7x1Vb9"}', withheld: 1 },
    ]);
    expect(logs.filter((l) => l.message.startsWith('recovery: an unreadable'))).toEqual([
      {
        level: 'warn',
        message: 'recovery: an unreadable journal record was set aside (not sent, left open for a person to read)',
        fields: { idempotencyKey: 'k\\u000a1', problem: 'bad\\u0009crc' },
      },
      {
        level: 'warn',
        message: 'recovery: an unreadable journal record was set aside (not sent, left open for a person to read)',
        fields: { problem: 'missing or mistyped fields: key, withheld' },
      },
    ]);
    expect(JSON.stringify(logs)).not.toContain('TQ7x1Vb9');
  });
});

describe('a journal that hands a record out again', () => {
  it('passes over a record back after its lease, and stops only when it comes back twice in a row', async () => {
    at(T0);
    const [a, b, c] = [await lost(), await lost(), await lost()];
    for (const i of [a, b, c]) await journal.settle(i.scope, i.key);
    ledger.interpose('withdrawal', () => apiError(504, 'upstream_timeout'));
    at(T0 + HOUR);
    // A left open, back once; B; A back once again; C; then A for good.
    const faulty = handingOut([a, a, b, a, c, a, a, a]);
    const report = await client({ journal: faulty.journal, maxRetries: 0 }).recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => r.intent.key)).toEqual([a.key, b.key, c.key]);
    expect(faulty.claims()).toBe(7);
  });
});

describe('a record is known by its key', () => {
  it('the same key back with other content is the same intent: not sent twice in one run', async () => {
    at(T0);
    const intent = await lost();
    ledger.interpose('withdrawal', () => apiError(504, 'upstream_timeout'));
    at(T0 + HOUR);
    // A journal that stamps each hand-out (a claim counter): the record's content changes, its key does not.
    const faulty = handingOut([intent, { ...intent, createdAt: intent.createdAt + 1 }, intent]);
    const report = await client({ journal: faulty.journal, maxRetries: 0 }).recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => r.intent.key)).toEqual([intent.key]);
    expect(ledger.received(intent.key)).toHaveLength(2);
    expect(faulty.claims()).toBe(3);
  });
});

describe('a journal that fails mid-run', () => {
  it('ends the recovery with every outcome so far, in the error and at warn', async () => {
    at(T0);
    const settledOne = await lost();
    at(T0 + 1);
    const openOne = await lost();
    ledger.interpose('withdrawal', (req) =>
      req.headers['x-idempotency-key'] === openOne.key ? apiError(504, 'upstream_timeout') : undefined,
    );
    const cause = new Error('connection lost');
    let claims = 0;
    const failing: IntentJournal = {
      record: (i) => journal.record(i),
      settle: (s, k) => journal.settle(s, k),
      claim: (r) => (claims++ < 2 ? journal.claim(r) : Promise.reject(cause)),
      openAfter: () => Promise.resolve({ total: 0, intents: [] }),
    };
    at(T0 + HOUR);
    const err = (await failure(client({ journal: failing, maxRetries: 0 }).recover({ minAgeMs: 0 }))) as RecoveryInterruptedError;
    expect(err).toBeInstanceOf(RecoveryInterruptedError);
    expect(err.name).toBe('RecoveryInterruptedError');
    expect(err.message).toBe(
      "recover() stopped: the journal could not claim the next intent (Error). The 2 outcome(s) before are in this error's report; the intents not reached stay open.",
    );
    expect(err.cause).toBe(cause);
    expect(err.report.intents.map((r) => [r.intent.key, r.outcome, r.settled])).toEqual([
      [settledOne.key, 'resent', true],
      [openOne.key, 'failed', false],
    ]);
    expect(err.report.unreadable).toEqual([]);
    expect(err.report.leftForLater).toBeUndefined();
    expect(logs.filter((l) => l.message.startsWith('recovery: interrupted'))).toEqual([
      {
        level: 'warn',
        message: 'recovery: interrupted, the journal could not claim the next intent; the rest stay open for the next recover()',
        fields: { handled: `${settledOne.key} resent wdr_1; ${openOne.key} failed (open)`, error: 'Error' },
      },
    ]);
  });

  it('at the first claim, with a cause that is not an Error: nothing handled, the unreadable records kept', async () => {
    const base = await lost();
    let claims = 0;
    const failing: IntentJournal = {
      record: (i) => journal.record(i),
      settle: (s, k) => journal.settle(s, k),
      claim: () =>
        claims++ === 0
          ? Promise.resolve([null as unknown as ClaimedRecord])
          : // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a store client may reject with a code string
            Promise.reject('ECONNRESET'),
    };
    const err = (await failure(client({ journal: failing }).recover({ minAgeMs: 0 }))) as RecoveryInterruptedError;
    expect(err.message).toBe(
      "recover() stopped: the journal could not claim the next intent (error). The 0 outcome(s) before are in this error's report; the intents not reached stay open.",
    );
    expect(err.cause).toBe('ECONNRESET');
    expect(err.report).toEqual({
      intents: [],
      unreadable: [{ unreadable: true, key: undefined, scope: base.scope, problem: 'not an object' }],
      leftForLater: undefined,
    });
    expect(logs.find((l) => l.message.startsWith('recovery: interrupted'))?.fields).toEqual({ handled: 'none', error: 'string' });
  });

  it('a claim that answers something other than a list ends the run quietly', async () => {
    await lost();
    const odd: IntentJournal = {
      record: (i) => journal.record(i),
      settle: (s, k) => journal.settle(s, k),
      claim: () => Promise.resolve({ 0: journal.open()[0] } as unknown as ClaimedRecord[]),
    };
    const report = await client({ journal: odd }).recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([]);
    expect(journal.open()).toHaveLength(1);
  });
});

describe('a signal that stops the recovery', () => {
  it('aborts the resend in flight (left open) and claims nothing more', async () => {
    at(T0);
    const first = await lost();
    at(T0 + 1);
    const second = await lost();
    const stop = new AbortController();
    ledger.interpose('withdrawal', () => {
      stop.abort(new Error('shutting down'));
      return new Promise(() => undefined);
    });
    at(T0 + HOUR);
    const report = await client({ timeoutMs: 10_000 }).recover({ minAgeMs: 0, signal: stop.signal });
    const [entry] = report.intents as IntentFailed[];
    expect(report.intents).toHaveLength(1);
    expect(entry!.intent).toEqual(first);
    expect(entry!.error).toBeInstanceOf(AbortError);
    expect(entry).toMatchObject({ outcome: 'failed', settled: false });
    expect(journal.open().map((i) => i.key)).toEqual([first.key, second.key]);
    expect(ledger.received(second.key)).toHaveLength(1);
  });

  it('stops between intents when onIntent aborts it', async () => {
    at(T0);
    const first = await lost();
    at(T0 + 1);
    const second = await lost();
    const stop = new AbortController();
    const report = await client().recover({ minAgeMs: 0, signal: stop.signal, onIntent: () => stop.abort() });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([[first.key, 'resent']]);
    expect(journal.open()).toEqual([second]);
  });
});

describe('the resend', () => {
  it('a record with no body is sent with no body', async () => {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const confirm = { ...intent, endpoint: 'member.withdrawals.confirm', path: '/v1/withdrawals/wdr_1/confirm', body: null, member: null };
    await journal.record(confirm);
    ledger.server.on('POST', '/v1/withdrawals/wdr_1/confirm', { status: 200, body: { id: 'wdr_1', status: 'confirmed' } });
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'resent', result: { id: 'wdr_1', status: 'confirmed' } })]);
    const [sent] = ledger.received(intent.key).filter((r) => r.url === confirm.path);
    expect(sent!.body.length).toBe(0);
    expect(sent!.signatureValid).toBe(true);
    // Sent without naming a member, as recorded (the endpoint may act for none).
    expect(sent!.headers['x-on-behalf-of']).toBeUndefined();
  });

  it('a merchant conversion names no member', async () => {
    ledger.interpose('conversion', () => ({ reset: true }));
    const conversion = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' };
    const err = (await failure(client({ maxRetries: 0 }).merchant.conversions.create(conversion))) as { idempotencyKey: string };
    ledger.interpose('conversion', undefined);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'resent', result: expect.objectContaining({ id: 'mcv_1' }) })]);
    const [, again] = ledger.received(err.idempotencyKey);
    expect(again!.headers['x-on-behalf-of']).toBeUndefined();
    expect(again!.body.toString('utf8')).toBe(JSON.stringify(conversion));
  });

  it("under a base path: matched literally, sent to the record's own path, admitted in the endpoint's bucket", async () => {
    const base = `${ledger.url}/gw.v2`;
    ledger.server.on('POST', '/gw.v2/v1/connect/token', () => ({
      body: { auth_token: 'tok_gw', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    }));
    ledger.server.on('POST', '/gw.v2/v1/deposits', { reset: true });
    const buckets: string[] = [];
    const limiter: RequestLimiter = { acquire: (bucket) => (buckets.push(bucket), Promise.resolve()) };
    const prefixed = client({ baseUrl: base, limiter, maxRetries: 0 });
    const err = (await failure(prefixed.member(MEMBER).deposits.declare({ asset: 'USDT', amount: '5', tx_hash: '0xabc' }))) as {
      idempotencyKey: string;
    };
    const [intent] = journal.open();
    expect(intent!.path).toBe('/gw.v2/v1/deposits');
    await journal.settle(intent!.scope, intent!.key);
    // The same record under a path where the prefix's dot is any other character: not its path.
    const lookalike = { ...intent!, key: keyOf(8), path: '/gwXv2/v1/deposits', createdAt: intent!.createdAt + 1 };
    await journal.record(intent!);
    await journal.record(lookalike);
    ledger.server.on('POST', '/gw.v2/v1/deposits', { status: 201, body: { id: 'dep_1' } });
    buckets.length = 0;
    const report = await client({ baseUrl: base, limiter }).recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([
      [err.idempotencyKey, 'resent'],
      [lookalike.key, 'skipped'],
    ]);
    expect((report.intents[1] as IntentToCheck).check).toBe(`not sent by this client (its path does not match /v1/deposits): ${BALANCES}`);
    expect(buckets).toEqual(['deposits']);
    expect(ledger.server.calls().filter((c) => c.url === '/gw.v2/v1/deposits')).toHaveLength(2);
  });

  it('an upper-case key of the right shape, a path parameter with dots, and an optional member left out are all sent', async () => {
    const intent = await lost();
    await journal.settle(intent.scope, intent.key);
    const upper = { ...intent, key: '0A9F0A9F-0A9F-4A9F-8A9F-0A9F0A9F0A9F' };
    const dotted = {
      ...intent,
      key: keyOf(11),
      endpoint: 'member.cards.topUp',
      path: '/v1/cards/..crd/topups',
      createdAt: intent.createdAt + 1,
    };
    const optional = {
      ...intent,
      key: keyOf(12),
      endpoint: 'member.withdrawals.fail',
      path: '/v1/withdrawals/wdr_1/fail',
      member: null,
      createdAt: intent.createdAt + 2,
    };
    for (const r of [upper, dotted, optional]) await journal.record(r);
    ledger.server.on('POST', '/v1/cards/..crd/topups', {
      status: 201,
      body: { id: 'ctp_9', card_id: '..crd', amount: '1', status: 'pending' },
    });
    ledger.server.on('POST', '/v1/withdrawals/wdr_1/fail', { status: 200, body: { id: 'wdr_1', status: 'failed' } });
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([
      [upper.key, 'resent'],
      [dotted.key, 'resent'],
      [optional.key, 'resent'],
    ]);
  });
});

describe("MemoryJournal's leases, on the monotonic clock", () => {
  const record = (key: string, createdAt: number): JournalIntent => ({
    key,
    scope: 's1',
    endpoint: 'member.withdrawals.create',
    method: 'POST',
    path: '/v1/withdrawals',
    body: '{}',
    withheld: false,
    member: MEMBER,
    createdAt,
  });

  it('a claim reserves a record for leaseMs exactly: claimable again at its end, not a millisecond before', async () => {
    const now = vi.spyOn(performance, 'now').mockReturnValue(1000);
    const j = new MemoryJournal();
    await j.record(record('a', 100));
    const claim = () => j.claim({ scope: 's1', createdBefore: 100, leaseMs: 100, limit: 1 });
    expect((await claim()).map((r) => r.key)).toEqual(['a']);
    now.mockReturnValue(1099);
    expect(await claim()).toEqual([]);
    now.mockReturnValue(1100);
    expect((await claim()).map((r) => r.key)).toEqual(['a']);
  });

  it('claims oldest first whatever the order of the records', async () => {
    const j = new MemoryJournal();
    for (const [key, at] of [
      ['c', 300],
      ['a', 100],
      ['d', 400],
      ['b', 200],
    ] as const)
      await j.record(record(key, at));
    const keys: string[] = [];
    for (let n = 0; n < 4; n++)
      keys.push(...(await j.claim({ scope: 's1', createdBefore: 1000, leaseMs: 60_000, limit: 1 })).map((r) => r.key!));
    expect(keys).toEqual(['a', 'b', 'c', 'd']);
    expect(j.open().map((i) => i.key)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('openAfter lists the younger records of the scope, oldest first, at most limit, and counts them all', async () => {
    const j = new MemoryJournal();
    for (const [key, at] of [
      ['c', 300],
      ['a', 100],
      ['b', 200],
    ] as const)
      await j.record(record(key, at));
    await j.record({ ...record('x', 250), scope: 's2' });
    expect(await j.openAfter({ scope: 's1', createdAfter: 100, limit: 1 })).toEqual({ total: 2, intents: [record('b', 200)] });
    expect(await j.openAfter({ scope: 's2', createdAfter: 0, limit: 5 })).toEqual({
      total: 1,
      intents: [{ ...record('x', 250), scope: 's2' }],
    });
    expect(await j.openAfter({ scope: 's1', createdAfter: 300, limit: 5 })).toEqual({ total: 0, intents: [] });
  });
});

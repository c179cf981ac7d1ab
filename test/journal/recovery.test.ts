/**
 * `client.recover()` in one process, over real sockets (the ledger service counts executions
 * per key): what is sent again and how, what is reported instead, the 24-hour window on a
 * controllable clock (`Date.now` stubbed: the wall clock is the only one recovery reads), and
 * what an operator sees in the logs and the trace.
 */
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InvalidArgumentError,
  MemoryJournal,
  type IntentFailed,
  type IntentResent,
  type IntentJournal,
  type IntentToCheck,
  type LogFields,
  type MerchantClientOptions,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { apiError, CLIENT_ID, WITHDRAWAL } from '../helpers/wire-server.js';
import { ROUTES, startLedger, type Ledger } from './helpers/ledger.js';

const MEMBER = 'ext-member-42';
const HOUR = 60 * 60 * 1000;

const spans = new InMemorySpanExporter();
beforeAll(() => {
  otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
});

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
  spans.reset();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await ledger.close();
});

/** A client of the ledger on `journal`; each call of this function is a new "process" (a fresh client). */
function client(options: Partial<MerchantClientOptions> = {}) {
  // Recovery's outcome lines are at info, under the default level (warn): asked for here.
  return wireClient(ledger.url, { journal, logger, logLevel: 'info', telemetry: { api: otel }, ...options });
}

/** A withdrawal whose answer is lost: the connection is reset before the service executes it. */
async function lostBeforeExecution(params: Record<string, unknown> = WITHDRAWAL): Promise<string> {
  ledger.interpose('withdrawal', () => ({ reset: true }));
  const err = (await failure(
    client({ maxRetries: 0 })
      .member(MEMBER)
      .withdrawals.create(params as typeof WITHDRAWAL),
  )) as {
    idempotencyKey: string;
  };
  ledger.interpose('withdrawal', undefined);
  return err.idempotencyKey;
}

/**
 * A withdrawal the service executed but whose answer never arrived: the caller gives up (aborts)
 * once the service has executed it, whatever the machine's speed.
 */
async function lostAfterExecution(): Promise<string> {
  const executed = ledger.holdAnswer('withdrawal');
  const giveUp = new AbortController();
  void executed.then(() => giveUp.abort());
  const err = await failure(client({ maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL, { signal: giveUp.signal }));
  expect(err).toMatchObject({ name: 'AbortError', call: { sent: 'maybe' } });
  return executed;
}

describe('recover() sends open intents again', () => {
  it('executes once what never reached the service, and replays what it had executed', async () => {
    const neverRan = await lostBeforeExecution();
    const ran = await lostAfterExecution();
    expect([ledger.effects(neverRan), ledger.effects(ran)]).toEqual([0, 1]);
    expect(journal.open().map((i) => i.key)).toEqual([neverRan, ran]);

    const report = await client().recover({ minAgeMs: 0 });

    expect(report.intents.map((r) => [r.intent.key, r.outcome, r.settled])).toEqual([
      [neverRan, 'resent', true],
      [ran, 'resent', true],
    ]);
    const [first, second] = report.intents as IntentResent[];
    expect(first!.result).toMatchObject({ id: 'wdr_2', status: 'locked', ...WITHDRAWAL });
    expect(first!.response.replayed).toBe(false);
    expect(second!.result).toMatchObject({ id: 'wdr_1' });
    expect(second!.response.replayed).toBe(true);
    expect(second!.response.idempotencyKey).toBe(ran);
    expect([ledger.effects(neverRan), ledger.effects(ran)]).toEqual([1, 1]);
    expect(journal.open()).toEqual([]);
  });

  it('sends the exact body bytes with the same key, a fresh nonce and a valid signature', async () => {
    const params = { asset: 'USDT', amount: '1.50', to_address: 'T-é-💸-"quoted"-\\u0041' };
    const key = await lostBeforeExecution(params);
    await client().recover({ minAgeMs: 0 });
    const [first, again] = ledger.received(key);
    expect(again!.body.equals(first!.body)).toBe(true);
    expect(again!.headers['x-idempotency-key']).toBe(key);
    expect(again!.headers['x-on-behalf-of']).toBe(MEMBER);
    expect(again!.headers['x-nonce']).not.toBe(first!.headers['x-nonce']);
    expect(again!.signatureValid).toBe(true);
    expect(ledger.effects(key)).toBe(1);
  });

  it('logs a resend at info (the order id included, before the settle), and traces each resend as a span of its own', async () => {
    const key = await lostBeforeExecution();
    logs.length = 0;
    spans.reset();
    await client().recover({ minAgeMs: 0 });
    const line = logs.find((l) => l.message === 'recovery: intent resent');
    expect(line).toMatchObject({
      level: 'info',
      fields: {
        endpoint: 'member.withdrawals.create',
        method: 'POST',
        idempotencyKey: key,
        settles: true,
        replayed: false,
        orderId: 'wdr_1',
      },
    });
    expect(line!.fields!['recordedAt']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(JSON.stringify(logs)).not.toContain(WITHDRAWAL.to_address);
    expect(JSON.stringify(logs)).not.toContain(MEMBER);
    const resent = spans.getFinishedSpans().filter((s) => s.name === 'recover member.withdrawals.create');
    expect(resent).toHaveLength(1);
    expect(resent[0]!.attributes['merchant_stablecoin.idempotency_key']).toBe(key);
  });

  it('settles a resend the service answers with a business failure, and keeps one whose outcome is still unknown', async () => {
    const refused = await lostBeforeExecution();
    const unknown = await lostBeforeExecution();
    ledger.interpose('withdrawal', (req) =>
      req.headers['x-idempotency-key'] === refused ? apiError(400, 'insufficient_balance') : apiError(504, 'upstream_timeout'),
    );
    const recovering = client({ maxRetries: 0 });
    const report = await recovering.recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome, r.settled])).toEqual([
      [refused, 'failed', true],
      [unknown, 'failed', false],
    ]);
    expect((report.intents[0] as IntentFailed).error).toMatchObject({ code: 'insufficient_balance' });
    expect(journal.open().map((i) => i.key)).toEqual([unknown]);
    // Still claimed by that recovery (lease): a second pass leaves it alone until the lease ends.
    expect((await recovering.recover({ minAgeMs: 0 })).intents).toEqual([]);
    expect((await recovering.recover({ minAgeMs: 0, leaseMs: 1 })).intents).toEqual([]);
  });

  it('leaves alone intents younger than minAgeMs (five minutes by default): they may be in flight elsewhere', async () => {
    await lostBeforeExecution();
    expect((await client().recover()).intents).toEqual([]);
    expect(journal.open()).toHaveLength(1);
  });

  it("recovers only its own scope: another client id's or base URL's intents are not its to send", async () => {
    const key = await lostBeforeExecution();
    expect((await client({ clientId: `${CLIENT_ID}_2` }).recover({ minAgeMs: 0 })).intents).toEqual([]);
    expect((await client({ baseUrl: `${ledger.url}/prefix` }).recover({ minAgeMs: 0 })).intents).toEqual([]);
    expect(ledger.received(key)).toHaveLength(1);
  });

  it('two clients recovering together send each intent once', async () => {
    const keys = [await lostBeforeExecution(), await lostBeforeExecution(), await lostBeforeExecution()];
    const reports = await Promise.all([client().recover({ minAgeMs: 0 }), client().recover({ minAgeMs: 0 })]);
    const resent = reports.flatMap((r) => r.intents.map((i) => i.intent.key));
    expect(resent.sort()).toEqual([...keys].sort());
    for (const key of keys) expect(ledger.received(key)).toHaveLength(2);
  });
});

describe('recover() reports instead of sending', () => {
  it.each([
    ['a reset after sending (OutcomeUnknownError)', () => ({ reset: true })],
    ['a 500 (retryClass never there: a resend could be one more counted failure)', () => apiError(500, 'api_error')],
  ])('a card activation left open by %s: reported for a check of the card, never sent again', async (_, reply) => {
    ledger.interpose('activation', reply);
    // The client's retries stay on: the lockout, not maxRetries, is what stops the resend.
    await failure(client().member(MEMBER).cards.activate('crd_1', { expiry: '08/29', pin: '8642' }));
    ledger.interpose('activation', undefined);
    expect(journal.open()).toHaveLength(1);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toHaveLength(1);
    const [entry] = report.intents as IntentToCheck[];
    expect(entry).toMatchObject({ outcome: 'withheld', settled: true });
    // The descriptor's lockout check, naming this card.
    expect(entry!.check).toBe(
      'read the card (GET /v1/cards/crd_1): `active` means it succeeded; any other status cannot tell a counted failure from a request never processed, so ask the user to check the expiry and PIN before a new attempt',
    );
    expect(ledger.server.calls().filter((c) => c.url === ROUTES.activation)).toHaveLength(1);
    expect(journal.open()).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: 'recovery: intent withheld',
        fields: expect.objectContaining({ check: entry!.check }),
      }),
    );
  });

  it('an activation recorded with its body (as no version of the SDK writes it) is still never sent: the lockout decides', async () => {
    await lostBeforeExecution();
    const [known] = journal.open();
    await journal.settle(known!.scope, known!.key);
    await journal.record({
      ...known!,
      endpoint: 'member.cards.activate',
      path: ROUTES.activation,
      body: '{"expiry":"08/29"}',
      withheld: false,
    });
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'withheld', settled: true })]);
    expect(ledger.server.calls().filter((c) => c.url === ROUTES.activation)).toEqual([]);
  });

  it('an endpoint this SDK version does not know: skipped, left open for a version that does', async () => {
    await lostBeforeExecution();
    const [known] = journal.open();
    await journal.settle(known!.scope, known!.key);
    await journal.record({ ...known!, key: '00000000-0000-4000-8000-000000000001', endpoint: 'member.widgets.polish' });
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([expect.objectContaining({ outcome: 'skipped', settled: false })]);
    expect((report.intents[0] as IntentToCheck).check).toMatch(/endpoint unknown to this SDK version/);
    expect(journal.open()).toHaveLength(1);
    expect(ledger.server.calls()).toHaveLength(1);
  });
});

describe('recover() with a faulty journal', () => {
  it('sends nothing of another scope a journal hands out, and stops when it hands out the same intent twice in a row', async () => {
    await lostBeforeExecution();
    const [mine] = journal.open();
    const foreign = { ...mine!, key: '00000000-0000-4000-8000-00000000000f', scope: 'f'.repeat(32) };
    let claims = 0;
    const faulty: IntentJournal = {
      record: (i) => journal.record(i),
      settle: (scope, key) => journal.settle(scope, key),
      // Ignores scopes and leases: the foreign intent first, then the same one for ever.
      claim: () => Promise.resolve([claims++ === 0 ? foreign : mine!]),
    };
    const report = await client({ journal: faulty }).recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome])).toEqual([
      [foreign.key, 'skipped'],
      [mine!.key, 'resent'],
    ]);
    expect((report.intents[0] as IntentToCheck).check).toMatch(/another scope/);
    expect(ledger.received(foreign.key)).toEqual([]);
    expect(ledger.effects(mine!.key)).toBe(1);
    // Handled, then back twice in a row (a lease-respecting journal would have leased it again
    // by the first return): the fourth claim is the last.
    expect(claims).toBe(4);
  });
});

describe('the 24-hour window, on a controllable clock', () => {
  /** Runs `fn` with `Date.now()` at `at` (Unix ms). */
  function at(time: number): void {
    vi.spyOn(Date, 'now').mockReturnValue(time);
  }

  it('an intent older than the window minus the margin is reported, never sent; one just inside is sent', async () => {
    const t0 = Date.now();
    at(t0);
    const old = await lostBeforeExecution();
    at(t0 + 10 * 60 * 1000);
    const recent = await lostBeforeExecution();
    // 23 h after the first: the first is at the end of the window less the default 1-hour margin.
    at(t0 + 23 * HOUR);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.intent.key, r.outcome, r.settled])).toEqual([
      [old, 'expired', true],
      [recent, 'resent', true],
    ]);
    expect((report.intents[0] as IntentToCheck).check).toMatch(/GET \/v1\/balances \(same member; a withdrawal sits in withdrawing\)/);
    expect(ledger.received(old)).toHaveLength(1);
    expect(ledger.effects(old)).toBe(0);
    expect(ledger.effects(recent)).toBe(1);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', message: 'recovery: intent expired' }));
  });

  it('the margin is an option: with none, an intent is sent up to the 24th hour', async () => {
    const t0 = Date.now();
    at(t0);
    const key = await lostBeforeExecution();
    at(t0 + 24 * HOUR - 1);
    expect((await client().recover({ minAgeMs: 0, windowMarginMs: 0 })).intents[0]!.outcome).toBe('resent');
    expect(ledger.effects(key)).toBe(1);
  });

  it('a merchant conversion past the window: reported with the merchant balances to check', async () => {
    const t0 = Date.now();
    at(t0);
    ledger.interpose('conversion', () => ({ reset: true }));
    await failure(client({ maxRetries: 0 }).merchant.conversions.create({ from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' }));
    at(t0 + 25 * HOUR);
    const [entry] = (await client().recover({ minAgeMs: 0 })).intents as IntentToCheck[];
    expect(entry).toMatchObject({ outcome: 'expired', check: expect.stringMatching(/GET \/v1\/merchant\/balances/) });
  });
});

describe('recover() arguments', () => {
  it('needs a journal, and valid options', async () => {
    await expect(wireClient(ledger.url).recover()).rejects.toThrow(InvalidArgumentError);
    await expect(client().recover({ minAgeMs: -1 })).rejects.toThrow(/minAgeMs: must be a non-negative integer/);
    await expect(client().recover({ leaseMs: 0 })).rejects.toThrow(/leaseMs: must be a positive integer/);
    await expect(client().recover({ windowMarginMs: 1.5 })).rejects.toThrow(/windowMarginMs/);
  });

  it('an aborted signal stops before claiming', async () => {
    await lostBeforeExecution();
    expect((await client().recover({ minAgeMs: 0, signal: AbortSignal.abort() })).intents).toEqual([]);
    expect(journal.open()).toHaveLength(1);
  });
});

/**
 * The intent journal in one process, over real sockets (the ledger service): which calls are
 * recorded, what a record holds, when it is settled and when it stays open, and what a failing
 * journal does to the call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortError,
  ApiError,
  CallInterruptedError,
  OutcomeUnknownError,
  TimeoutError,
  MemoryJournal,
  type MerchantSdkError,
  type IntentJournal,
  type JournalClaimRequest,
  type JournalIntent,
  type LogFields,
  type MerchantClientOptions,
} from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { API_KEY, apiError, SIGNING_KEY, WITHDRAWAL } from '../helpers/wire-server.js';
import { ROUTES, startLedger, type Ledger } from './helpers/ledger.js';

const MEMBER = 'ext-member-42';
const PIN = '8642';

let ledger: Ledger;
beforeEach(async () => {
  ledger = await startLedger();
});
afterEach(async () => {
  await ledger.close();
});

/** A journal that remembers what the service had received when each record was made. */
class WatchedJournal extends MemoryJournal {
  readonly seenAtRecord: number[] = [];
  override record(intent: JournalIntent): Promise<void> {
    this.seenAtRecord.push(ledger.server.requests.length);
    return super.record(intent);
  }
}

function client(journal: IntentJournal, options: Partial<MerchantClientOptions> = {}) {
  return wireClient(ledger.url, { journal, ...options });
}

describe('what the journal records', () => {
  it('records a withdrawal before its first byte is sent, with its exact bytes, and settles it on the 201', async () => {
    const journal = new WatchedJournal();
    const recorded: JournalIntent[] = [];
    const spy: IntentJournal = {
      record: (i) => {
        recorded.push(i);
        return journal.record(i);
      },
      settle: (s, k) => journal.settle(s, k),
      claim: (r) => journal.claim(r),
    };
    const before = Date.now();
    const { data, response } = await client(spy).member(MEMBER).withdrawals.create(WITHDRAWAL).withResponse();
    expect(data.id).toBe('wdr_1');
    // Nothing had reached the service (not even the token exchange) when the intent was written.
    expect(journal.seenAtRecord).toEqual([0]);
    const [intent] = recorded;
    const sent = ledger.received(response.idempotencyKey!)[0]!;
    expect(intent).toEqual({
      key: response.idempotencyKey,
      scope: expect.stringMatching(/^[0-9a-f]{32}$/),
      endpoint: 'member.withdrawals.create',
      method: 'POST',
      path: '/v1/withdrawals',
      body: sent.body.toString('utf8'),
      withheld: false,
      member: MEMBER,
      createdAt: expect.any(Number),
    });
    expect(Buffer.from(intent!.body!, 'utf8').equals(sent.body)).toBe(true);
    expect(intent!.createdAt).toBeGreaterThanOrEqual(before);
    expect(Object.isFrozen(intent)).toBe(true);
    // Nothing of the credentials or of the attempt's signature: only what the merchant sent.
    const stored = JSON.stringify(journal.open().concat(recorded));
    for (const secret of [API_KEY, SIGNING_KEY, 'tok_', sent.headers['x-signature']!, sent.headers['x-nonce']!])
      expect(stored).not.toContain(secret);
    expect(journal.open()).toEqual([]);
  });

  it('records a merchant conversion and a card top-up (money moves), not a read or a call that moves nothing', async () => {
    const journal = new MemoryJournal();
    const recorded: string[] = [];
    const spy: IntentJournal = {
      record: (i) => (recorded.push(i.endpoint), journal.record(i)),
      settle: (s, k) => journal.settle(s, k),
      claim: (r) => journal.claim(r),
    };
    const c = client(spy);
    ledger.server.on('GET', '/v1/balances', { body: { data: [], next_cursor: null, has_more: false } });
    ledger.server.on('PATCH', '/v1/cards/crd_1/limits', { body: { id: 'crd_1', accepted: true } });
    await c.merchant.conversions.create({ from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' });
    await c.member(MEMBER).cards.topUp('crd_1', { amount: '5.00' });
    await c.member(MEMBER).balances.list();
    await c.member(MEMBER).cards.updateLimits('crd_1', { single: '100' });
    expect(recorded).toEqual(['merchant.conversions.create', 'member.cards.topUp']);
    expect(journal.open()).toEqual([]);
  });

  it('keeps no body for a card activation: the PIN is never in the journal', async () => {
    const journal = new MemoryJournal();
    ledger.interpose('activation', () => ({ reset: true }));
    const err = await failure(client(journal, { maxRetries: 0 }).member(MEMBER).cards.activate('crd_1', { expiry: '08/29', pin: PIN }));
    expect((err as MerchantSdkError).call?.sent).toBe('maybe');
    const [intent] = journal.open();
    expect(intent).toMatchObject({ endpoint: 'member.cards.activate', path: ROUTES.activation, body: null, withheld: true });
    // The PIN standing alone: a random key, scope or timestamp may hold its four digits by chance.
    expect(JSON.stringify(journal.open())).not.toMatch(new RegExp(`(?<![0-9a-fA-F])${PIN}(?![0-9a-fA-F])`));
  });

  it('adds nothing when the client has no journal', async () => {
    const order = await wireClient(ledger.url).member(MEMBER).withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
  });

  it('refuses a journal without the three methods', () => {
    expect(() => client({ record: () => Promise.resolve() } as unknown as IntentJournal)).toThrow(
      /journal: must have record\(\), settle\(\) and claim\(\)/,
    );
  });
});

describe('when an intent is settled, and when it stays open', () => {
  /** Makes one withdrawal that fails as `reply` says, and returns its error and the journal. */
  async function failing(replies: Parameters<Ledger['interpose']>[1], options: Partial<MerchantClientOptions> = {}) {
    const journal = new MemoryJournal();
    ledger.interpose('withdrawal', replies);
    const err = (await failure(client(journal, options).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    return { err, open: journal.open() };
  }

  it.each([
    ['a business failure stored under the key', apiError(400, 'insufficient_balance')],
    ['a do-not-retry answer', apiError(400, 'request_rejected')],
    ['the same key with another body', apiError(409, 'idempotency_key_reused')],
    ['a step-up challenge (the caller holds the key)', apiError(400, 'step_up_required', { challenge_id: 'ch_1' })],
    ['service_unavailable: not executed, and the caller was told so', apiError(400, 'service_unavailable')],
    ['a 403 answering the only attempt', apiError(403, 'insufficient_scope')],
  ])('settles %s', async (_, reply) => {
    const { err, open } = await failing(() => reply);
    expect(err).toBeInstanceOf(ApiError);
    expect(open).toEqual([]);
  });

  it.each([
    ['a 504 after every retry', () => apiError(504, 'upstream_timeout')],
    ['a 500', () => apiError(500, 'api_error')],
    ['409 in progress after every retry', () => apiError(409, 'idempotency_in_progress')],
    ['a reset connection', () => ({ reset: true })],
    ['a proxy page', () => ({ status: 502, body: '<html>bad gateway</html>' })],
    ['an unknown code', () => apiError(500, 'brand_new_code')],
  ])('leaves open %s', async (_, reply) => {
    const { err, open } = await failing(reply);
    expect(err.call?.sent).not.toBe('no');
    expect(open.map((i) => i.key)).toEqual([err.idempotencyKey]);
  });

  it('leaves open a 403 that follows an ambiguous attempt: it says nothing of the 504 before it', async () => {
    const replies = [apiError(504, 'upstream_timeout'), apiError(403, 'insufficient_scope')];
    let n = 0;
    const { err, open } = await failing(() => replies[n++]);
    expect((err as ApiError).code).toBe('insufficient_scope');
    expect(err.call?.attempts).toBe(2);
    expect(open).toHaveLength(1);
  });

  it('settles a business answer that follows an ambiguous attempt: the key has that outcome', async () => {
    const replies = [apiError(504, 'upstream_timeout'), apiError(400, 'insufficient_balance')];
    let n = 0;
    const { open } = await failing(() => replies[n++]);
    expect(open).toEqual([]);
  });

  it("leaves open a failing token renewal after an ambiguous attempt (not the call's own answer)", async () => {
    ledger.server.onToken([
      { body: { auth_token: 'tok_1', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } },
      apiError(401, 'invalid_credentials'),
    ]);
    const replies = [apiError(401, 'invalid_token')];
    const { err, open } = await failing(() => replies.shift() ?? apiError(504, 'upstream_timeout'));
    // The call's own answer was a 401 that executed nothing, but the renewal's 401 is not an
    // answer to the key: it says nothing either way, so the intent stays open.
    expect((err as ApiError).code).toBe('invalid_credentials');
    expect(open).toHaveLength(1);
  });

  it('settles a call that failed before anything was sent', async () => {
    ledger.server.onToken(apiError(401, 'invalid_credentials'));
    const { err, open } = await failing(undefined);
    expect(err.call?.sent).toBe('no');
    expect(open).toEqual([]);
  });

  it('settles a 2xx whose body cannot be read: the money moved', async () => {
    const { err, open } = await failing(() => ({ status: 201, body: '{"id": 1' }));
    expect(err.name).toBe('AcceptedButUnreadableError');
    expect(open).toEqual([]);
  });
});

describe('card activation: settled on a stored answer, left open when it may have executed', () => {
  /** One activation that fails as `reply` says (the client's retries on), and what it left. */
  async function activation(reply: Parameters<Ledger['interpose']>[1]) {
    const journal = new MemoryJournal();
    ledger.interpose('activation', reply);
    const err = (await failure(client(journal).member(MEMBER).cards.activate('crd_1', { expiry: '08/29', pin: PIN }))) as MerchantSdkError;
    return { err, open: journal.open(), sent: ledger.server.calls().filter((c) => c.url === ROUTES.activation).length };
  }

  it.each([
    ['a reset after sending: OutcomeUnknownError', () => ({ reset: true }), OutcomeUnknownError],
    ['a proxy page: OutcomeUnknownError', () => ({ status: 502, body: '<html>bad gateway</html>' }), OutcomeUnknownError],
    ['a 500 (a counted mismatch, not stored under the key)', () => apiError(500, 'api_error'), ApiError],
    ['409 in progress (the first may end in a counted 500)', () => apiError(409, 'idempotency_in_progress'), ApiError],
    ['an unknown code (treated as api_error)', () => apiError(500, 'brand_new_code'), ApiError],
  ])('leaves open %s, sent once', async (_, reply, type) => {
    const { err, open, sent } = await activation(reply);
    expect(err).toBeInstanceOf(type);
    if (err instanceof ApiError) expect(err.retryClass).toBe('never');
    expect(sent).toBe(1);
    expect(open).toEqual([
      expect.objectContaining({ key: err.idempotencyKey, endpoint: 'member.cards.activate', withheld: true, body: null }),
    ]);
  });

  it.each([
    ['a stored business answer (state_invalid)', () => apiError(400, 'state_invalid')],
    ['product_not_available', () => apiError(400, 'product_not_available')],
    ['a 404', () => apiError(404, 'not_found')],
  ])('settles %s', async (_, reply) => {
    const { err, open, sent } = await activation(reply);
    expect(err).toBeInstanceOf(ApiError);
    expect(sent).toBe(1);
    expect(open).toEqual([]);
  });
});

describe("the record is one of the call's waits", () => {
  it("a record that never completes ends at the call's deadline: TimeoutError, nothing sent, the late record settled", async () => {
    const settled: string[] = [];
    const hanging: IntentJournal = {
      record: () => new Promise<void>(() => undefined),
      settle: (_, key) => (settled.push(key), Promise.resolve()),
      claim: () => Promise.resolve([]),
    };
    const err = (await failure(
      client(hanging, { timeoutMs: 200, maxRetries: 1 }).member(MEMBER).withdrawals.create(WITHDRAWAL),
    )) as MerchantSdkError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toMatch(
      /^The call's deadline \(400 ms: timeoutMs 200 × 2 attempts\) passed while the intent journal recorded it, so nothing was sent \(POST \/v1\/withdrawals\)/,
    );
    expect(err.call).toEqual({ idempotencyKey: err.idempotencyKey, sent: 'no', status: undefined, requestId: undefined, attempts: 0 });
    expect(ledger.server.requests).toEqual([]);
    expect(settled).toEqual([err.idempotencyKey]);
  });

  it("the caller's abort ends it too: AbortError, nothing sent", async () => {
    let recording!: () => void;
    const started = new Promise<void>((resolve) => (recording = resolve));
    const hanging: IntentJournal = {
      record: () => (recording(), new Promise<void>(() => undefined)),
      settle: () => Promise.resolve(),
      claim: () => Promise.resolve([]),
    };
    const stop = new AbortController();
    void started.then(() => stop.abort(new Error('shutting down')));
    const err = (await failure(client(hanging).member(MEMBER).withdrawals.create(WITHDRAWAL, { signal: stop.signal }))) as MerchantSdkError;
    expect(err).toBeInstanceOf(AbortError);
    expect(err.call?.sent).toBe('no');
    expect(ledger.server.requests).toEqual([]);
  });

  it('a timeout after sending leaves the intent open', async () => {
    const journal = new MemoryJournal();
    // Executed by nobody, answered never: only the client's deadline ends the call.
    ledger.interpose('withdrawal', () => new Promise(() => undefined));
    const err = (await failure(
      client(journal, { timeoutMs: 200, maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL),
    )) as MerchantSdkError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.call?.sent).toBe('maybe');
    expect(journal.open().map((i) => i.key)).toEqual([err.idempotencyKey]);
  });
});

describe('a failing journal', () => {
  const logs: Array<{ level: string; message: string; fields: LogFields | undefined }> = [];
  const logger = {
    info: (message: string, fields?: LogFields) => logs.push({ level: 'info', message, fields }),
    warn: (message: string, fields?: LogFields) => logs.push({ level: 'warn', message, fields }),
  };
  beforeEach(() => {
    logs.length = 0;
  });

  it('that cannot record: the call fails before sending, and the late record is settled', async () => {
    const settled: string[] = [];
    const broken: IntentJournal = {
      record: () => Promise.reject(new Error('database is read-only')),
      settle: (_, key) => (settled.push(key), Promise.resolve()),
      claim: () => Promise.resolve([]),
    };
    const err = (await failure(client(broken, { logger }).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.message).toMatch(/could not record the call, so nothing was sent/);
    expect((err.cause as Error).message).toBe('database is read-only');
    expect(err.call).toEqual({ idempotencyKey: err.idempotencyKey, sent: 'no', status: undefined, requestId: undefined, attempts: 0 });
    expect(ledger.server.requests).toEqual([]);
    expect(settled).toEqual([err.idempotencyKey]);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/could not be recorded/) }));
  });

  it('that cannot settle: the caller still gets the order, the intent stays open and a line says so', async () => {
    const journal = new MemoryJournal();
    const stuck: IntentJournal = {
      record: (i) => journal.record(i),
      settle: () => Promise.reject(new Error('timeout')),
      claim: (r) => journal.claim(r),
    };
    const order = await client(stuck, { logger }).member(MEMBER).withdrawals.create(WITHDRAWAL);
    expect(order.id).toBe('wdr_1');
    expect(journal.open()).toHaveLength(1);
    const line = logs.find((l) => l.level === 'warn' && /could not be settled/.test(l.message));
    expect(line?.fields).toMatchObject({ endpoint: 'member.withdrawals.create', idempotencyKey: journal.open()[0]!.key });
    expect(JSON.stringify(logs)).not.toContain(WITHDRAWAL.to_address);
  });
});

describe('MemoryJournal', () => {
  const intent = (key: string, createdAt: number, scope = 's1'): JournalIntent => ({
    key,
    scope,
    endpoint: 'member.withdrawals.create',
    method: 'POST',
    path: '/v1/withdrawals',
    body: '{}',
    withheld: false,
    member: 'm',
    createdAt,
  });
  const request = (over: Partial<JournalClaimRequest> = {}): JournalClaimRequest => ({
    scope: 's1',
    createdBefore: 1000,
    leaseMs: 60_000,
    limit: 10,
    ...over,
  });

  it('claims oldest first, within the scope and age, once per lease; keeps the first record of a key', async () => {
    const j = new MemoryJournal();
    await j.record(intent('b', 200));
    await j.record(intent('a', 100));
    await j.record(intent('a', 150)); // a second record of the same key: the first stays
    await j.record(intent('young', 5000));
    await j.record(intent('other', 50, 's2'));
    expect((await j.claim(request({ limit: 1 }))).map((i) => [i.key, (i as JournalIntent).createdAt])).toEqual([['a', 100]]);
    expect((await j.claim(request())).map((i) => i.key)).toEqual(['b']);
    expect(await j.claim(request())).toEqual([]);
    await j.settle('s1', 'a');
    expect(j.open().map((i) => i.key)).toEqual(['other', 'b', 'young']);
  });

  it('frees a claim when its lease ends', async () => {
    const j = new MemoryJournal();
    await j.record(intent('a', 100));
    expect(await j.claim(request({ leaseMs: 0 }))).toHaveLength(1);
    expect(await j.claim(request())).toHaveLength(1);
  });
});

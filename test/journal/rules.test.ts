/**
 * The journal's decision tables (src/core/journal/rules.ts), entry by entry: which endpoints it
 * covers, which intents are never resent, which failures of a live call let it forget an intent
 * (the answers given before the key is read: by class and by code), which answers a resend only
 * replays (the header codes, the endpoint's unstored codes), and which records recovery refuses
 * to send. Each decision is read where a user meets it: what the journal still holds after a call
 * over real sockets (the ledger service), what `recover()` sent and reported.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AcceptedButUnreadableError,
  ApiError,
  MemoryJournal,
  type IntentFailed,
  type IntentJournal,
  type JournalIntent,
  type MerchantClientOptions,
  type MerchantSdkError,
} from '../../src/index.js';
import { CARDS_ACTIVATE, ENDPOINTS, KYC_SUBMIT_APPLICATION, WITHDRAWALS_CREATE } from '../../src/facts/endpoints.js';
import { journaled, neverResent, settles, storedUnderKey } from '../../src/core/journal/rules.js';
import { withParams } from '../../src/core/journal/resend.js';
import { failure, wireClient } from '../helpers/client.js';
import { apiError, WITHDRAWAL, type Reply } from '../helpers/wire-server.js';
import { ROUTES, startLedger, type Ledger, type RouteName } from './helpers/ledger.js';

const MEMBER = 'ext-member-42';
const CONVERSION = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' } as const;

let ledger: Ledger;
let journal: MemoryJournal;
beforeEach(async () => {
  ledger = await startLedger();
  journal = new MemoryJournal();
});
afterEach(async () => {
  await ledger.close();
});

function client(options: Partial<MerchantClientOptions> = {}) {
  return wireClient(ledger.url, { journal, logLevel: 'off', ...options });
}

/** A reply with its own request id header (answers of one call then look alike but for their status). */
function withRequestId(reply: Reply, id: string): Reply {
  return { ...reply, headers: { ...reply.headers, 'x-request-id': id } };
}

/** The requests the ledger received on a route, by idempotency key. */
function sentOn(route: RouteName): string[] {
  return ledger.server
    .calls()
    .filter((c) => c.url === ROUTES[route])
    .map((c) => c.headers['x-idempotency-key']!);
}

describe('journaled: the calls the journal covers, endpoint by endpoint', () => {
  /** Every endpoint that takes a key and moves funds, and the card activation (never resent). */
  const COVERED = [
    'member.withdrawals.create',
    'member.kyc.quickBind',
    'merchant.conversions.create',
    'member.remittances.cancel',
    'member.cards.activate',
    'sandbox.faucet',
    'member.deposits.declare',
    'member.withdrawals.confirm',
    'member.withdrawals.fail',
    'member.qrpay.pay',
    'member.remittances.reconfirm',
    'member.cards.apply',
    'member.cards.close',
    'member.cards.withdraw',
    'member.cards.topUp',
    'member.exchange.order',
  ];

  it.each(ENDPOINTS.map((e) => [e.id, COVERED.includes(e.id), e] as const))('%s: covered %s', (_, covered, endpoint) => {
    expect(journaled(endpoint)).toBe(covered);
  });

  it('covers nothing else', () => {
    expect(
      ENDPOINTS.filter((e) => journaled(e))
        .map((e) => e.id)
        .sort(),
    ).toEqual([...COVERED].sort());
  });

  it('a call without a key is never covered (the key is what identifies its intent), whatever it moves', () => {
    expect(journaled({ ...WITHDRAWALS_CREATE, sendsKey: false })).toBe(false);
    expect(journaled({ ...CARDS_ACTIVATE, sendsKey: false })).toBe(false);
  });

  it('an endpoint with a secret field is covered even when it moves no funds (never resent)', () => {
    expect(journaled({ ...KYC_SUBMIT_APPLICATION, secretFields: ['document_number'] })).toBe(true);
    expect(journaled(KYC_SUBMIT_APPLICATION)).toBe(false);
  });

  it('a raw client.request() is never recorded, even a keyed write with a secret field to a money route', async () => {
    const recorded: string[] = [];
    const spy: IntentJournal = {
      record: (i) => (recorded.push(i.endpoint), journal.record(i)),
      settle: (s, k) => journal.settle(s, k),
      claim: (r) => journal.claim(r),
    };
    const c = client({ journal: spy });
    await c.request({ method: 'POST', path: '/v1/withdrawals', body: WITHDRAWAL, onBehalfOf: MEMBER, secretFields: ['to_address'] });
    await c.request({ method: 'POST', path: '/v1/withdrawals', body: WITHDRAWAL, onBehalfOf: MEMBER });
    expect(sentOn('withdrawal')).toHaveLength(2);
    expect(recorded).toEqual([]);
    // The same operation through its resource method is recorded.
    await c.member(MEMBER).withdrawals.create(WITHDRAWAL);
    expect(recorded).toEqual(['member.withdrawals.create']);
  });
});

describe('neverResent: intents recovery only reports, endpoint by endpoint', () => {
  it.each(ENDPOINTS.map((e) => [e.id, e.id === 'member.cards.activate', e] as const))('%s: never resent %s', (_, never, endpoint) => {
    expect(neverResent(endpoint)).toBe(never);
  });

  it('a lockout alone, or a secret field alone, is enough', () => {
    expect(neverResent({ ...CARDS_ACTIVATE, secretFields: undefined })).toBe(true);
    expect(neverResent({ ...CARDS_ACTIVATE, lockout: undefined })).toBe(true);
    expect(neverResent({ ...CARDS_ACTIVATE, lockout: undefined, secretFields: undefined })).toBe(false);
  });

  it('an activation is recorded without its body, and recovery reports it instead of sending it', async () => {
    ledger.interpose('activation', () => ({ reset: true }));
    const err = (await failure(
      client({ maxRetries: 0 }).member(MEMBER).cards.activate('crd_1', { expiry: '08/29', pin: '8642' }),
    )) as MerchantSdkError;
    expect(journal.open()).toEqual([expect.objectContaining({ key: err.idempotencyKey, body: null, withheld: true })]);
    ledger.interpose('activation', undefined);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents.map((r) => [r.outcome, r.settled])).toEqual([['withheld', true]]);
    expect(sentOn('activation')).toEqual([err.idempotencyKey]);
  });
});

/**
 * settles(): whether a live call's failure lets the journal forget its intent. The withdrawal is
 * answered with `replies` in turn; returns its error, the keys still open and how often it was sent.
 */
async function withdrawal(replies: readonly Reply[], options: Partial<MerchantClientOptions> = {}) {
  let n = 0;
  ledger.interpose('withdrawal', () => replies[Math.min(n++, replies.length - 1)]);
  const err = (await failure(client(options).member(MEMBER).withdrawals.create(WITHDRAWAL))) as MerchantSdkError;
  return { err, open: journal.open().map((i) => i.key), sent: sentOn('withdrawal') };
}

/** An answer the service may give before it reads the key, and the class or code that says so. */
const BEFORE_KEY: ReadonlyArray<readonly [string, Reply, string]> = [
  // BEFORE_KEY_CLASSES, one code of each class.
  ['class reauth (invalid_token)', apiError(401, 'invalid_token'), 'invalid_token'],
  ['class fatal (invalid_signature)', apiError(401, 'invalid_signature'), 'invalid_signature'],
  ['class after_wait (rate_limited)', { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '3600' } }, 'rate_limited'],
  // BEFORE_KEY_CODES, every one.
  ['code insufficient_scope', apiError(403, 'insufficient_scope'), 'insufficient_scope'],
  ['code ip_not_allowed', apiError(403, 'ip_not_allowed'), 'ip_not_allowed'],
  ['code merchant_disabled', apiError(403, 'merchant_disabled'), 'merchant_disabled'],
  ['code member_not_found', apiError(404, 'member_not_found'), 'member_not_found'],
  ['code member_context_required', apiError(400, 'member_context_required'), 'member_context_required'],
  ['code not_found', apiError(404, 'not_found'), 'not_found'],
];

describe('settles: an answer given before the key is read (BEFORE_KEY_CLASSES, BEFORE_KEY_CODES)', () => {
  it.each(BEFORE_KEY)('%s after a 504: says nothing of the first attempt, the intent stays open', async (_, reply, code) => {
    const { err, open, sent } = await withdrawal([apiError(504, 'upstream_timeout'), reply]);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(code);
    expect(err.call?.sent).toBe('yes');
    expect(err.call?.attempts).toBeGreaterThanOrEqual(2);
    expect(sent[0]).toBe(err.idempotencyKey);
    expect(open).toEqual([err.idempotencyKey]);
  });

  it.each(BEFORE_KEY.filter(([, , code]) => code !== 'invalid_token'))(
    '%s answering the only attempt: final, the intent is settled',
    async (_, reply, code) => {
      const { err, open, sent } = await withdrawal([reply]);
      expect((err as ApiError).code).toBe(code);
      expect(err.call).toMatchObject({ sent: 'yes', attempts: 1 });
      expect(sent).toEqual([err.idempotencyKey]);
      expect(open).toEqual([]);
    },
  );

  it('class reauth: the renewed attempt is refused again; after a first attempt refused the same way, settled', async () => {
    // Both attempts were refused before the key was read: none of them ran.
    const { err, open, sent } = await withdrawal([apiError(401, 'invalid_token')]);
    expect(err).toMatchObject({ code: 'invalid_token', retryClass: 'reauth' });
    expect(err.call?.attempts).toBe(2);
    expect(sent).toEqual([err.idempotencyKey, err.idempotencyKey]);
    expect(ledger.server.tokenExchanges()).toBe(2);
    expect(open).toEqual([err.idempotencyKey]);
  });

  it.each([
    ['insufficient_balance (new_key)', apiError(400, 'insufficient_balance')],
    ['request_rejected (never)', apiError(400, 'request_rejected')],
    ['idempotency_key_reused (409, never)', apiError(409, 'idempotency_key_reused')],
    ['invalid_request (new_key)', apiError(400, 'invalid_request')],
  ])('an answer about the operation, %s, after a 504: the key has that outcome, settled', async (_, reply) => {
    const { err, open, sent } = await withdrawal([apiError(504, 'upstream_timeout'), reply]);
    expect(err.call?.attempts).toBe(2);
    expect(sent).toEqual([err.idempotencyKey, err.idempotencyKey]);
    expect(open).toEqual([]);
  });

  it("a token exchange's refusal is not the call's answer, even when the two look alike but for their status", async () => {
    // The same request id on every answer (a gateway stamping its own): only the status tells the
    // renewal's 400 from the call's 401.
    ledger.server.onToken([
      withRequestId(
        { body: { auth_token: 'tok_1', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } },
        'req_gw',
      ),
      withRequestId(apiError(400, 'invalid_request'), 'req_gw'),
    ]);
    const { err, open } = await withdrawal([
      withRequestId(apiError(504, 'upstream_timeout'), 'req_gw'),
      withRequestId(apiError(401, 'invalid_token'), 'req_gw'),
    ]);
    expect(err).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(err.call).toMatchObject({ sent: 'yes', status: 401, requestId: 'req_gw', attempts: 2 });
    expect(open).toEqual([err.idempotencyKey]);
  });

  it("errors that end no call, or are not the SDK's, decide nothing", () => {
    // An unreadable 2xx that no call stamped (raised outside a call): no key, no call state.
    const unstamped = new AcceptedButUnreadableError('unreadable', { status: 201, requestId: 'req_1', body: '{' });
    expect(settles(new Error('boom'))).toBe(false);
    expect(settles(unstamped)).toBe(false);
    expect(settles(undefined)).toBe(false);
    expect(storedUnderKey(new Error('boom'), WITHDRAWALS_CREATE)).toBe(false);
    expect(storedUnderKey(unstamped, WITHDRAWALS_CREATE)).toBe(false);
  });
});

/**
 * storedUnderKey(): a resend of an open intent settles it only on an answer the service keeps under
 * the key. A withdrawal (or `route`) lost before execution, then recovered with the resend
 * answered `reply`.
 */
async function recovered(reply: Reply | (() => Reply), route: 'withdrawal' | 'conversion' = 'withdrawal') {
  ledger.interpose(route, () => ({ reset: true }));
  const c = client({ maxRetries: 0 });
  await failure(route === 'withdrawal' ? c.member(MEMBER).withdrawals.create(WITHDRAWAL) : c.merchant.conversions.create(CONVERSION));
  const [intent] = journal.open();
  ledger.interpose(route, typeof reply === 'function' ? reply : () => reply);
  const report = await client({ maxRetries: 0 }).recover({ minAgeMs: 0 });
  const [entry] = report.intents as IntentFailed[];
  return { intent: intent!, entry: entry!, open: journal.open().map((i) => i.key) };
}

describe('storedUnderKey: the 400 codes about the headers are answered before the key is read (HEADER_CODES)', () => {
  it.each([
    ['idempotency_key_required', 'new_key'],
    ['idempotency_key_invalid', 'new_key'],
    ['member_context_required', 'new_key'],
    ['environment_mismatch', 'fatal'],
  ])('%s (%s): the resend failed, the intent stays open', async (code, retryClass) => {
    const { intent, entry, open } = await recovered(apiError(400, code));
    expect(entry).toMatchObject({ outcome: 'failed', settled: false });
    expect(entry.error).toMatchObject({ code, status: 400, retryClass });
    expect(entry.next).toMatch(/^left open: this answer does not show whether the first attempt executed/);
    expect(open).toEqual([intent.key]);
  });

  it.each([
    ['insufficient_balance', 'new_key'],
    ['limit_exceeded', 'new_key'],
    ['request_rejected', 'never'],
    ['state_invalid', 'never'],
    // Not cached on conversions only: a withdrawal keeps it under the key.
    ['service_unavailable', 'new_key'],
  ])('a business failure, %s (%s), is kept under the key: settled', async (code, retryClass) => {
    const { entry, open } = await recovered(apiError(400, code));
    expect(entry).toMatchObject({ outcome: 'failed', settled: true });
    expect(entry.error).toMatchObject({ code, retryClass });
    expect(entry.next).toBe(
      'settled: the service keeps this answer under the key (the operation did not happen; the same key only replays it)',
    );
    expect(open).toEqual([]);
  });
});

describe('storedUnderKey: everything else leaves a resent intent open', () => {
  it.each([
    ['a step-up (retried with the same key)', apiError(400, 'step_up_required', { challenge_id: 'ch_1' }), 'step_up_required'],
    ['an unknown 400 code', apiError(400, 'brand_new_code'), 'brand_new_code'],
    ['a 403', apiError(403, 'insufficient_scope'), 'insufficient_scope'],
    ['a 404', apiError(404, 'not_found'), 'not_found'],
    ['a 409 reused key', apiError(409, 'idempotency_key_reused'), 'idempotency_key_reused'],
    ['a 409 in progress', apiError(409, 'idempotency_in_progress'), 'idempotency_in_progress'],
    ['a 429', { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '3600' } }, 'rate_limited'],
    ['a 500', apiError(500, 'api_error'), 'api_error'],
  ])('%s', async (_, reply, code) => {
    const { intent, entry, open } = await recovered(reply);
    expect(entry).toMatchObject({ outcome: 'failed', settled: false });
    expect(entry.error).toMatchObject({ code });
    expect(open).toEqual([intent.key]);
  });

  it('service_unavailable on a conversion: the spec says it is not cached under the key (unstoredCodes)', async () => {
    const { intent, entry, open } = await recovered(apiError(400, 'service_unavailable'), 'conversion');
    expect(entry).toMatchObject({ outcome: 'failed', settled: false, error: expect.objectContaining({ code: 'service_unavailable' }) });
    expect(open).toEqual([intent.key]);
  });

  it('a conversion refused for its balance is kept under the key like any business failure', async () => {
    const { entry, open } = await recovered(apiError(400, 'merchant_insufficient_funds'), 'conversion');
    expect(entry).toMatchObject({ outcome: 'failed', settled: true });
    expect(open).toEqual([]);
  });

  it('a 2xx whose body cannot be read: the operation ran, settled', async () => {
    const { entry, open } = await recovered({ status: 201, body: '{"id": 1' });
    expect(entry.error).toBeInstanceOf(AcceptedButUnreadableError);
    expect(entry).toMatchObject({ outcome: 'failed', settled: true });
    expect(open).toEqual([]);
  });

  it('a resend that never left the client (the token exchange refused): open', async () => {
    ledger.interpose('withdrawal', () => ({ reset: true }));
    await failure(client({ maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    const [intent] = journal.open();
    ledger.server.onToken(apiError(400, 'invalid_request'));
    const report = await client().recover({ minAgeMs: 0 });
    const [entry] = report.intents as IntentFailed[];
    expect(entry!.error).toMatchObject({ code: 'invalid_request', status: 400, call: { sent: 'no' } });
    expect(entry).toMatchObject({ outcome: 'failed', settled: false });
    expect(journal.open().map((i) => i.key)).toEqual([intent!.key]);
  });

  it("a token renewal's 400 after the resend's own 401 is not an answer to the key: open", async () => {
    const { intent, entry, open } = await recovered(() => {
      // The resend's token was issued; its renewal is refused.
      ledger.server.onToken(apiError(400, 'invalid_request'));
      return apiError(401, 'invalid_token');
    });
    expect(entry.error).toMatchObject({ code: 'invalid_request', status: 400, call: { status: 401 } });
    expect(entry).toMatchObject({ outcome: 'failed', settled: false });
    expect(open).toEqual([intent.key]);
  });
});

describe('templateMismatch: a record that does not agree with its endpoint is never sent', () => {
  /** The record a lost withdrawal left (the client's own scope), taken out of the journal. */
  async function template(): Promise<JournalIntent> {
    ledger.interpose('withdrawal', () => ({ reset: true }));
    await failure(client({ maxRetries: 0 }).member(MEMBER).withdrawals.create(WITHDRAWAL));
    ledger.interpose('withdrawal', undefined);
    const [intent] = journal.open();
    await journal.settle(intent!.scope, intent!.key);
    return intent!;
  }

  const KEY = '0a9f0a9f-0a9f-0a9f-0a9f-0a9f0a9f0a9f';
  const BALANCES =
    'no GET by id in the spec: GET /v1/balances (same member; a withdrawal sits in withdrawing) shows whether the funds moved; quote the idempotency key to support';
  const CARD = 'GET /v1/cards/crd_1 shows whether it happened';

  it.each([
    ['its method', { method: 'PUT' }, 'its method is not POST', BALANCES],
    ['its path', { path: '/v1/withdrawals/wdr_1' }, 'its path does not match /v1/withdrawals', BALANCES],
    ['a query on its path', { path: '/v1/withdrawals?asset=USDT' }, 'its path does not match /v1/withdrawals', BALANCES],
    ['a path under another prefix', { path: '/api/v1/withdrawals' }, 'its path does not match /v1/withdrawals', BALANCES],
    [
      'a parameter `..`',
      { endpoint: 'member.cards.topUp', path: '/v1/cards/../topups' },
      'its path does not match /v1/cards/{id}/topups',
      'GET /v1/cards/.. shows whether it happened',
    ],
    [
      'a parameter `.`',
      { endpoint: 'member.cards.topUp', path: '/v1/cards/./topups' },
      'its path does not match /v1/cards/{id}/topups',
      'GET /v1/cards/. shows whether it happened',
    ],
    [
      'a parameter of two segments',
      { endpoint: 'member.cards.topUp', path: '/v1/cards/crd_1/x/topups' },
      'its path does not match /v1/cards/{id}/topups',
      CARD,
    ],
    [
      'an empty parameter',
      { endpoint: 'member.cards.topUp', path: '/v1/cards//topups' },
      'its path does not match /v1/cards/{id}/topups',
      BALANCES,
    ],
    ['a blank member', { member: '  ' }, 'its member is blank', BALANCES],
    ['an empty member', { member: '' }, 'its member is blank', BALANCES],
    [
      'a member on a merchant endpoint',
      { endpoint: 'merchant.conversions.create', path: '/v1/merchant/conversions' },
      'it names a member, and the endpoint acts for none',
      'no GET by id in the spec: GET /v1/merchant/balances shows whether the funds moved; quote the idempotency key to support',
    ],
    ['no member on a member endpoint', { member: null }, 'it names no member, and the endpoint acts for one', BALANCES],
    ['a key of another shape', { key: 'ord_42' }, 'its idempotency key is not UUID-shaped', BALANCES],
    ['a key with a prefix', { key: `x${KEY}` }, 'its idempotency key is not UUID-shaped', BALANCES],
    ['a key with a suffix', { key: `${KEY}x` }, 'its idempotency key is not UUID-shaped', BALANCES],
    ['a key with a non-hex digit', { key: KEY.replace('a', 'g') }, 'its idempotency key is not UUID-shaped', BALANCES],
    ['a key group too short', { key: '0a9f0a9-0a9f-0a9f-0a9f-0a9f0a9f0a9ff' }, 'its idempotency key is not UUID-shaped', BALANCES],
    ['a body that is not JSON', { body: '{"asset": ' }, 'its body is not JSON', BALANCES],
  ] as const)('%s', async (_, change, why, check) => {
    const base = await template();
    const record = { ...base, key: KEY, ...change };
    await journal.record(record);
    const report = await client().recover({ minAgeMs: 0 });
    expect(report.intents).toEqual([
      {
        intent: record,
        outcome: 'skipped',
        settled: false,
        reclaimableAt: expect.any(Number),
        check: `not sent by this client (${why}): ${check}`,
      },
    ]);
    expect(ledger.server.calls().filter((c) => c.headers['x-idempotency-key'] === record.key)).toEqual([]);
    expect(journal.open()).toEqual([record]);
  });
});

describe("a withheld intent's check names its own object (withParams)", () => {
  it('fills each parameter from the path, matching the rest of the route literally; a path that does not match leaves the text as it is', () => {
    const check = 'read {kind} {id} (GET /v1/{kind}/{id})';
    expect(withParams(check, '/v1/{kind}/{id}/activate', '/api/v1/cards/crd_9/activate?x=1')).toBe(
      'read cards crd_9 (GET /v1/cards/crd_9)',
    );
    // A dot or a plus in a route is itself, not a pattern.
    expect(withParams('GET {id}', '/v1/a.b+/{id}', '/v1/a.b+/x1')).toBe('GET x1');
    expect(withParams('GET {id}', '/v1/a.b+/{id}', '/v1/aXbb/x1')).toBe('GET {id}');
    expect(withParams('GET {id}', '/v1/cards/{id}/activate', '/v1/cards/crd_1/topups')).toBe('GET {id}');
  });
});

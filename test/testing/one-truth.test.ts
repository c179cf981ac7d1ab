/**
 * One truth: where the spec is silent, the client and its sandbox make the same choice (the spec's
 * reading where it speaks; where it does not, the most lenient reading that cannot move money
 * wrongly; docs/testing.md, "Where the sandbox chooses"). Each input below goes through both:
 *
 * - the client: refused before sending (`InvalidArgumentError`, nothing on the wire), or sent;
 *   a sent request the sandbox then refuses is a disagreement (the client let through what the
 *   service side refuses);
 * - the sandbox: the same request sent raw, past every client guard (hand-signed), refused
 *   (4xx, or the spec's 500 where it documents one) or accepted.
 *
 * Every case fails when the two differ, and when both differ from the documented choice. The
 * input and the agreed outcome are in each test's name. Inputs whose fate depends on state the
 * client cannot know (a card product's maximum, a balance, a card currency's scale) are the
 * service's alone and not walked here.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, InvalidArgumentError, type MerchantClient } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { ipAllowed } from '../../src/testing/ip-allowlist.js';
import { TestClient, viaHandle } from './harness.js';

type Agreed = 'accepted' | 'refused';

/** What the client did with an input. */
type ClientOutcome = 'refused before sending' | 'accepted' | `sent, then refused by the sandbox (${string})`;

/** A world: a sandbox, its in-process client (no retry), a raw signer, a member with funds. */
function world(): { sb: Sandbox; client: MerchantClient; raw: TestClient; member: string } {
  const sb = createSandbox();
  sb.state.seedMember({ external_member_id: 'walker', balances: { USDT: { available: '1000' } } });
  return { sb, client: sb.client({ maxRetries: 0 }), raw: new TestClient(sb, viaHandle(sb)), member: 'walker' };
}

/** Requests that reached the simulator, the token exchange apart. */
function sentCount(sb: Sandbox): number {
  return sb.requests.filter((r) => r.path !== '/v1/connect/token').length;
}

/** Runs `call` through the client and says what happened. */
async function throughClient(sb: Sandbox, call: () => Promise<unknown>): Promise<ClientOutcome> {
  const before = sentCount(sb);
  try {
    await call();
    return 'accepted';
  } catch (e) {
    if (e instanceof InvalidArgumentError) {
      expect(sentCount(sb), 'a client refusal sends nothing').toBe(before);
      return 'refused before sending';
    }
    if (e instanceof ApiError) return `sent, then refused by the sandbox (${e.code})`;
    throw e;
  }
}

/** The sandbox's answer to the raw request. */
function rawOutcome(res: { status: number }): Agreed {
  return res.status >= 400 ? 'refused' : 'accepted';
}

/** Both sides agree with each other and with the documented choice. */
function expectOneTruth(client: ClientOutcome, sandbox: Agreed, agreed: Agreed): void {
  expect({ client, sandbox }).toEqual({ client: agreed === 'refused' ? 'refused before sending' : 'accepted', sandbox: agreed });
}

/** `it.each` rows whose first element, printed by `%s` in full, is the case's name (its input and outcome). */
function named<T extends { readonly name: string }>(cases: readonly T[]): Array<[string, T]> {
  return cases.map((c) => [c.name, c]);
}

const both = (agreed: Agreed): string => (agreed === 'refused' ? 'both refuse' : 'both accept');

describe('card limits: only exactly "0" means no limit; other zeros and values below one unit are refused', () => {
  const cases: Array<[string, Agreed]> = [
    ['0', 'accepted'],
    ['1', 'accepted'],
    ['1.00', 'accepted'],
    ['250.5', 'accepted'],
    ['0.00', 'refused'],
    ['0.0', 'refused'],
    ['00', 'refused'],
    ['0.5', 'refused'],
    ['0.99', 'refused'],
    ['abc', 'refused'],
    ['-1', 'refused'],
    ['1e3', 'refused'],
  ];
  it.each(
    named(cases.map(([v, agreed]) => ({ v, agreed, name: `PATCH /v1/cards/{id}/limits single=${JSON.stringify(v)}: ${both(agreed)}` }))),
  )('%s', async (_name, { v, agreed }) => {
    const { sb, client, raw, member } = world();
    const card = sb.state.seedCard({ member, form: 'virtual' });
    const viaClient = await throughClient(sb, () => client.member(member).cards.updateLimits(card.id, { single: v }));
    const res = await raw.call('PATCH', `/v1/cards/${card.id}/limits`, { member, body: { single: v } });
    expectOneTruth(viaClient, rawOutcome(res), agreed);
  });
});

describe('page size: a positive integer; above 100 is served as 100', () => {
  const cases: Array<[number, string, Agreed]> = [
    [1, '1', 'accepted'],
    [100, '100', 'accepted'],
    [101, '101', 'accepted'],
    [1000, '1000', 'accepted'],
    [Number.MAX_SAFE_INTEGER + 1, '9007199254740992', 'accepted'],
    [0, '0', 'refused'],
    [-1, '-1', 'refused'],
    [2.5, '2.5', 'refused'],
    [1e21, '1e+21', 'refused'],
  ];
  it.each(named(cases.map(([limit, text, agreed]) => ({ limit, text, agreed, name: `GET /v1/reports?limit=${text}: ${both(agreed)}` }))))(
    '%s',
    async (_name, { limit, text, agreed }) => {
      const { sb, client, raw } = world();
      sb.state.seedReports(101);
      let page: unknown[] = [];
      const viaClient = await throughClient(sb, async () => {
        page = (await client.reports.list({ limit })).data;
      });
      const res = await raw.call('GET', `/v1/reports?limit=${text}`);
      expectOneTruth(viaClient, rawOutcome(res), agreed);
      if (agreed === 'accepted') {
        expect(page).toHaveLength(Math.min(limit, 100));
        expect(res.json.data).toHaveLength(Math.min(limit, 100));
      }
    },
  );
});

describe('top-up amounts: at most 20 integer digits, leading zeros not counted, at most 12 decimals, positive', () => {
  const cases: Array<[string, Agreed]> = [
    ['007', 'accepted'],
    ['00.5', 'accepted'],
    ['0000000000000000000001', 'accepted'],
    [`00000${'9'.repeat(20)}`, 'accepted'],
    ['1.000000000001', 'accepted'],
    [`1${'0'.repeat(20)}`, 'refused'],
    ['1.0000000000001', 'refused'],
    ['0', 'refused'],
    ['000', 'refused'],
    ['0.000000000000', 'refused'],
    [' 1', 'refused'],
    ['+1', 'refused'],
    ['1e3', 'refused'],
    ['.5', 'refused'],
    ['1.', 'refused'],
  ];
  it.each(
    named(cases.map(([v, agreed]) => ({ v, agreed, name: `POST /v1/merchant/topups amount=${JSON.stringify(v)}: ${both(agreed)}` }))),
  )('%s', async (_name, { v, agreed }) => {
    const { sb, client, raw } = world();
    const viaClient = await throughClient(sb, () => client.merchant.topups.create({ asset: 'USDT', amount: v }));
    const res = await raw.call('POST', '/v1/merchant/topups', { key: true, body: { asset: 'USDT', amount: v } });
    expectOneTruth(viaClient, rawOutcome(res), agreed);
    if (agreed === 'accepted') expect(res.json.amount_text).toBe(v);
  });
});

describe('top-up note merge: the client sends every note; the sandbox, like the service, cuts the merged note at 300 characters', () => {
  /** What the sandbox kept of a declaration: everything, or a cut text. */
  type Kept = 'kept whole' | 'cut';
  const cases: Array<{ note: string; ref?: string; input: string; kept: Kept }> = [
    { note: 'n'.repeat(300), input: 'note 300, no reference_no', kept: 'kept whole' },
    { note: 'n'.repeat(301), input: 'note 301, no reference_no', kept: 'cut' },
    { note: 'n'.repeat(290), ref: '', input: 'note 290, reference_no ""', kept: 'kept whole' },
    { note: 'n'.repeat(204), ref: 'r'.repeat(64), input: 'note 204 + reference_no 64 (+31 prefix +1 space = 300)', kept: 'kept whole' },
    { note: 'n'.repeat(210), ref: 'r'.repeat(64), input: 'note 210 + reference_no 64 (274 before the prefix)', kept: 'cut' },
    { note: 'n'.repeat(268), ref: 'R', input: 'note 268 + reference_no 1 (301)', kept: 'cut' },
    { note: '😀'.repeat(268), ref: '回', input: 'note 268 emoji + reference_no 1 CJK (301 characters)', kept: 'cut' },
    { note: 'n'.repeat(400), input: 'note 400', kept: 'cut' },
  ];
  it.each(
    named(
      cases.map((c) => ({ ...c, name: `${c.input}: client sends it, sandbox ${c.kept === 'cut' ? 'cuts at 300' : 'keeps it whole'}` })),
    ),
  )('%s', async (_name, { note, ref, kept }) => {
    const { sb, client, raw } = world();
    const body = { asset: 'USDT', amount: '1', note, ...(ref === undefined ? {} : { reference_no: ref }) };
    const viaClient = await throughClient(sb, () => client.merchant.topups.create(body));
    const res = await raw.call('POST', '/v1/merchant/topups', { key: true, body });
    expectOneTruth(viaClient, rawOutcome(res), 'accepted');
    const sent = sb.requests.filter((r) => r.path === '/v1/merchant/topups');
    expect(sent).toHaveLength(2);
    const list = await raw.call('GET', '/v1/merchant/topups?limit=2');
    for (const stored of list.json.data.map((d: { note: string }) => d.note) as string[]) {
      expect([...stored].length).toBeLessThanOrEqual(300);
      expect(stored.endsWith(note) && stored.includes(ref ?? '') ? 'kept whole' : 'cut').toBe(kept);
    }
  });

  it('a reference_no over 64 characters: both refuse', async () => {
    const { sb, client, raw } = world();
    const body = { asset: 'USDT', amount: '1', note: 'n', reference_no: 'r'.repeat(65) };
    const viaClient = await throughClient(sb, () => client.merchant.topups.create(body));
    const res = await raw.call('POST', '/v1/merchant/topups', { key: true, body });
    expectOneTruth(viaClient, rawOutcome(res), 'refused');
  });
});

describe('top-up channel: any string is sent; only exactly "fiat" selects fiat, anything else becomes chain', () => {
  const cases: Array<[string, 'fiat' | 'chain']> = [
    ['fiat', 'fiat'],
    ['chain', 'chain'],
    ['FIAT', 'chain'],
    ['Fiat', 'chain'],
    ['wire', 'chain'],
  ];
  it.each(
    named(
      cases.map(([v, recorded]) => ({
        v,
        recorded,
        name: `POST /v1/merchant/topups channel=${JSON.stringify(v)}: both accept, recorded ${recorded}`,
      })),
    ),
  )('%s', async (_name, { v, recorded }) => {
    const { sb, client, raw } = world();
    const body = { asset: 'USDT', amount: '1', channel: v as 'fiat' };
    let viaClientChannel: string | undefined;
    const viaClient = await throughClient(sb, async () => {
      viaClientChannel = (await client.merchant.topups.create(body)).channel;
    });
    const res = await raw.call('POST', '/v1/merchant/topups', { key: true, body });
    expectOneTruth(viaClient, rawOutcome(res), 'accepted');
    expect([viaClientChannel, res.json.channel]).toEqual([recorded, recorded]);
  });
});

describe('withdrawal to_address: 1 to 200 characters, not white space only', () => {
  const cases: Array<[string, string, Agreed]> = [
    ['T1', '"T1"', 'accepted'],
    [' T1 ', '" T1 "', 'accepted'],
    ['x'.repeat(200), '200 × "x"', 'accepted'],
    ['😀'.repeat(200), '200 × emoji', 'accepted'],
    ['', '""', 'refused'],
    [' ', '" "', 'refused'],
    ['\t\n', '"\\t\\n"', 'refused'],
    ['\u00a0\u3000', 'no-break space + ideographic space', 'refused'],
    ['x'.repeat(201), '201 × "x"', 'refused'],
    ['😀'.repeat(201), '201 × emoji', 'refused'],
  ];
  it.each(named(cases.map(([v, shown, agreed]) => ({ v, agreed, name: `POST /v1/withdrawals to_address=${shown}: ${both(agreed)}` }))))(
    '%s',
    async (_name, { v, agreed }) => {
      const { sb, client, raw, member } = world();
      const order = { asset: 'USDT', amount: '1', to_address: v };
      const viaClient = await throughClient(sb, () => client.member(member).withdrawals.create(order));
      const res = await raw.call('POST', '/v1/withdrawals', { member, key: true, body: order });
      expectOneTruth(viaClient, rawOutcome(res), agreed);
    },
  );
});

describe('withdrawal ids: with or without the wdr_ prefix, both name the order', () => {
  it.each(
    named([
      { action: 'confirm', bare: false, name: 'POST /v1/withdrawals/wdr_<uuid>/confirm: both accept' },
      { action: 'confirm', bare: true, name: 'POST /v1/withdrawals/<uuid>/confirm (no wdr_): both accept' },
      { action: 'fail', bare: false, name: 'POST /v1/withdrawals/wdr_<uuid>/fail: both accept' },
      { action: 'fail', bare: true, name: 'POST /v1/withdrawals/<uuid>/fail (no wdr_): both accept' },
    ] as const),
  )('%s', async (_name, { action, bare }) => {
    const { sb, client, raw, member } = world();
    const order = { asset: 'USDT', amount: '1', to_address: 'T' };
    const idOf = (id: string): string => (bare ? id.replace(/^wdr_/, '') : id);
    const mine = await client.member(member).withdrawals.create(order);
    const viaClient = await throughClient(sb, () => client.member(member).withdrawals[action](idOf(mine.id)));
    const other = await raw.call('POST', '/v1/withdrawals', { member, key: true, body: order });
    const res = await raw.call('POST', `/v1/withdrawals/${idOf(other.json.id)}/${action}`, { member, key: true, body: {} });
    expectOneTruth(viaClient, rawOutcome(res), 'accepted');
    expect(sb.state.countEffects(`withdrawal.${action}`)).toBe(2);
  });
});

describe('scopes: none required where the spec names none', () => {
  it.each(
    named([
      { name: 'PATCH /v1/cards/{id}/limits with a key without cards:write: both accept', close: false },
      { name: 'POST /v1/cards/{id}/close with a key without cards:write: both accept', close: true },
    ]),
  )('%s', async (_name, { close }) => {
    const { sb, client, raw, member } = world();
    sb.setScopes(sb.scopes.filter((s) => s !== 'cards:write'));
    const cards = [sb.state.seedCard({ member, form: 'virtual' }), sb.state.seedCard({ member, form: 'virtual' })];
    const cardsApi = client.member(member).cards;
    const viaClient = await throughClient(sb, () =>
      close ? cardsApi.close(cards[0]!.id) : cardsApi.updateLimits(cards[0]!.id, { single: '10' }),
    );
    const res = close
      ? await raw.call('POST', `/v1/cards/${cards[1]!.id}/close`, { member, key: true, body: {} })
      : await raw.call('PATCH', `/v1/cards/${cards[1]!.id}/limits`, { member, body: { single: '10' } });
    expectOneTruth(viaClient, rawOutcome(res), 'accepted');
    // The spec's own scope still holds where it names one.
    const unfreeze = await raw.call('POST', `/v1/cards/${cards[0]!.id}/unfreeze`, { member, key: true, body: {} });
    expect(unfreeze.json.code).toBe('insufficient_scope');
  });
});

describe('where the spec shows no shape, or speaks alone: the sandbox’s answers', () => {
  it('POST /v1/qrpay/quotes amount="0": the client sends it (the spec states no positivity rule); the sandbox answers amount_out_of_range', async () => {
    const { sb, client, raw, member } = world();
    const quote = { code_value: 'sbxqr:Shop:SGD:open', currency: 'SGD', amount: '0' };
    const viaClient = await throughClient(sb, () => client.member(member).qrpay.quote(quote));
    expect(viaClient).toBe('sent, then refused by the sandbox (amount_out_of_range)');
    const sent = sb.requests.filter((r) => r.path === '/v1/qrpay/quotes');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers['x-idempotency-key']).toBeUndefined();
    expect(sent[0]!.body).toBe('{"code_value":"sbxqr:Shop:SGD:open","currency":"SGD","amount":"0"}');
    expect((await raw.call('POST', '/v1/qrpay/quotes', { member, body: quote })).json.code).toBe('amount_out_of_range');
    // A malformed amount is still a malformed request, refused by both.
    expect(await throughClient(sb, () => client.member(member).qrpay.quote({ ...quote, amount: '-1' }))).toBe('refused before sending');
    expect((await raw.call('POST', '/v1/qrpay/quotes', { member, body: { ...quote, amount: '-1' } })).json.code).toBe('invalid_request');
  });

  it('GET /v1/merchant/lines: each line’s switch and halt apart; disabled or halted, a withdrawal is service_unavailable at once', async () => {
    const { sb, client, raw, member } = world();
    const lineOf = async (line: string): Promise<unknown> =>
      ((await raw.call('GET', '/v1/merchant/lines')).json.data as Array<{ line: string }>).find((l) => l.line === line);
    expect(await lineOf('withdraw')).toEqual({ line: 'withdraw', enabled: true, halted: false });
    const order = { asset: 'USDT', amount: '1', to_address: 'T' };
    for (const [enabled, halted] of [
      [false, false],
      [true, true],
      [false, true],
    ] as const) {
      sb.state.setLine('withdraw', enabled);
      sb.state.setLineHalted('withdraw', halted);
      expect(await lineOf('withdraw')).toEqual({ line: 'withdraw', enabled, halted });
      const viaClient = await throughClient(sb, () => client.member(member).withdrawals.create(order));
      expect(viaClient).toBe('sent, then refused by the sandbox (service_unavailable)');
    }
    expect(sb.state.merchant).toMatchObject({ lines: { withdraw: false }, halted: { withdraw: true } });
    sb.state.setLine('withdraw', true);
    sb.state.setLineHalted('withdraw', false);
    await client.member(member).withdrawals.create(order);
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('IP allowlists: an empty list admits everyone on the sandbox key; a live key cannot be emptied and admits only its list', async () => {
    const sb = createSandbox();
    sb.setClientIp('203.0.113.9');
    const sandboxKey = new TestClient(sb, viaHandle(sb));
    expect((await sandboxKey.call('GET', '/v1/assets')).status).toBe(200);
    expect(() => sb.setIpAllowlist([], 'live')).toThrow('non-empty');
    const live = sb.client({ environment: 'live', maxRetries: 0 });
    const err = await live.assets.list().catch((e: unknown) => e);
    expect((err as ApiError).code).toBe('ip_not_allowed');
    sb.setIpAllowlist(['203.0.113.*'], 'live');
    expect((await live.assets.list()).data.length).toBeGreaterThan(0);
    // Should a live key's list be empty anyway, it fails closed.
    expect(ipAllowed([], '127.0.0.1', 'live')).toBe(false);
    expect(ipAllowed([], '127.0.0.1', 'sandbox')).toBe(true);
  });
});

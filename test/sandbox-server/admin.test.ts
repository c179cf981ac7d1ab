/**
 * The admin HTTP API under /__sandbox/ over real sockets: what a test in another language does
 * with curl. Every answer is checked against what the signed API then answers, or against the
 * sandbox's own state, and no answer carries a secret.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { BalanceSnapshot, CardSnapshot, SandboxMember, WebhookDelivery, WebhookEnvelope } from '../../src/testing/index.js';
import { servedWorlds } from '../testing/served.js';
import { adminGet, adminSend, rawCaller } from './raw.js';

const serve = servedWorlds();
type MemberView = SandboxMember & { balances: BalanceSnapshot[] };

/** A webhook receiver on loopback answering each delivery with the next status of `statuses` (then 200). */
async function receiver(
  statuses: number[] = [],
): Promise<{ url: string; got: Array<{ headers: http.IncomingHttpHeaders; body: string }>; close(): Promise<void> }> {
  const got: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}
const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

describe('card products', () => {
  it('POST /__sandbox/seed with products and POST /__sandbox/products add products the signed API lists', async () => {
    const { server, client } = await serve();
    const seeded = await adminSend<{ products: string[]; members: string[] }>(server, 'POST', '/__sandbox/seed', {
      products: [{ id: 'gold', name: 'Gold', form: 'physical', currency: 'EUR', country: 'DE' }],
      members: [{ external_member_id: 'alice' }],
    });
    expect(seeded.status).toBe(201);
    expect(seeded.body.products).toEqual(['cpd_gold']);
    const added = await adminSend<{ id: string }>(server, 'POST', '/__sandbox/products', { id: 'silver', name: 'Silver', form: 'virtual' });
    expect(added).toMatchObject({ status: 201, body: { id: 'cpd_silver' } });
    const listed = await client.member('alice').cards.products().collect(100);
    const ids = listed.map((p) => (p as { id?: unknown } | null)?.id);
    expect(ids).toEqual(expect.arrayContaining(['cpd_gold', 'cpd_silver']));
  });
});

describe('members and balances', () => {
  it('POST /__sandbox/members seeds a member the signed API then serves; PUT overwrites buckets', async () => {
    const { server, client } = await serve();
    const created = await adminSend<MemberView>(server, 'POST', '/__sandbox/members', {
      external_member_id: 'alice',
      balances: { USDT: { available: '100', locked: '5' } },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ external_member_id: 'alice', status: 'active' });
    expect(created.body.balances[0]).toMatchObject({ asset: 'USDT', available: '100.000000', locked: '5.000000', total: '105.000000' });

    const put = await adminSend<BalanceSnapshot>(server, 'PUT', '/__sandbox/members/alice/balances/USDC', { available: '7.5' });
    expect(put).toMatchObject({ status: 200, body: { asset: 'USDC', available: '7.500000' } });
    const rows = await client.member('alice').balances.list();
    expect(rows.map((r) => [r.asset, r.available])).toEqual([
      ['USDT', '100.000000'],
      ['USDC', '7.500000'],
    ]);
    const read = await adminGet<{ data: BalanceSnapshot[] }>(server, '/__sandbox/members/alice/balances');
    expect(read.data.map((b) => b.asset)).toEqual(['USDT', 'USDC']);
    expect(Object.keys(read.data[0]!)).toEqual(
      expect.arrayContaining(['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing', 'total']),
    );
  });

  it('unknown members are 404, bad input 400, unknown routes 404 and wrong methods 405', async () => {
    const { server } = await serve();
    expect((await adminSend(server, 'GET', '/__sandbox/members/nobody')).status).toBe(404);
    expect((await adminSend(server, 'PUT', '/__sandbox/members/nobody/balances/USDT', { available: '1' })).status).toBe(404);
    const bad = await fetch(`${server.url}/__sandbox/members`, { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe('the body is not valid JSON');
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'bob' });
    const badAsset = await adminSend<{ error: string }>(server, 'PUT', '/__sandbox/members/bob/balances/NOPE', { available: '1' });
    expect(badAsset.status).toBe(400);
    expect((await adminSend(server, 'GET', '/__sandbox/nothing-here')).status).toBe(404);
    const wrong = await adminSend<{ error: string }>(server, 'DELETE', '/__sandbox/members');
    expect(wrong.status).toBe(405);
    expect(wrong.body.error).toContain('allowed: GET, POST');
  });
});

describe('seed, cards, reports, reset', () => {
  it('POST /__sandbox/seed applies members, cards and reports; POST /__sandbox/reset empties the sandbox', async () => {
    const { sandbox, server, client } = await serve();
    const seeded = await adminSend<{ members: string[]; cards: string[]; reports: string[] }>(server, 'POST', '/__sandbox/seed', {
      members: [{ external_member_id: 'carol', balances: { USDT: { available: '50' } } }],
      cards: [{ member: 'carol', form: 'virtual', balance: '20' }],
      reports: [{ status: 'ready' }, { status: 'building' }],
    });
    expect(seeded.status).toBe(201);
    expect(seeded.body.members).toHaveLength(1);
    const card = await adminGet<CardSnapshot>(server, `/__sandbox/cards/${seeded.body.cards[0]}`);
    expect(card).toMatchObject({ member_id: seeded.body.members[0], form: 'virtual', balance: '20.00' });
    const page = await client.reports.list();
    expect(page.data.map((r) => r.status).sort()).toEqual(['building', 'ready']);

    const reset = await adminSend<{ reset: boolean; members: unknown[] }>(server, 'POST', '/__sandbox/reset');
    expect(reset.body).toEqual({ reset: true, members: [] });
    expect(sandbox.state.members).toEqual([]);
    expect((await client.reports.list()).data).toEqual([]);
    expect((await adminSend(server, 'GET', `/__sandbox/cards/${seeded.body.cards[0]}`)).status).toBe(404);
  });

  it('a seed naming an unknown member is refused with the entry named', async () => {
    const { server } = await serve();
    const res = await adminSend<{ error: string }>(server, 'POST', '/__sandbox/seed', { cards: [{ member: 'ghost' }] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('seed: cards[0]: sandbox: no member ghost');
    const unknown = await adminSend<{ error: string }>(server, 'POST', '/__sandbox/seed', { catalogues: [] });
    expect(unknown.body.error).toContain('unknown key catalogues (known: products, members, cards, reports, qr_codes)');
  });

  it('POST /__sandbox/reports with count seeds that many', async () => {
    const { server, client } = await serve();
    const res = await adminSend<unknown[]>(server, 'POST', '/__sandbox/reports', { count: 3, status: 'failed' });
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(3);
    expect((await client.reports.list()).data.map((r) => r.status)).toEqual(['failed', 'failed', 'failed']);
  });
});

describe('faults and clock', () => {
  it('an injected 502 answers the next matching request, then the fault is gone', async () => {
    const { sandbox, server } = await serve();
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const injected = await adminSend(server, 'POST', '/__sandbox/faults', {
      match: { method: 'POST', path: '/v1/withdrawals' },
      fault: { kind: 'status', status: 502 },
    });
    expect(injected).toMatchObject({
      status: 201,
      body: { remaining: 1, hits: 0, fault: { kind: 'status', status: 502, when: 'before' } },
    });
    const call = await rawCaller(sandbox, server);
    const body = JSON.stringify({ asset: 'USDT', amount: '1', to_address: 'T' });
    expect((await call({ path: '/v1/withdrawals', body, member: 'alice' })).status).toBe(502);
    expect(sandbox.state.countEffects()).toBe(0);
    expect(await adminGet(server, '/__sandbox/faults')).toEqual({ data: [] });
    expect((await call({ path: '/v1/withdrawals', body, member: 'alice' })).status).toBe(201);
  });

  it('"always" stays armed until DELETE; an unknown kind is 400', async () => {
    const { server, client } = await serve();
    await adminSend(server, 'POST', '/__sandbox/faults', {
      match: { path: '/v1/reports' },
      fault: { kind: 'html', status: 503 },
      times: 'always',
    });
    const first = await fetch(`${server.url}/v1/reports`);
    expect(first.status).toBe(503);
    expect(first.headers.get('content-type')).toBe('text/html');
    expect(await adminGet(server, '/__sandbox/faults')).toMatchObject({ data: [{ remaining: 'always', hits: 1 }] });
    expect((await adminSend(server, 'DELETE', '/__sandbox/faults')).body).toEqual({ data: [] });
    expect((await client.reports.list()).data).toEqual([]);
    const bad = await adminSend<{ error: string }>(server, 'POST', '/__sandbox/faults', {
      match: { path: '/v1/x' },
      fault: { kind: 'meteor' },
    });
    expect(bad.status).toBe(400);
  });

  it('POST /__sandbox/clock moves business time without touching signatures; signature_skew_ms skews the signature clock', async () => {
    const { sandbox, server } = await serve();
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const frozen = await adminSend<{ now_ms: number }>(server, 'POST', '/__sandbox/clock', { freeze: true });
    const before = frozen.body.now_ms;
    const body = JSON.stringify({ asset: 'USDT', amount: '1', to_address: 'T' });
    // Business time 25 hours on: a request signed with the real clock still passes (with a token
    // exchanged after the move: tokens live 30 minutes of business time).
    const moved = await adminSend<Record<string, number>>(server, 'POST', '/__sandbox/clock', { advance_ms: 90_000_000 });
    expect(moved.body).toMatchObject({ now_ms: before + 90_000_000, signature_skew_ms: 0 });
    const call = await rawCaller(sandbox, server);
    const stamped = String(Math.floor(Date.now() / 1000));
    expect((await call({ path: '/v1/withdrawals', body, member: 'alice', timestamp: stamped })).status).toBe(201);
    // The signature clock 10 minutes ahead: the same real-time stamp is refused.
    const skewed = await adminSend<Record<string, number>>(server, 'POST', '/__sandbox/clock', { signature_skew_ms: 600_000 });
    expect(skewed.body).toMatchObject({ now_ms: before + 90_000_000, signature_skew_ms: 600_000 });
    expect(skewed.body['signature_now_ms']! - Date.now()).toBeGreaterThan(300_000);
    const refused = await call({ path: '/v1/withdrawals', body, member: 'alice', timestamp: String(Math.floor(Date.now() / 1000)) });
    expect(refused.body['code']).toBe('timestamp_out_of_range');
    expect(await adminGet(server, '/__sandbox/clock')).toMatchObject({ now_ms: before + 90_000_000, signature_skew_ms: 600_000 });
    await adminSend(server, 'POST', '/__sandbox/clock', { signature_skew_ms: 0 });
    const again = await call({ path: '/v1/withdrawals', body, member: 'alice', timestamp: String(Math.floor(Date.now() / 1000)) });
    expect(again.status).toBe(201);
    expect((await adminSend(server, 'POST', '/__sandbox/clock', {})).status).toBe(400);
    expect((await adminSend(server, 'POST', '/__sandbox/clock', { signature_skew_ms: 'soon' })).status).toBe(400);
  });
});

describe('remittances', () => {
  it("POST /__sandbox/remittances seeds an order; cancel_answer 'state_invalid' makes a late cancel the spec's 400", async () => {
    const { server, sandbox } = await serve();
    await adminSend(server, 'POST', '/__sandbox/members', { external_member_id: 'rita', balances: { USDT: { available: '1' } } });
    const seeded = await adminSend<{ id: string; status: string; locked: string }>(server, 'POST', '/__sandbox/remittances', {
      member: 'rita',
      amount: '40',
      status: 'processing',
      cancel_answer: 'state_invalid',
    });
    expect(seeded.status).toBe(201);
    expect(seeded.body).toMatchObject({ id: expect.stringMatching(/^rmt_/), status: 'processing' });
    const call = await rawCaller(sandbox, server);
    const refused = await call({ path: `/v1/remittances/${seeded.body.id}/cancel`, body: '{}', member: 'rita' });
    expect(refused.status).toBe(400);
    expect(refused.body['code']).toBe('state_invalid');
    // Without the option, the current implementation's 500.
    const plain = await adminSend<{ id: string }>(server, 'POST', '/__sandbox/remittances', { member: 'rita', status: 'processing' });
    const current = await call({ path: `/v1/remittances/${plain.body.id}/cancel`, body: '{}', member: 'rita' });
    expect(current.status).toBe(500);
    expect(current.body['code']).toBe('api_error');
    expect(await adminGet(server, `/__sandbox/remittances/${seeded.body.id}`)).toMatchObject({ status: 'processing', locked: '40.000000' });
    expect((await adminSend(server, 'GET', '/__sandbox/remittances/rmt_nope')).status).toBe(404);
    expect((await adminSend(server, 'POST', '/__sandbox/remittances', { member: 'ghost' })).status).toBe(400);
  });
});

describe('the request log', () => {
  it('lists requests newest first with status, code, member, key and replay flag; secrets redacted', async () => {
    const { sandbox, server, client } = await serve();
    const m = sandbox.state.seedMember({ external_member_id: 'dave', balances: { USDT: { available: '10' } } });
    const key = '0b8a9c1e-1111-4a2b-9c3d-0123456789ab';
    await client.member('dave').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: key });
    await client.member('dave').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: key });
    const log = await adminGet<{ data: Array<Record<string, unknown>> }>(server, '/__sandbox/requests');
    expect(log.data.map((r) => [r['method'], r['path'], r['status'], r['replay'] ?? false])).toEqual([
      ['POST', '/v1/withdrawals', 201, true],
      ['POST', '/v1/withdrawals', 201, false],
      ['POST', '/v1/connect/token', 200, false],
    ]);
    expect(log.data[0]).toMatchObject({ member: 'dave', idempotencyKey: key });
    expect((log.data[2]!['headers'] as Record<string, string>)['x-api-key']).toBe('[redacted]');
    const text = JSON.stringify(log);
    for (const secret of [sandbox.credentials.apiKey, sandbox.credentials.signingKey]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/tok_sbx_/);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
    expect(m.external_member_id).toBe('dave');

    const err = await fetch(`${server.url}/v1/withdrawals`, { method: 'POST' });
    expect(err.status).toBe(401);
    const failed = await adminGet<{ data: Array<Record<string, unknown>> }>(server, '/__sandbox/requests?failed=true');
    expect(failed.data.map((r) => r['code'])).toEqual(['invalid_token']);
    expect((await adminSend(server, 'DELETE', '/__sandbox/requests')).body).toEqual({ data: [] });
    expect(sandbox.requests).toHaveLength(0);
    expect((await adminSend(server, 'GET', '/__sandbox/requests/req_missing')).status).toBe(404);
  });

  it('admin calls are not logged as requests to the service', async () => {
    const { sandbox, server } = await serve();
    await adminGet(server, '/__sandbox/members');
    await fetch(`${server.url}/__sandbox/`);
    expect(sandbox.requests).toHaveLength(0);
  });
});

describe('webhooks', () => {
  it('registers a receiver, emits an event delivered with retries, redelivers it with the same event id', async () => {
    const { sandbox, server } = await serve({ sandbox: { webhooks: { backoffMs: 1 } } });
    const hook = await receiver([500]);
    receivers.push(hook);
    expect((await adminSend(server, 'POST', '/__sandbox/webhooks/receivers', { url: hook.url })).body).toEqual({ receivers: [hook.url] });
    const emitted = await adminSend<{ event: WebhookEnvelope; deliveries: WebhookDelivery[] }>(
      server,
      'POST',
      '/__sandbox/webhooks/events',
      {
        event_type: 'card.status.updated',
        data: { object: 'card', id: 'crd_1', status: 'frozen' },
      },
    );
    expect(emitted.status).toBe(201);
    expect(emitted.body.deliveries.map((d) => [d.attempt, d.status, d.ok])).toEqual([
      [1, 500, false],
      [2, 200, true],
    ]);
    const id = emitted.body.event.event_id;
    expect(hook.got.map((g) => g.headers['z-event-id'])).toEqual([id, id]);
    expect(hook.got[1]!.headers['z-signature']).toBe(sandbox.webhooks.sign(hook.got[1]!.body));
    // Each delivery record carries the headers sent, exactly as the receiver got them.
    for (const [i, d] of emitted.body.deliveries.entries()) {
      for (const name of ['content-type', 'z-event-id', 'z-event-type', 'z-signature']) {
        expect(d.headers[name], `${name} of attempt ${i + 1}`).toBe(hook.got[i]!.headers[name]);
      }
      expect(d.body).toBe(hook.got[i]!.body);
    }

    const again = await adminSend<{ deliveries: WebhookDelivery[] }>(server, 'POST', `/__sandbox/webhooks/events/${id}/redeliver`);
    expect(again.body.deliveries.map((d) => [d.attempt, d.ok])).toEqual([[1, true]]);
    expect(hook.got).toHaveLength(3);
    expect(hook.got[2]!.body).toBe(hook.got[0]!.body);
    expect((await adminSend(server, 'POST', '/__sandbox/webhooks/events/evt_nope/redeliver')).status).toBe(404);

    const view = await adminGet<{ receivers: string[]; events: unknown[]; deliveries: unknown[] }>(server, '/__sandbox/webhooks');
    expect(view.events).toHaveLength(1);
    expect(view.deliveries).toHaveLength(3);
    expect(JSON.stringify(view)).not.toContain(sandbox.webhooks.secret);
    await adminSend(server, 'DELETE', '/__sandbox/webhooks/receivers');
    expect(sandbox.webhooks.receivers).toEqual([]);
  });

  it('refuses a receiver that is not an http(s) URL and an event without data', async () => {
    const { server } = await serve();
    expect((await adminSend(server, 'POST', '/__sandbox/webhooks/receivers', { url: 'ftp://x' })).status).toBe(400);
    expect((await adminSend(server, 'POST', '/__sandbox/webhooks/events', { event_type: 'x' })).status).toBe(400);
  });
});

describe('fault JSON', () => {
  it('each kind is read into the fault the typed API would build, defaults filled', async () => {
    const { server } = await serve();
    const kinds: Array<[Record<string, unknown>, Record<string, unknown>]> = [
      [
        { kind: 'status', status: 504, when: 'after', code: 'upstream_timeout' },
        { kind: 'status', status: 504, when: 'after', code: 'upstream_timeout' },
      ],
      [{ kind: 'in_progress' }, { kind: 'in_progress' }],
      [
        { kind: 'rate_limited', shape: 'wrapped' },
        { kind: 'rate_limited', retryAfter: 60, shape: 'wrapped' },
      ],
      [{ kind: 'html' }, { kind: 'html', status: 502 }],
      [{ kind: 'reset' }, { kind: 'reset' }],
      [
        { kind: 'delay', ms: 5 },
        { kind: 'delay', ms: 5 },
      ],
      [{ kind: 'hang' }, { kind: 'hang' }],
      [
        { kind: 'unknown_code', code: 'brand_new' },
        { kind: 'unknown_code', code: 'brand_new' },
      ],
      [{ kind: 'timestamp_skew' }, { kind: 'timestamp_skew' }],
      [
        { kind: 'garble', body: 'x', status: 200 },
        { kind: 'garble', body: 'x', status: 200 },
      ],
    ];
    for (const [fault] of kinds) {
      const res = await adminSend(server, 'POST', '/__sandbox/faults', { match: { method: 'GET', path: '/v1/assets' }, fault, times: 2 });
      expect(res.status, JSON.stringify(fault)).toBe(201);
    }
    const list = await adminGet<{ data: Array<{ fault: unknown; remaining: number; match: unknown }> }>(server, '/__sandbox/faults');
    expect(list.data.map((f) => f.fault)).toEqual(kinds.map(([, expected]) => expected));
    expect(list.data[0]).toMatchObject({ remaining: 2, match: { method: 'GET', path: '/v1/assets' } });
    await adminSend(server, 'DELETE', '/__sandbox/faults');
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a status outside 500/502/504',
      { match: { path: '/v1/x' }, fault: { kind: 'status', status: 503 } },
      'status must be one of 500, 502, 504',
    ],
    ['a delay without ms', { match: { path: '/v1/x' }, fault: { kind: 'delay' } }, 'ms must be a number of milliseconds'],
    ['a code that is not a string', { match: { path: '/v1/x' }, fault: { kind: 'unknown_code', code: 7 } }, 'code must be a string'],
    [
      'a retryAfter that is not a number',
      { match: { path: '/v1/x' }, fault: { kind: 'rate_limited', retryAfter: '1' } },
      'retryAfter must be a number',
    ],
    ['a relative path', { match: { path: 'v1/x' }, fault: { kind: 'reset' } }, 'match.path must be a path'],
    ['no match object', { fault: { kind: 'reset' } }, 'match must be an object'],
    ['times 0', { match: { path: '/v1/x' }, fault: { kind: 'reset' }, times: 0 }, 'times must be a positive integer or "always"'],
  ])('%s is a 400 naming the field', async (_name, body, message) => {
    const { server } = await serve();
    const res = await adminSend<{ error: string }>(server, 'POST', '/__sandbox/faults', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toContain(message);
    expect(await adminGet(server, '/__sandbox/faults')).toEqual({ data: [] });
  });

  it('a hang armed over HTTP holds its request until DELETE /__sandbox/faults lets it go', async () => {
    const { sandbox, server } = await serve();
    await adminSend(server, 'POST', '/__sandbox/faults', { match: { path: '/v1/reports' }, fault: { kind: 'hang' } });
    const [armed] = sandbox.faults.list();
    const held = fetch(`${server.url}/v1/reports`);
    await armed!.waitForHits(1);
    // Used up (times 1) but still holding its request: listed, with its hit, until it lets go.
    expect(await adminGet(server, '/__sandbox/faults')).toEqual({
      data: [{ match: { path: '/v1/reports' }, fault: { kind: 'hang' }, remaining: 0, hits: 1, holding: 1 }],
    });
    const page = await fetch(`${server.url}/__sandbox/`).then((r) => r.text());
    expect(page).toContain('<td>hang</td><td class="num">0</td><td class="num">1</td><td class="num">1</td>');
    await adminSend(server, 'DELETE', '/__sandbox/faults');
    expect((await held).status).toBe(401);
    expect(await adminGet(server, '/__sandbox/faults')).toEqual({ data: [] });
  });

  it('a used-up hang released in process leaves the list once its request is answered', async () => {
    const { sandbox, server } = await serve();
    const armed = sandbox.faults.inject({ path: '/v1/reports' }, { kind: 'hang' }, { times: 2 });
    const held = [fetch(`${server.url}/v1/reports`), fetch(`${server.url}/v1/reports`)];
    await armed.waitForHits(2);
    expect(await adminGet(server, '/__sandbox/faults')).toMatchObject({ data: [{ remaining: 0, hits: 2, holding: 2 }] });
    await armed.release();
    expect((await Promise.all(held)).map((r) => r.status)).toEqual([401, 401]);
    expect(armed.holding).toBe(0);
    expect(sandbox.faults.list()).toEqual([]);
    expect(await adminGet(server, '/__sandbox/faults')).toEqual({ data: [] });
  });
});

describe('clock and reports input', () => {
  it('set_ms, a frozen Unix ms, unfreeze; reports count bounds', async () => {
    const { server } = await serve();
    expect((await adminSend(server, 'POST', '/__sandbox/clock', { set_ms: 1_800_000_000_000 })).status).toBe(200);
    expect((await adminSend(server, 'POST', '/__sandbox/clock', { freeze: 1_800_000_100_000 })).body).toMatchObject({
      now_ms: 1_800_000_100_000,
      now: '2027-01-15T08:01:40.000Z',
    });
    expect((await adminSend(server, 'POST', '/__sandbox/clock', { unfreeze: true })).status).toBe(200);
    expect((await adminSend(server, 'POST', '/__sandbox/clock', { advance_ms: 'soon' })).status).toBe(400);
    expect((await adminSend(server, 'POST', '/__sandbox/reports', { count: 0 })).status).toBe(400);
    const one = await adminSend<{ status: string }>(server, 'POST', '/__sandbox/reports', { status: 'expired', kind: 'ledger' });
    expect(one).toMatchObject({ status: 201, body: { status: 'expired', kind: 'ledger' } });
    expect((await adminGet<{ data: unknown[] }>(server, '/__sandbox/reports')).data).toHaveLength(1);
    expect((await adminSend(server, 'POST', '/__sandbox/members', [])).status).toBe(400);
    const state = await adminGet<{ merchant: { id: string }; members: unknown[] }>(server, '/__sandbox/state');
    expect(state.members).toEqual([]);
  });
});

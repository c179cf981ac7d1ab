import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { AcceptedButUnreadableError, MerchantClient } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxServer } from '../../src/testing/index.js';
import { TestClient, viaFetch } from './harness.js';

const servers: SandboxServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function served(): Promise<{ sb: Sandbox; c: TestClient; url: string; member: string }> {
  const sb = createSandbox();
  const srv = await sb.listen();
  servers.push(srv);
  const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
  const c = new TestClient(sb, viaFetch(srv.url));
  await c.auth();
  return { sb, c, url: srv.url, member: m.id };
}

const W = '/v1/withdrawals';
const body = { asset: 'USDT', amount: '10', to_address: 'T' };

describe('fault injection over real sockets', () => {
  it('status before: nothing executes; the retry with the same key executes once', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ method: 'POST', path: W }, { kind: 'status', status: 502, when: 'before' });
    const key = randomUUID();
    const failed = await c.call('POST', W, { member, key, body });
    expect(failed.status).toBe(502);
    expect(failed.json).toMatchObject({ type: 'upstream_error', code: 'upstream_error', request_id: failed.headers['x-request-id'] });
    expect(sb.state.countEffects()).toBe(0);
    const retry = await c.call('POST', W, { member, key, body });
    expect(retry.status).toBe(201);
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('status after: the effect executes and is stored; the retry replays it, money moved once', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ method: 'POST', path: W }, { kind: 'status', status: 504, when: 'after' });
    const key = randomUUID();
    const failed = await c.call('POST', W, { member, key, body });
    expect(failed.status).toBe(504);
    expect(failed.json.code).toBe('upstream_timeout');
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    const retry = await c.call('POST', W, { member, key, body });
    expect(retry.status).toBe(201);
    expect(retry.headers['x-idempotent-replay']).toBe('true');
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    expect(sb.state.balance(member, 'USDT')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
    // Every attempt carried the same key and a fresh nonce.
    const writes = sb.requests.filter((r) => r.method === 'POST' && r.path === W);
    expect(new Set(writes.map((r) => r.headers['x-idempotency-key']))).toEqual(new Set([key]));
    expect(new Set(writes.map((r) => r.headers['x-nonce'])).size).toBe(2);
  });

  it('status 500 with a custom code, and an unknown code', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'status', status: 500, code: 'api_error', when: 'before' });
    expect((await c.call('POST', W, { member, key: true, body })).json).toMatchObject({ type: 'api_error', code: 'api_error' });
    sb.faults.inject({ path: W }, { kind: 'unknown_code' });
    const odd = await c.call('POST', W, { member, key: true, body });
    expect(odd.status).toBe(500);
    expect(odd.json).toMatchObject({ type: 'api_error', code: 'brand_new_code' });
    sb.faults.inject({ path: W }, { kind: 'unknown_code', status: 400, code: 'totally_new' });
    expect((await c.call('POST', W, { member, key: true, body })).json).toMatchObject({
      type: 'invalid_request_error',
      code: 'totally_new',
    });
    expect(sb.state.countEffects()).toBe(0);
  });

  it('in_progress: 409 idempotency_in_progress without executing', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'in_progress' });
    const res = await c.call('POST', W, { member, key: true, body });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('idempotency_in_progress');
    expect(sb.state.countEffects()).toBe(0);
  });

  it('rate_limited in both envelope shapes, with Retry-After', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'rate_limited', retryAfter: 7, shape: 'flat' });
    sb.faults.inject({ path: W }, { kind: 'rate_limited', retryAfter: 3, shape: 'wrapped' });
    const flat = await c.call('POST', W, { member, key: true, body });
    expect(flat.status).toBe(429);
    expect(flat.headers['retry-after']).toBe('7');
    expect(flat.json).toMatchObject({
      type: 'rate_limit_error',
      code: 'rate_limited',
      retry_after: 7,
      request_id: flat.headers['x-request-id'],
    });
    const wrapped = await c.call('POST', W, { member, key: true, body });
    expect(wrapped.headers['retry-after']).toBe('3');
    expect(wrapped.json).toEqual({ error: { code: 'rate_limited', message: expect.any(String), retry_after: 3 } });
  });

  it('html: a proxy page with text/html and no request id', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'html', status: 502 });
    const res = await c.call('POST', W, { member, key: true, body });
    expect(res.status).toBe(502);
    expect(res.headers['content-type']).toBe('text/html');
    expect(res.headers['x-request-id']).toBeUndefined();
    expect(res.text).toContain('<html>');
    expect(res.json).toBeUndefined();
  });

  it('reset: the socket is destroyed without an answer', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'reset' });
    await expect(c.call('POST', W, { member, key: true, body })).rejects.toThrow();
    expect(sb.state.countEffects()).toBe(0);
    expect((await c.call('POST', W, { member, key: true, body })).status).toBe(201);
  });

  it('delay: answers normally afterwards', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'delay', ms: 20 });
    expect((await c.call('POST', W, { member, key: true, body })).status).toBe(201);
  });

  it('hang: holds the request unanswered with its key claimed until release(), then processes it normally', async () => {
    const { sb, c, member } = await served();
    const f = sb.faults.inject({ path: W }, { kind: 'hang' }, { times: 3 });
    const key = randomUUID();
    let answered = false;
    const held = c.call('POST', W, { member, key, body }).then((r) => {
      answered = true;
      return r;
    });
    await f.waitForHits(1);
    // While it is held: nothing executed, and the same key meets 409 in progress (held too).
    const retry = c.call('POST', W, { member, key, body });
    await f.waitForHits(2);
    expect(answered).toBe(false);
    expect(sb.state.countEffects()).toBe(0);
    // release() resolves once both held requests have their answers: the first one ran.
    await f.release();
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    const [first, second] = await Promise.all([held, retry]);
    expect(first.status).toBe(201);
    expect(second.status).toBe(409);
    expect(second.json.code).toBe('idempotency_in_progress');
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    // Released for good: later requests it hits are not held; and the key replays.
    expect((await c.call('POST', W, { member, key, body })).headers['x-idempotent-replay']).toBe('true');
    expect(f.hits).toBe(3);
    await expect(f.waitForHits(3)).resolves.toBeUndefined();
  });

  it('timestamp_skew: 401 timestamp_out_of_range', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'timestamp_skew' });
    expect((await c.call('POST', W, { member, key: true, body })).json.code).toBe('timestamp_out_of_range');
  });

  it('garble: the request executes and is stored, the 2xx goes out with an empty body; the retry replays it intact', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ method: 'POST', path: W }, { kind: 'garble' });
    const key = randomUUID();
    const spoiled = await c.call('POST', W, { member, key, body });
    expect(spoiled.status).toBe(201);
    expect(spoiled.text).toBe('');
    expect(spoiled.headers['x-request-id']).toMatch(/./);
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    expect(sb.state.balance(member, 'USDT')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
    const retry = await c.call('POST', W, { member, key, body });
    expect(retry.status).toBe(201);
    expect(retry.headers['x-idempotent-replay']).toBe('true');
    expect(retry.json).toMatchObject({ status: 'locked', asset: 'USDT', amount: '10.000000', to_address: 'T' });
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('garble with a body and a status: both replace the answer; a non-2xx outcome goes out unchanged', async () => {
    const { sb, c, member } = await served();
    sb.faults.inject({ path: W }, { kind: 'garble', body: '{"id":"wdr_', status: 200 }, { times: 2 });
    const spoiled = await c.call('POST', W, { member, key: true, body });
    expect(spoiled.status).toBe(200);
    expect(spoiled.text).toBe('{"id":"wdr_');
    expect(spoiled.json).toBeUndefined();
    // 100 available, 10 debited: 1000 is refused, and the refusal is not garbled.
    const refused = await c.call('POST', W, { member, key: true, body: { ...body, amount: '1000' } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'insufficient_balance', request_id: refused.headers['x-request-id'] });
    expect(sb.faults.list()).toHaveLength(0);
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('garble through the SDK: the accepted call is reported as accepted but unreadable, and the key recovers it', async () => {
    const { sb, url, member } = await served();
    const client = new MerchantClient({
      baseUrl: url,
      ...sb.credentials,
      backoff: { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 },
    });
    sb.faults.inject({ method: 'POST', path: W }, { kind: 'garble' });
    const key = randomUUID();
    const err = await client
      .member(member)
      .withdrawals.create(body, { idempotencyKey: key })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(AcceptedButUnreadableError);
    expect(err).toMatchObject({ status: 201, idempotencyKey: key });
    const again = await client.member(member).withdrawals.create(body, { idempotencyKey: key }).withResponse();
    expect(again.response.replayed).toBe(true);
    expect(again.data).toMatchObject({ amount: '10.000000', to_address: 'T' });
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('matches by method and path template, counts times, and can be removed or cleared', async () => {
    const { sb, c, member } = await served();
    const f = sb.faults.inject(
      { method: 'post', path: '/v1/withdrawals/:id/confirm' },
      { kind: 'status', status: 500, when: 'before' },
      { times: 2 },
    );
    const w = await c.call('POST', W, { member, key: true, body });
    expect((await c.call('GET', '/v1/balances', { member })).status).toBe(200);
    expect((await c.call('POST', `${W}/${w.json.id}/confirm`, { member, key: true })).status).toBe(500);
    expect(f.remaining).toBe(1);
    expect((await c.call('POST', `${W}/${w.json.id}/confirm`, { member, key: true })).status).toBe(500);
    expect(f.hits).toBe(2);
    expect(sb.faults.list()).toHaveLength(0);
    sb.faults.inject({ path: /^\/v1\/balances$/ }, { kind: 'html', status: 502 }, { times: Infinity });
    expect((await c.call('GET', '/v1/balances', { member })).status).toBe(502);
    expect((await c.call('GET', '/v1/balances', { member })).status).toBe(502);
    sb.faults.clear();
    expect((await c.call('GET', '/v1/balances', { member })).status).toBe(200);
  });

  it('closes with keep-alive connections open', async () => {
    const sb = createSandbox();
    const srv = await sb.listen();
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get(`${srv.url}/v1/assets`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
    expect(status).toBe(401);
    expect(srv.connections).toBe(1);
    await srv.close();
    agent.destroy();
  });
});

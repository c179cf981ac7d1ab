/**
 * The sandbox's two clocks: business time, which tests move (windows, expiries, token lifetime,
 * locks, refunds, daily limits, the idempotency window), and the signature clock, which follows
 * real time unless skewed on purpose (signatures, nonces, the `Date` header and `expired_at`).
 * Moving business time by days must break no client: neither one signing by hand with its own
 * clock nor a default `MerchantClient`; at most a token expires, and is renewed. The Python side
 * of the same promise is in test/sandbox-server/other-languages.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { isApiError, MerchantClient } from '../../src/index.js';
import { createSandbox, type Sandbox, type SandboxServer } from '../../src/testing/index.js';
import { TestClient, exchangeHeaders, viaFetch } from './harness.js';

const DAY_AND_AN_HOUR = 25 * 60 * 60 * 1000;
const servers: SandboxServer[] = [];
const clients: MerchantClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A sandbox on a socket, one member with 100 USDT, and a hand-signing client stamping real time. */
async function served(options: Parameters<typeof createSandbox>[0] = {}): Promise<{ sb: Sandbox; url: string; byHand: TestClient }> {
  const sb = createSandbox(options);
  const server = await sb.listen();
  servers.push(server);
  sb.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '100' } } });
  return { sb, url: server.url, byHand: new TestClient(sb, viaFetch(server.url)) };
}

/** A write signed with this process's own clock, as a client in any language signs. */
function realStamp(): string {
  return String(Math.floor(Date.now() / 1000));
}

const order = { asset: 'USDT', amount: '10', to_address: 'TQ7x1Vb9' };

describe('business time moved 25 hours', () => {
  it('a hand-signed write and a default MerchantClient both succeed, and the idempotency window has passed', async () => {
    const { sb, url, byHand } = await served();
    // A default client: no maxClockSkewMs, the default transport on a real socket.
    const client = new MerchantClient({ baseUrl: url, ...sb.credentials });
    clients.push(client);
    const key = randomUUID();
    const first = await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key, body: order, ts: realStamp() });
    expect(first.status).toBe(201);
    const replay = await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key, body: order, ts: realStamp() });
    expect(replay.headers['x-idempotent-replay']).toBe('true');
    expect(replay.json.id).toBe(first.json.id);
    const sdkKey = randomUUID();
    const viaSdk = await client.member('alice').withdrawals.create(order, { idempotencyKey: sdkKey });

    sb.clock.advance(DAY_AND_AN_HOUR);
    // A token exchanged 25 hours ago has expired: a client exchanges again, as on any invalid_token.
    expect((await byHand.call('GET', '/v1/balances', { member: 'alice' })).json.code).toBe('invalid_token');
    byHand.forget();

    // The same key 25 hours later is a new request: a second order, a second debit.
    const later = await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key, body: order, ts: realStamp() });
    expect(later.status).toBe(201);
    expect(later.headers['x-idempotent-replay']).toBeUndefined();
    expect(later.json.id).not.toBe(first.json.id);
    // The SDK renews its expired token once, then its reads and signed writes pass, its key window too.
    expect((await client.member('alice').balances.list())[0]?.available).toBe('70.000000');
    const again = await client.member('alice').withdrawals.create(order, { idempotencyKey: sdkKey }).withResponse();
    expect(again.response.replayed).toBe(false);
    expect(again.response.attempts).toBe(1);
    expect(again.data.id).not.toBe(viaSdk.id);
    expect(client.clockOffsetMs).toBe(0);
    expect(sb.state.countEffects('withdrawal.create')).toBe(4);
    // Nothing was refused on the way but the two expired tokens; no signature, no timestamp.
    expect(sb.requests.filter((r) => (r.status ?? 0) >= 400).map((r) => r.code)).toEqual(['invalid_token', 'invalid_token']);
  });

  it('sandbox.client() needs no clock setting for a move of 400 days', async () => {
    const sb = createSandbox();
    sb.state.seedMember({ external_member_id: 'bob', balances: { USDT: { available: '5' } } });
    const client = sb.client();
    clients.push(client);
    sb.clock.advance(400 * 86_400_000);
    await client.member('bob').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' });
    expect(client.clockOffsetMs).toBe(0);
    expect(sb.requests.map((r) => r.status)).toEqual([200, 201]);
  });

  it('business time never frees a nonce, the signature clock does; a token lives 30 minutes of business time', async () => {
    const { sb, byHand } = await served();
    const nonce = randomUUID();
    expect((await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key: true, body: order, nonce })).status).toBe(201);
    sb.clock.advance(29 * 60_000);
    byHand.forget();
    const reused = await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key: true, body: order, nonce });
    expect(reused.json.code).toBe('nonce_reused');
    // The signature clock 5 minutes on frees the nonce (signed on it, as a client corrected from Date signs).
    sb.clock.skewSignatures(5 * 60_000 + 1_000);
    expect((await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key: true, body: order, nonce })).status).toBe(201);
    // It leaves the token alone; one more business minute past its 30 expires it.
    expect((await byHand.call('GET', '/v1/balances', { member: 'alice' })).status).toBe(200);
    sb.clock.advance(31 * 60_000);
    expect((await byHand.call('GET', '/v1/balances', { member: 'alice' })).json.code).toBe('invalid_token');
  });

  it('expired_at is told on the signature clock, whatever business time says', async () => {
    const { sb, url } = await served();
    sb.clock.advance(DAY_AND_AN_HOUR);
    const before = Math.floor(Date.now() / 1000);
    const res = await new TestClient(sb, viaFetch(url)).call('POST', '/v1/connect/token', { noToken: true, headers: exchangeHeaders(sb) });
    const after = Math.floor(Date.now() / 1000);
    expect(res.json.expired_at).toBeGreaterThanOrEqual(before + 1800);
    expect(res.json.expired_at).toBeLessThanOrEqual(after + 1800);
  });
});

describe('the signature skew setting', () => {
  it.each([
    ['+10 minutes', 10 * 60_000],
    ['-10 minutes', -10 * 60_000],
  ])('skewed %s: a write stamped with the real clock gets timestamp_out_of_range, business time untouched', async (_name, skew) => {
    const { sb, byHand } = await served();
    const business = sb.clock.now();
    sb.clock.skewSignatures(skew);
    expect(sb.clock.signatureSkewMs).toBe(skew);
    expect(Math.abs(sb.clock.now() - business)).toBeLessThan(Math.abs(skew));
    const res = await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key: true, body: order, ts: realStamp() });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe('timestamp_out_of_range');
    expect(sb.state.countEffects()).toBe(0);
    // Stamped on the skewed clock, the same write passes.
    const ok = await byHand.call('POST', '/v1/withdrawals', { member: 'alice', key: true, body: order });
    expect(ok.status).toBe(201);
  });

  it('a client corrects itself from the Date header after one timestamp_out_of_range', async () => {
    const sb = createSandbox({ signatureSkewMs: 10 * 60_000 });
    sb.state.seedMember({ external_member_id: 'carol', balances: { USDT: { available: '5' } } });
    const client = sb.client({ maxRetries: 0 });
    clients.push(client);
    const r = await client.member('carol').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }).withResponse();
    expect(Math.round(client.clockOffsetMs / 60_000)).toBe(10);
    expect(sb.requests.filter((q) => q.code === 'timestamp_out_of_range').length).toBeGreaterThanOrEqual(1);
    expect(r.response.idempotencyKey).toBeDefined();
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('beyond the client bound, the default client refuses to follow it (ClockSkewError), so the setting tests that path too', async () => {
    const sb = createSandbox({ signatureSkewMs: 2 * 3_600_000 });
    sb.state.seedMember({ external_member_id: 'dan', balances: { USDT: { available: '5' } } });
    const client = sb.client();
    clients.push(client);
    const err = await client
      .member('dan')
      .withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' })
      .catch((e: unknown) => e);
    expect((err as Error).name).toBe('ClockSkewError');
    expect(isApiError(err)).toBe(false);
    expect(sb.state.countEffects()).toBe(0);
  });

  it('the signatureSkewMs option survives reset(); a skew set at run time does not', () => {
    const sb = createSandbox({ signatureSkewMs: -90_000 });
    expect(sb.clock.signatureSkewMs).toBe(-90_000);
    sb.clock.skewSignatures(600_000);
    sb.clock.advance(DAY_AND_AN_HOUR);
    sb.reset();
    expect(sb.clock.signatureSkewMs).toBe(-90_000);
    expect(Math.abs(sb.clock.now() - Date.now())).toBeLessThan(DAY_AND_AN_HOUR);
    expect(() => sb.clock.skewSignatures(Number.NaN)).toThrow('finite');
  });
});

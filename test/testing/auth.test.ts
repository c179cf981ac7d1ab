import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type SandboxServer } from '../../src/testing/index.js';
import { TestClient, exchangeHeaders, signHeaders, viaFetch, viaHandle } from './harness.js';

const servers: SandboxServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('token exchange', () => {
  it('issues a 30-minute Bearer token over a real socket and counts exchanges', async () => {
    const sb = createSandbox();
    // Business time a year on: `expired_at` is told on the signature clock (real time).
    sb.clock.advance(365 * 86_400_000);
    const srv = await sb.listen();
    servers.push(srv);
    const before = Math.floor(Date.now() / 1000);
    const res = await fetch(`${srv.url}/v1/connect/token`, { method: 'POST', headers: exchangeHeaders(sb) });
    const after = Math.floor(Date.now() / 1000);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]+$/);
    const body = (await res.json()) as { auth_token: string; expired_at: number; token_type: string; scopes: string[] };
    expect(body.token_type).toBe('Bearer');
    expect(body.expired_at).toBeGreaterThanOrEqual(before + 1800);
    expect(body.expired_at).toBeLessThanOrEqual(after + 1800);
    expect(body.scopes).toContain('withdrawals:write');
    expect(sb.stats.tokenExchanges).toBe(1);
  });

  it('answers missing, empty and wrong credentials with one invalid_credentials response', async () => {
    const sb = createSandbox();
    const { clientId, apiKey } = sb.credentials;
    const variants: Array<Record<string, string>> = [
      {},
      { 'x-client-id': '', 'x-api-key': '' },
      { 'x-client-id': clientId, 'x-api-key': 'wrong' },
      { 'x-client-id': 'nobody', 'x-api-key': apiKey },
      // Credentials in Authorization or the body are not read.
      { authorization: `Basic ${Buffer.from(`${clientId}:${apiKey}`).toString('base64')}` },
    ];
    for (const headers of variants) {
      const res = await sb.handle({ method: 'POST', url: '/v1/connect/token', headers, body: '' });
      expect(res.status).toBe(401);
      const body = JSON.parse(res.body) as Record<string, unknown>;
      expect(body).toMatchObject({ type: 'authentication_error', code: 'invalid_credentials', request_id: res.headers['x-request-id'] });
    }
    expect(sb.stats.tokenExchanges).toBe(0);
  });

  it('limits token exchange to 20 per minute with Retry-After, then recovers on the sandbox clock', async () => {
    const sb = createSandbox();
    const exchange = () => sb.handle({ method: 'POST', url: '/v1/connect/token', headers: exchangeHeaders(sb) });
    for (let i = 0; i < 20; i++) expect((await exchange()).status).toBe(200);
    const limited = await exchange();
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(JSON.parse(limited.body)).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error', retry_after: 60 });
    sb.clock.advance(60_001);
    expect((await exchange()).status).toBe(200);
    expect(sb.stats.tokenExchanges).toBe(21);
  });

  it('rejects expired, revoked, rotated and disabled tokens with invalid_token', async () => {
    const sb = createSandbox();
    const m = sb.state.seedMember();
    const c = new TestClient(sb, viaHandle(sb));
    expect((await c.call('GET', '/v1/balances', { member: m.id })).status).toBe(200);
    // Tokens live 30 minutes of business time; the signature clock does not expire them.
    sb.clock.skewSignatures(-2 * 60_000);
    expect((await c.call('GET', '/v1/balances', { member: m.id })).status).toBe(200);
    sb.clock.skewSignatures(0);
    sb.clock.advance(30 * 60_000);
    expect((await c.call('GET', '/v1/balances', { member: m.id })).json.code).toBe('invalid_token');

    c.forget();
    expect((await c.call('GET', '/v1/balances', { member: m.id })).status).toBe(200);
    sb.revokeTokens();
    expect((await c.call('GET', '/v1/balances', { member: m.id })).json.code).toBe('invalid_token');

    c.forget();
    const old = sb.credentials;
    const next = sb.rotateCredentials();
    expect(next.apiKey).not.toBe(old.apiKey);
    const stale = await sb.handle({
      method: 'POST',
      url: '/v1/connect/token',
      headers: { 'x-client-id': old.clientId, 'x-api-key': old.apiKey },
    });
    expect(JSON.parse(stale.body).code).toBe('invalid_credentials');
    expect((await c.call('GET', '/v1/balances', { member: m.id })).status).toBe(200);

    sb.disableKey();
    expect((await c.call('GET', '/v1/balances', { member: m.id })).json.code).toBe('invalid_token');
    c.forget();
    await expect(c.auth()).rejects.toThrow(/invalid_credentials/);
  });

  it('accepts authorization: Bearer and refuses a token without the Bearer scheme', async () => {
    const sb = createSandbox();
    const m = sb.state.seedMember();
    const token = await new TestClient(sb, viaHandle(sb)).auth();
    const ok = await sb.handle({
      method: 'GET',
      url: '/v1/balances',
      headers: { authorization: `Bearer ${token}`, 'x-on-behalf-of': m.id },
    });
    expect(ok.status).toBe(200);
    const bare = await sb.handle({ method: 'GET', url: '/v1/balances', headers: { 'x-auth-token': token, 'x-on-behalf-of': m.id } });
    expect(JSON.parse(bare.body).code).toBe('invalid_token');
  });

  it('sends a Date header from the signature clock: business time moves leave it alone, a skew moves it', async () => {
    const sb = createSandbox();
    sb.clock.set(Date.UTC(2030, 0, 2, 3, 4, 5));
    const dateOf = async (): Promise<{ date: number; lo: number; hi: number }> => {
      const lo = Date.now();
      const res = await sb.handle({ method: 'GET', url: '/v1/assets', headers: {} });
      return { date: Date.parse(res.headers['date']!), lo: Math.floor(lo / 1000) * 1000, hi: Date.now() };
    };
    const real = await dateOf();
    expect(real.date).toBeGreaterThanOrEqual(real.lo);
    expect(real.date).toBeLessThanOrEqual(real.hi);
    sb.clock.skewSignatures(-2 * 3_600_000);
    const skewed = await dateOf();
    expect(skewed.date).toBeGreaterThanOrEqual(skewed.lo - 2 * 3_600_000);
    expect(skewed.date).toBeLessThanOrEqual(skewed.hi - 2 * 3_600_000);
  });
});

describe('signatures', () => {
  const setup = () => {
    const sb = createSandbox();
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    return { sb, m, c: new TestClient(sb, viaHandle(sb)) };
  };
  const withdrawal = { asset: 'USDT', amount: '1', to_address: 'T1' };

  it('accepts a correct signature over a real socket', async () => {
    const { sb, m } = setup();
    const srv = await sb.listen();
    servers.push(srv);
    const c = new TestClient(sb, viaFetch(srv.url));
    const res = await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal });
    expect(res.status).toBe(201);
  });

  it('rejects a body changed after signing, and does not consume the nonce then', async () => {
    const { sb, m, c } = setup();
    const token = await c.auth();
    const nonce = randomUUID();
    const ts = String(Math.floor(sb.clock.signatureNow() / 1000));
    const signed = JSON.stringify(withdrawal);
    const sig = signHeaders(sb.credentials.signingKey, 'POST', '/v1/withdrawals', signed, ts, nonce);
    const headers = { ...sig, 'x-auth-token': `Bearer ${token}`, 'x-on-behalf-of': m.id, 'x-idempotency-key': randomUUID() };
    const tampered = await sb.handle({ method: 'POST', url: '/v1/withdrawals', headers, body: signed.replace('"1"', '"2"') });
    expect(tampered.status).toBe(401);
    expect(JSON.parse(tampered.body).code).toBe('invalid_signature');
    // Same nonce, now with the signed bytes: accepted, since the failed attempt consumed nothing.
    const ok = await sb.handle({ method: 'POST', url: '/v1/withdrawals', headers, body: signed });
    expect(ok.status).toBe(201);
  });

  it('answers timestamp_out_of_range for a millisecond timestamp and outside ±300 s', async () => {
    const { sb, m, c } = setup();
    const ms = String(sb.clock.now());
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, ts: ms })).json.code).toBe(
      'timestamp_out_of_range',
    );
    const early = String(Math.floor(sb.clock.signatureNow() / 1000) - 301);
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, ts: early })).json.code).toBe(
      'timestamp_out_of_range',
    );
    const edge = String(Math.floor(sb.clock.signatureNow() / 1000) - 299);
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, ts: edge })).status).toBe(201);
  });

  it('answers nonce_reused within 5 minutes and accepts the nonce again after', async () => {
    const { sb, m, c } = setup();
    const nonce = randomUUID();
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, nonce })).status).toBe(201);
    const again = await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, nonce });
    expect(again.status).toBe(401);
    expect(again.json.code).toBe('nonce_reused');
    // The nonce window runs on the signature clock; business time would not free it (a day later,
    // with a token exchanged again, the nonce is still taken).
    sb.clock.advance(86_400_000);
    c.forget();
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, nonce })).json.code).toBe('nonce_reused');
    sb.clock.skewSignatures(5 * 60_000 + 1_000);
    c.forget();
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, nonce })).status).toBe(201);
  });

  it('answers invalid_signature for missing headers, a non-numeric timestamp and a hex HMAC', async () => {
    const { sb, m, c } = setup();
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, noSign: true })).json.code).toBe(
      'invalid_signature',
    );
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: withdrawal, ts: '17e8' })).json.code).toBe(
      'invalid_signature',
    );
    const token = await c.auth();
    const ts = String(Math.floor(sb.clock.signatureNow() / 1000));
    const nonce = randomUUID();
    const { createHash, createHmac } = await import('node:crypto');
    const body = JSON.stringify(withdrawal);
    const str = `POST\n/v1/withdrawals\n${ts}\n${nonce}\n${createHash('sha256').update(body).digest('hex')}`;
    const hexSig = createHmac('sha256', sb.credentials.signingKey).update(str).digest('hex');
    const res = await sb.handle({
      method: 'POST',
      url: '/v1/withdrawals',
      headers: {
        'x-auth-token': `Bearer ${token}`,
        'x-on-behalf-of': m.id,
        'x-idempotency-key': randomUUID(),
        'x-timestamp': ts,
        'x-nonce': nonce,
        'x-signature': hexSig,
      },
      body,
    });
    expect(JSON.parse(res.body).code).toBe('invalid_signature');
  });

  it('verifies the path and query exactly as sent (order and percent-encoding matter)', async () => {
    const { sb, m, c } = setup();
    const card = sb.state.seedCard({ member: m.id });
    const token = await c.auth();
    const ts = String(Math.floor(sb.clock.signatureNow() / 1000));
    const body = '{"single":"100"}';
    const sent = `/v1/cards/${card.id}/limits?b=2&a=caf%C3%A9`;
    const good = signHeaders(sb.credentials.signingKey, 'PATCH', sent, body, ts, randomUUID());
    const base = { 'x-auth-token': `Bearer ${token}`, 'x-on-behalf-of': m.id };
    expect((await sb.handle({ method: 'PATCH', url: sent, headers: { ...base, ...good }, body })).status).toBe(200);
    const reordered = signHeaders(
      sb.credentials.signingKey,
      'PATCH',
      `/v1/cards/${card.id}/limits?a=caf%C3%A9&b=2`,
      body,
      ts,
      randomUUID(),
    );
    expect(JSON.parse((await sb.handle({ method: 'PATCH', url: sent, headers: { ...base, ...reordered }, body })).body).code).toBe(
      'invalid_signature',
    );
    // An absolute URL is reduced to its path and query without re-encoding.
    const abs = signHeaders(sb.credentials.signingKey, 'PATCH', sent, body, ts, randomUUID());
    expect(
      (await sb.handle({ method: 'PATCH', url: `https://sandbox.example.test${sent}`, headers: { ...base, ...abs }, body })).status,
    ).toBe(200);
  });

  it('agrees with the spec signing vectors (computed with openssl)', async () => {
    // Copied from the spec's signing-vectors.json (known answers computed with openssl).
    const vectors = {
      signing_key: 'sk_test_7Qm2vX9pL4rT8wZ1',
      vectors: [
        {
          method: 'POST',
          path_with_query: '/v1/withdrawals',
          x_timestamp: '1763806800',
          x_nonce: '3f1c2a9e-6b7d-4e21-9a0f-5c8d7e6b4a31',
          body_utf8: '{"asset":"USDT","amount":"25.50","to_address":"TQ7x1Vb9"}',
          x_signature: 'AzLU2CdiX/tN0qIjmGUQsBQRzUGpB3KSQumhHGAyu0M=',
        },
        {
          method: 'DELETE',
          path_with_query: '/v1/shipping-addresses/addr_1',
          x_timestamp: '1763806802',
          x_nonce: 'b7e0f4c2-1d3a-4f5e-8b9c-0a1b2c3d4e5f',
          body_utf8: '',
          x_signature: 'xHBzszcGcLRDUUgR8e7n3es6Vg0moQb+5uJ6QgqvzGI=',
        },
        {
          method: 'POST',
          path_with_query: '/v1/remittances/rmt_9d8c7b6a/cancel',
          x_timestamp: '1763806803',
          x_nonce: '0c9b8a7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d',
          body_utf8: '{}',
          x_signature: 'mpITtUA9GTAQJcbJGlV3iMhynftemESkZt0biuceCo0=',
        },
        {
          method: 'PATCH',
          path_with_query: '/v1/cards/crd_42/limits?note=caf%C3%A9%20au%20lait',
          x_timestamp: '1763806804',
          x_nonce: '5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d',
          body_utf8: '{"single":"100","daily":"500","monthly":"0","memo":"café ☕"}',
          x_signature: 'a0kq/Ycx/rsDFpQJjBIi2nXkwHRjfD7TQdpLnulezhk=',
        },
      ],
    };
    for (const v of vectors.vectors) {
      const sb = createSandbox({ signingKey: vectors.signing_key });
      // The signature clock set to the vector's time (well inside the ±300 s window).
      sb.clock.skewSignatures(Number(v.x_timestamp) * 1000 - Date.now());
      const token = await new TestClient(sb, viaHandle(sb)).auth();
      const res = await sb.handle({
        method: v.method,
        url: v.path_with_query,
        headers: { 'x-auth-token': `Bearer ${token}`, 'x-timestamp': v.x_timestamp, 'x-nonce': v.x_nonce, 'x-signature': v.x_signature },
        body: Buffer.from(v.body_utf8, 'utf8'),
      });
      // Past the signature check, each request fails later for want of a member header.
      expect(JSON.parse(res.body).code, v.path_with_query).toBe('member_context_required');
    }
  });
});

describe('scopes, member context and routing', () => {
  it('answers 403 insufficient_scope from the current scopes, and write covers read', async () => {
    const sb = createSandbox({ scopes: ['balances:read', 'not:a_scope'] });
    expect(sb.scopes).toEqual(['balances:read']);
    const m = sb.state.seedMember({ balances: { USDT: { available: '10' } } });
    const c = new TestClient(sb, viaHandle(sb));
    const res = await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: { asset: 'USDT', amount: '1', to_address: 'x' } });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    expect(sb.state.countEffects()).toBe(0);
    expect((await c.call('GET', '/v1/reports')).json.code).toBe('insufficient_scope');
    sb.setScopes(['merchant:write']);
    expect((await c.call('GET', '/v1/reports')).status).toBe(200);
  });

  it('requires x-on-behalf-of on member endpoints and hides unknown and suspended members', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    expect((await c.call('GET', '/v1/balances')).json.code).toBe('member_context_required');
    expect((await c.call('GET', '/v1/balances', { member: '   ' })).json.code).toBe('member_context_required');
    const missing = await c.call('GET', '/v1/balances', { member: 'mem_nope' });
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('member_not_found');
    const m = sb.state.seedMember({ external_member_id: 'alice' });
    expect((await c.call('GET', '/v1/balances', { member: ' alice ' })).status).toBe(200);
    sb.state.suspendMember(m.id);
    expect((await c.call('GET', '/v1/balances', { member: m.id })).json.code).toBe('member_not_found');
  });

  it('answers 404 not_found for unknown paths and methods, with the envelope and request id', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    const res = await c.call('GET', '/v1/nothing/here');
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ type: 'not_found', code: 'not_found', request_id: res.headers['x-request-id'] });
    expect((await c.call('DELETE', '/v1/balances')).json.code).toBe('not_found');
  });

  it('records every request with its exact path, lowercased headers and body', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    await c.call('GET', '/v1/reports?limit=5&cursor=a%2Fb', { headers: { 'X-Custom': 'yes' } });
    const last = sb.requests[sb.requests.length - 1];
    expect(last?.path).toBe('/v1/reports?limit=5&cursor=a%2Fb');
    expect(last?.headers['x-custom']).toBe('yes');
    expect(sb.requests.length).toBe(2);
    sb.requests.clear();
    expect(sb.requests.length).toBe(0);
  });
});

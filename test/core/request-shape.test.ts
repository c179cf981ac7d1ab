/**
 * What each request carries on the wire (spec: Endpoints > Common rules, Authentication), and
 * what the client refuses to send.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError, SDK_VERSION, type MerchantClient, type RateLimitBucket } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const KEY = '0f8fad5b-d9cb-469f-a165-70867728950e';

async function rejected(p: PromiseLike<unknown> | (() => unknown)): Promise<unknown> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('idempotency keys', () => {
  it('a key the caller passes is sent even on an endpoint that takes none by default', async () => {
    server.on('POST', '/v1/members/m_1/suspend', { body: { ok: true } });
    const { response } = await client.members.suspend('m_1', {}, { idempotencyKey: KEY }).withResponse();
    await client.members.suspend('m_1');
    const [withKey, without] = server.calls();
    expect(withKey!.headers['x-idempotency-key']).toBe(KEY);
    expect(response.idempotencyKey).toBe(KEY);
    expect(without!.headers['x-idempotency-key']).toBeUndefined();
  });

  it('a key must be UUID-shaped as a whole: no prefix, no suffix, no other type', async () => {
    for (const key of [`x${KEY}`, `${KEY}x`, KEY.replace(/-/g, ''), `${KEY.slice(0, 35)}g`, 42 as unknown as string]) {
      const err = await rejected(
        client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: key }),
      );
      expect(err, String(key)).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('idempotencyKey');
      expect((err as Error).message).toMatch(/UUID-shaped/);
    }
    expect(server.requests).toHaveLength(0);
  });
});

describe('signatures', () => {
  it('HEAD is not signed, like GET (every other method is)', async () => {
    server.on('HEAD', '/v1/assets', { status: 200 });
    await client.request({ method: 'HEAD', path: '/v1/assets' });
    const [head] = server.calls();
    expect(head!.method).toBe('HEAD');
    for (const h of ['x-timestamp', 'x-nonce', 'x-signature']) expect(head!.headers[h]).toBeUndefined();
  });

  it('PUT and POST without a body are signed over the empty-body hash', async () => {
    server.on('PUT', '/v1/things/1', { body: {} });
    server.on('POST', '/v1/things/1/touch', { body: {} });
    await client.request({ method: 'PUT', path: '/v1/things/1', body: { a: 1 } });
    await client.request({ method: 'POST', path: '/v1/things/1/touch' });
    const [put, post] = server.calls();
    expect(put!.signatureValid).toBe(true);
    expect(post!.signatureValid).toBe(true);
    expect(post!.body.length).toBe(0);
    expect(post!.headers['content-type']).toBeUndefined();
  });
});

describe('headers of every request', () => {
  it('accept, the user agent with its suffix, and the caller extra headers', async () => {
    const branded = wireClient(server.url, { userAgentSuffix: 'my-shop/1.4' });
    server.on('GET', '/v1/assets', { body: {} });
    await branded.request({ method: 'GET', path: '/v1/assets', options: { headers: { 'x-trace-id': 't-1' } } });
    await branded.close();
    const [req] = server.calls();
    expect(req!.headers.accept).toBe('application/json');
    expect(req!.headers['user-agent']).toBe(`merchant-stablecoin/${SDK_VERSION} node/${process.versions.node} my-shop/1.4`);
    expect(req!.headers['x-trace-id']).toBe('t-1');
  });

  it('headers the SDK sets cannot be overridden, in any letter case, and nothing is sent', async () => {
    for (const name of [
      'x-auth-token',
      'Authorization',
      'x-timestamp',
      'x-nonce',
      'X-Signature',
      'x-idempotency-key',
      'x-on-behalf-of',
      'x-client-id',
      'x-api-key',
      'Content-Type',
      'content-length',
      'host',
    ]) {
      const err = await rejected(client.request({ method: 'POST', path: '/v1/x', body: {}, options: { headers: { [name]: 'v' } } }));
      expect(err, name).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('headers');
      expect((err as Error).message).toContain(`${name} is set by the SDK`);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('an extra header value with CR, LF or another control character is refused', async () => {
    for (const value of ['a\r\nx-evil: 1', 'a\u0000b', 'a\u007fb']) {
      const err = await rejected(client.request({ method: 'GET', path: '/v1/x', options: { headers: { 'x-note': value } } }));
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect((err as Error).message).toMatch(/x-note must not contain control characters/);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('the member travels in x-on-behalf-of: Latin-1 is sent, other text and controls are refused', async () => {
    server.on('GET', '/v1/kyc', { body: {} });
    await client.member('josé-42').kyc.status();
    expect(server.calls()[0]!.headers['x-on-behalf-of']).toBe('josé-42');
    for (const [member, reason] of [
      ['会员-1', /Latin-1/],
      ['a\tb', /control characters/],
      ['', /non-blank/],
      [' \t', /non-blank/],
      [7, /non-blank/],
    ] as const) {
      const err = await rejected(() => client.request({ method: 'GET', path: '/v1/kyc', onBehalfOf: member as string }));
      expect(err, String(member)).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('member');
      expect((err as Error).message).toMatch(reason);
    }
    expect(server.calls()).toHaveLength(1);
  });
});

describe('a base URL with a path prefix', () => {
  it('prefixes every path, signs the full path, and picks the rate bucket from the /v1 path', async () => {
    const buckets: RateLimitBucket[] = [];
    const prefixed = wireClient(`${server.url}/gateway/v1`, { limiter: { acquire: async (bucket) => void buckets.push(bucket) } });
    server.on('POST', '/gateway/v1/connect/token', {
      body: { auth_token: 'tok_g', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
    });
    server.on('POST', '/gateway/v1/deposits', { status: 201, body: {} });
    server.on('POST', '/gateway/v1/members', { status: 201, body: {} });
    server.on('GET', '/gateway/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await prefixed.member('m').deposits.declare({ asset: 'USDT', amount: '1', tx_hash: '0xabc' });
    await prefixed.members.create({ external_member_id: 'ext-9' });
    await prefixed.assets.list();
    await prefixed.close();
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /gateway/v1/connect/token',
      'POST /gateway/v1/deposits',
      'POST /gateway/v1/members',
      'GET /gateway/v1/assets',
    ]);
    // Every write is signed over its full path; the token exchange is not signed at all.
    const writes = server.requests.filter((c) => c.method === 'POST' && !c.url.endsWith('/connect/token'));
    expect(writes.map((c) => c.signatureValid)).toEqual([true, true]);
    expect(server.requests[0]!.headers['x-signature']).toBeUndefined();
    expect(buckets).toEqual(['deposits', 'members_write', 'reads']);
  });
});

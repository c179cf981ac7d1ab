import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../src/index.js';
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

describe('what arrives at the socket verifies', () => {
  it('signs a POST with a non-ASCII body and a query that needs percent-encoding', async () => {
    server.on('PATCH', '/v1/cards/crd_42/limits', { body: { id: 'crd_42', accepted: true } });
    const body = { single: '100', daily: '500', monthly: '0', memo: 'café ☕ "quoted" \u2028' };
    const before = Math.floor(Date.now() / 1000);
    await client.request({
      method: 'PATCH',
      path: '/v1/cards/crd_42/limits',
      query: { note: "café au lait (l'été) *!", b: 'x y/z?&=' },
      body,
      onBehalfOf: 'ext-1',
    });
    const [req] = server.calls();
    expect(req!.url).toBe('/v1/cards/crd_42/limits?note=caf%C3%A9%20au%20lait%20%28l%27%C3%A9t%C3%A9%29%20%2A%21&b=x%20y%2Fz%3F%26%3D');
    expect(req!.body.toString('utf8')).toBe(JSON.stringify(body));
    expect(req!.signatureValid).toBe(true);
    expect(req!.headers['x-signature']).toHaveLength(44);
    expect(req!.headers['x-timestamp']).toMatch(/^\d{10}$/);
    // Unix seconds of the moment it was signed: within the call, on any machine.
    expect(Number(req!.headers['x-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(req!.headers['x-timestamp'])).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(req!.headers['x-on-behalf-of']).toBe('ext-1');
    expect(req!.headers['content-type']).toBe('application/json');
  });

  it('signs DELETE with the empty-body hash and sends no body', async () => {
    server.on('DELETE', '/v1/shipping-addresses/addr_1', { status: 204 });
    await client.request({ method: 'DELETE', path: '/v1/shipping-addresses/addr_1', onBehalfOf: 'ext-1' });
    const [req] = server.calls();
    expect(req!.body.length).toBe(0);
    expect(req!.signatureValid).toBe(true);
    expect(req!.headers['content-type']).toBeUndefined();
  });

  it('does not sign GET and sends the token in x-auth-token', async () => {
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await client.request({ method: 'GET', path: '/v1/assets' });
    const [req] = server.calls();
    expect(req!.headers['x-signature']).toBeUndefined();
    expect(req!.headers['x-nonce']).toBeUndefined();
    expect(req!.headers['x-auth-token']).toBe('Bearer tok_1');
    expect(req!.headers['x-idempotency-key']).toBeUndefined();
  });

  it('exchanges the token with header credentials only: no body, no signature (the signing key is never used for it)', async () => {
    server.on('GET', '/v1/assets', { body: {} });
    await client.request({ method: 'GET', path: '/v1/assets' });
    const token = server.requests.find((r) => r.url === '/v1/connect/token')!;
    expect(token.method).toBe('POST');
    expect(token.headers['x-client-id']).toBe('cli_wire_test');
    expect(token.headers['x-api-key']).toBe('ak_wire_test_Q7p2');
    expect(token.headers.authorization).toBeUndefined();
    for (const header of ['x-timestamp', 'x-nonce', 'x-signature', 'x-idempotency-key', 'x-auth-token', 'content-type'])
      expect(token.headers[header], header).toBeUndefined();
    expect(token.body.length).toBe(0);
    // Nothing of the exchange depends on the signing key: the same bytes whatever key the client holds.
    const other = wireClient(server.url, { signingKey: 'sk_another_key' });
    await other.request({ method: 'GET', path: '/v1/assets' });
    const second = server.requests.filter((r) => r.url === '/v1/connect/token')[1]!;
    const sent = (r: typeof token) =>
      Object.keys(r.headers)
        .filter((h) => h.startsWith('x-'))
        .sort();
    expect(sent(second)).toEqual(['x-api-key', 'x-client-id']);
    expect(sent(token)).toEqual(['x-api-key', 'x-client-id']);
    await other.close();
  });

  it('encodes path ids so that they cannot change the path', async () => {
    server.on('GET', '/v1/reports/a%2F..%2Fb%3Fx%23y%20%C3%A9', { body: { id: 'ok' } });
    const report = await client.reports.retrieve('a/../b?x#y é');
    expect(report).toMatchObject({ id: 'ok' });
    expect(server.calls()[0]!.url).toBe('/v1/reports/a%2F..%2Fb%3Fx%23y%20%C3%A9');
  });

  it('rejects header injection through a member id before sending', async () => {
    expect(() => client.member('ext-1\r\nx-evil: 1')).toThrow(/control characters/);
    await expect(client.request({ method: 'GET', path: '/v1/balances', onBehalfOf: ' ' })).rejects.toMatchObject({
      name: 'InvalidArgumentError',
      argument: 'member',
    });
    expect(server.requests).toHaveLength(0);
  });
});

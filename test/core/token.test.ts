import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiError, isApiError, MemoryTokenStore, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: { data: [] } });
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const read = (c = client) => c.request({ method: 'GET', path: '/v1/assets' });
const now = () => Math.floor(Date.now() / 1000);

describe('token manager', () => {
  it('1,000 concurrent calls on a cold client make exactly one exchange', async () => {
    server.onToken({ delayMs: 50, body: { auth_token: 'tok_once', expired_at: now() + 1800, token_type: 'Bearer', scopes: [] } });
    await Promise.all(Array.from({ length: 1000 }, () => read()));
    expect(server.tokenExchanges()).toBe(1);
    expect(server.calls()).toHaveLength(1000);
    expect(new Set(server.calls().map((c) => c.headers['x-auth-token']))).toEqual(new Set(['Bearer tok_once']));
  });

  it('reuses a fresh token, and renews a stored one that is inside the renewal margin before use', async () => {
    await read();
    await read();
    expect(server.tokenExchanges()).toBe(1);
    // A stored token expiring in 60 s is inside the default 120 s margin: renewed before use.
    const stored: { token: string; expiresAt: number }[] = [{ token: 'short_stored', expiresAt: now() + 60 }];
    const store = {
      get: () => stored.at(-1),
      set: (_k: string, t: { token: string; expiresAt: number }) => void stored.push(t),
      delete: () => {},
    };
    const c2 = wireClient(server.url, { tokenStore: store });
    await read(c2);
    await read(c2);
    expect(server.tokenExchanges()).toBe(2);
    expect(
      server
        .calls()
        .slice(-2)
        .map((c) => c.headers['x-auth-token']),
    ).toEqual(['Bearer tok_2', 'Bearer tok_2']);
    await c2.close();
  });

  it('uses a token that arrives already inside the margin (or expired) for a while, instead of renewing on every call', async () => {
    let n = 0;
    server.onToken(() => ({ body: { auth_token: `short_${++n}`, expired_at: now() - 5, token_type: 'Bearer', scopes: [] } }));
    const c2 = wireClient(server.url);
    for (let i = 0; i < 30; i++) await read(c2);
    expect(server.tokenExchanges()).toBe(1);
    expect(new Set(server.calls().map((c) => c.headers['x-auth-token']))).toEqual(new Set(['Bearer short_1']));
    await c2.close();
  });

  it('on invalid_token drops the token, renews once and retries the call once', async () => {
    server.on('GET', '/v1/assets', [apiError(401, 'invalid_token'), { body: { data: [] } }]);
    await read();
    expect(server.tokenExchanges()).toBe(2);
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_1', 'Bearer tok_2']);
  });

  it('a second invalid_token is raised, not looped', async () => {
    server.on('GET', '/v1/assets', apiError(401, 'invalid_token'));
    const err = await read().catch((e: unknown) => e);
    expect(isApiError(err, 'invalid_token')).toBe(true);
    expect(server.tokenExchanges()).toBe(2);
    expect(server.calls()).toHaveLength(2);
  });

  it('invalid_credentials fails fast and is never retried', async () => {
    server.onToken(apiError(401, 'invalid_credentials'));
    const err = await read().catch((e: unknown) => e);
    expect(isApiError(err, 'invalid_credentials')).toBe(true);
    expect((err as ApiError).retryClass).toBe('fatal');
    expect(server.tokenExchanges()).toBe(1);
    expect(server.calls()).toHaveLength(0);
  });

  it('honours a 429 on the token endpoint with its Retry-After', async () => {
    server.onToken([
      { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '0' } },
      { body: { auth_token: 'tok_late', expired_at: now() + 1800, token_type: 'Bearer', scopes: [] } },
    ]);
    await read();
    expect(server.tokenExchanges()).toBe(2);
    expect(server.calls()[0]!.headers['x-auth-token']).toBe('Bearer tok_late');
  });

  it('shares one token through a pluggable store', async () => {
    const store = new MemoryTokenStore();
    const a = wireClient(server.url, { tokenStore: store });
    const b = wireClient(server.url, { tokenStore: store });
    await read(a);
    await read(b);
    expect(server.tokenExchanges()).toBe(1);
    await a.close();
    await b.close();
  });
});

/**
 * A token store with a renewal lock (the `TokenStore.withRenewalLock` contract that fleet stores
 * implement, docs/fleet.md): N instances make one exchange. Read on the wire: which token each
 * call carried and how many exchanges reached the token endpoint.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MerchantClient, StoredToken, TokenStore } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: { data: [] } });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const nowSeconds = (): number => Math.floor(Date.now() / 1000);
const read = () => client.request({ method: 'GET', path: '/v1/assets' });
const tokenSent = (): string | undefined => server.calls()[0]?.headers['x-auth-token'];

/**
 * A shared store whose lock lets `whileWaiting` run first, as another instance holding the lock
 * would, and which records whether the lock was held when the exchange reached the service.
 */
class LockingStore implements TokenStore {
  readonly tokens = new Map<string, StoredToken>();
  held = false;
  locks = 0;
  constructor(private readonly whileWaiting: (key: string, tokens: Map<string, StoredToken>) => void = () => undefined) {}
  get(key: string): StoredToken | undefined {
    return this.tokens.get(key);
  }
  set(key: string, token: StoredToken): void {
    this.tokens.set(key, token);
  }
  delete(key: string, token: string): void {
    if (this.tokens.get(key)?.token === token) this.tokens.delete(key);
  }
  async withRenewalLock<T>(key: string, renew: () => Promise<T>): Promise<T> {
    this.locks++;
    this.whileWaiting(key, this.tokens);
    this.held = true;
    try {
      return await renew();
    } finally {
      this.held = false;
    }
  }
}

describe('a token store with a renewal lock', () => {
  it('the exchange runs while the lock is held, and its token is stored for the fleet', async () => {
    const store = new LockingStore();
    const heldDuringExchange: boolean[] = [];
    server.onToken(() => {
      heldDuringExchange.push(store.held);
      return { body: { auth_token: 'tok_mine', expired_at: nowSeconds() + 1800, token_type: 'Bearer', scopes: [] } };
    });
    client = wireClient(server.url, { tokenStore: store });
    await read();
    expect(heldDuringExchange).toEqual([true]);
    expect(store.locks).toBe(1);
    expect([...store.tokens.values()].map((t) => t.token)).toEqual(['tok_mine']);
    expect(tokenSent()).toBe('Bearer tok_mine');
  });

  it('a fresh token another instance stored while this one waited for the lock is used: no exchange', async () => {
    const store = new LockingStore((key, tokens) => tokens.set(key, { token: 'tok_other', expiresAt: nowSeconds() + 1800 }));
    client = wireClient(server.url, { tokenStore: store });
    await read();
    expect(server.tokenExchanges()).toBe(0);
    expect(tokenSent()).toBe('Bearer tok_other');
  });

  it('a token stored meanwhile that is already inside the renewal margin is not used: this instance exchanges', async () => {
    // 60 s left, inside the default 120 s margin.
    const store = new LockingStore((key, tokens) => tokens.set(key, { token: 'tok_stale', expiresAt: nowSeconds() + 60 }));
    client = wireClient(server.url, { tokenStore: store });
    await read();
    expect(server.tokenExchanges()).toBe(1);
    expect(tokenSent()).toBe('Bearer tok_1');
    expect(store.tokens.size).toBe(1);
    expect([...store.tokens.values()][0]!.token).toBe('tok_1');
  });
});

/**
 * Calls waiting for one token renewal (the token manager makes one exchange for any number of
 * concurrent callers): what a caller's abort does to the others, and to the exchange itself.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, MemoryTokenStore, type MerchantClient, type StoredToken } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { until } from '../helpers/time.js';
import { startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
/** Releases the token exchanges held so far. */
let release: () => void;

beforeEach(async () => {
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: {} });
  let n = 0;
  const held: Array<() => void> = [];
  release = () => held.splice(0).forEach((go) => go());
  // Each exchange is answered only when the test releases it.
  server.onToken(
    () =>
      new Promise<Reply>((resolve) => {
        const token = `tok_${++n}`;
        held.push(() =>
          resolve({ body: { auth_token: token, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } }),
        );
      }),
  );
  client = wireClient(server.url);
});
afterEach(async () => {
  release();
  await client.close();
  await server.close();
});

const read = (signal?: AbortSignal) => client.request({ method: 'GET', path: '/v1/assets', options: signal ? { signal } : {} });
const outcome = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => 'ok',
    (e: unknown) => (e instanceof AbortError ? 'aborted' : String(e)),
  );

describe('callers waiting for one renewal', () => {
  it("a caller's abort ends only its own wait; the others get the token of the one exchange", async () => {
    const a = new AbortController();
    const b = new AbortController();
    const first = outcome(read(a.signal));
    const second = outcome(read(b.signal));
    const third = outcome(read());
    await until(() => server.tokenExchanges() === 1);
    a.abort();
    expect(await first).toBe('aborted');
    release();
    expect([await second, await third]).toEqual(['ok', 'ok']);
    expect(server.tokenExchanges()).toBe(1);
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_1', 'Bearer tok_1']);
  });

  it('a caller without a signal keeps the renewal going when every other caller aborted', async () => {
    const a = new AbortController();
    const patient = outcome(read());
    const first = outcome(read(a.signal));
    await until(() => server.tokenExchanges() === 1);
    a.abort();
    expect(await first).toBe('aborted');
    release();
    expect(await patient).toBe('ok');
    expect(server.tokenExchanges()).toBe(1);
  });

  it('when every waiting caller aborted, the exchange is abandoned and the next call starts a new one', async () => {
    const a = new AbortController();
    const b = new AbortController();
    const first = outcome(read(a.signal));
    const second = outcome(read(b.signal));
    await until(() => server.tokenExchanges() === 1);
    a.abort();
    b.abort();
    expect([await first, await second]).toEqual(['aborted', 'aborted']);
    const next = outcome(read());
    await until(() => server.tokenExchanges() === 2);
    release();
    expect(await next).toBe('ok');
    // The abandoned exchange's token, had it come, is not the one used.
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_2']);
  });

  it('a renewal that completes is not joined by later renewals', async () => {
    const first = outcome(read());
    await until(() => server.tokenExchanges() === 1);
    release();
    expect(await first).toBe('ok');
    // Revoked: the next call renews again with a fresh exchange.
    server.on('GET', '/v1/assets', [
      { status: 401, body: { type: 'authentication_error', code: 'invalid_token', message: 'x' } },
      { body: {} },
    ]);
    const second = outcome(read());
    await until(() => server.tokenExchanges() === 2);
    release();
    expect(await second).toBe('ok');
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_2']);
  });
});

describe('invalid_token', () => {
  it('drops the rejected token from the store, and only that token', async () => {
    const store = new MemoryTokenStore();
    const deleted: string[] = [];
    const spy = {
      get: (k: string) => store.get(k),
      set: (k: string, t: StoredToken) => store.set(k, t),
      delete: (k: string, t: string) => {
        deleted.push(t);
        store.delete(k, t);
      },
    };
    const c = wireClient(server.url, { tokenStore: spy });
    server.on('GET', '/v1/assets', [
      { status: 401, body: { type: 'authentication_error', code: 'invalid_token', message: 'x' } },
      { body: {} },
    ]);
    const call = outcome(c.request({ method: 'GET', path: '/v1/assets' }));
    await until(() => server.tokenExchanges() === 1);
    release();
    await until(() => server.tokenExchanges() === 2);
    release();
    expect(await call).toBe('ok');
    expect(deleted).toEqual(['tok_1']);
    await c.close();
  });
});

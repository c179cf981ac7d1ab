/**
 * Token renewals that overlap (spec: Authentication: a 30-minute token, 20 exchanges a minute):
 * an abandoned exchange is abandoned on the wire, a caller arriving after it starts the next
 * one that later callers join, and a rejection of an old token never throws away a newer one.
 * Read on the wire: which token each request carried, and how many exchanges were made.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, MemoryTokenStore, type LogFields, type MerchantClient, type StoredToken, type TokenStore } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { until } from '../helpers/time.js';
import { apiError, startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
/** Releases the token exchanges held so far. */
let release: () => void;
const lines: Array<{ message: string; fields: LogFields | undefined }> = [];

/** Each exchange is answered (with `tok_<n>`) only when the test releases it. */
function holdTokens(): void {
  let n = 0;
  const held: Array<() => void> = [];
  release = () => held.splice(0).forEach((go) => go());
  server.onToken(
    () =>
      new Promise<Reply>((resolve) => {
        const token = `tok_${++n}`;
        held.push(() =>
          resolve({ body: { auth_token: token, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } }),
        );
      }),
  );
}

beforeEach(async () => {
  lines.length = 0;
  server = await startWireServer();
  server.on('GET', '/v1/assets', { body: {} });
  release = () => undefined;
  const record = (message: string, fields?: LogFields) => lines.push({ message, fields });
  client = wireClient(server.url, { logger: { debug: record, info: record, warn: record }, logLevel: 'debug' });
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
const tokensSent = () => server.calls().map((c) => c.headers['x-auth-token']);
const exchangeFailed = () => lines.some((l) => l.message === 'call failed' && l.fields?.endpoint === 'connect.token');

describe('an abandoned renewal', () => {
  it('when every waiting caller aborted, the exchange request itself is aborted on the wire', async () => {
    holdTokens();
    const a = new AbortController();
    const first = outcome(read(a.signal));
    await until(() => server.tokenExchanges() === 1);
    a.abort();
    expect(await first).toBe('aborted');
    // The exchange's connection is closed by the client before any answer: nothing outlives the call.
    await until(() => server.requests[0]!.abandoned === true);
    expect(server.calls()).toHaveLength(0);
  });

  it('a caller arriving at once after the aborts starts a fresh exchange, and callers after it join that one', async () => {
    holdTokens();
    const a = new AbortController();
    const b = new AbortController();
    const first = outcome(read(a.signal));
    const second = outcome(read(b.signal));
    await until(() => server.tokenExchanges() === 1);
    a.abort();
    b.abort();
    // In the same tick: the abandoned renewal has not settled yet, and must not be joined.
    const third = outcome(read());
    expect([await first, await second]).toEqual(['aborted', 'aborted']);
    await until(() => server.tokenExchanges() === 2);
    // Once the abandoned exchange has failed, its end must not detach the renewal in flight.
    await until(exchangeFailed);
    const fourth = outcome(read());
    release();
    expect([await third, await fourth]).toEqual(['ok', 'ok']);
    expect(server.tokenExchanges()).toBe(2);
    expect(tokensSent()).toEqual(['Bearer tok_2', 'Bearer tok_2']);
  });
});

describe('invalid_token on an old token', () => {
  it('a call rejected with a token another call already renewed uses the renewed token: no third exchange', async () => {
    let releaseB: () => void = () => undefined;
    const bHeld = new Promise<void>((resolve) => {
      releaseB = resolve;
    });
    server.on('GET', '/v1/a', [apiError(401, 'invalid_token'), { body: {} }]);
    server.on('GET', '/v1/b', async (_req, n) => {
      if (n > 0) return { body: {} };
      await bHeld;
      return apiError(401, 'invalid_token');
    });
    // A store that keeps nothing: only the token in memory can spare an exchange.
    const forgetful: TokenStore = { get: () => undefined, set: () => undefined, delete: () => undefined };
    const c = wireClient(server.url, { tokenStore: forgetful });
    try {
      const b = c.request({ method: 'GET', path: '/v1/b' });
      await until(() => server.calls().length === 1);
      // A's rejection is repaired (tok_2) while B's first attempt, sent with tok_1, still waits.
      await c.request({ method: 'GET', path: '/v1/a' });
      releaseB();
      await b;
    } finally {
      await c.close();
    }
    expect(server.tokenExchanges()).toBe(2);
    expect(server.calls().map((c) => `${c.url} ${c.headers['x-auth-token']}`)).toEqual([
      '/v1/b Bearer tok_1',
      '/v1/a Bearer tok_1',
      '/v1/a Bearer tok_2',
      '/v1/b Bearer tok_2',
    ]);
  });

  it('two calls rejected with the same token while the renewal is pending both retry with the one new token', async () => {
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
    let tokens = 0;
    let settled = 0;
    // The second exchange is answered once both rejections were handled (or a call gave up).
    server.onToken(async () => {
      const token = `tok_${++tokens}`;
      if (tokens === 2) await until(() => deleted.length === 2 || settled > 0);
      return { body: { auth_token: token, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } };
    });
    let arrived = 0;
    let bothArrived: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    // Each path's first attempt is answered invalid_token once both first attempts arrived.
    const firstRejected = async (_req: unknown, n: number): Promise<Reply> => {
      if (n > 0) return { body: {} };
      if (++arrived === 2) bothArrived();
      await gate;
      return apiError(401, 'invalid_token');
    };
    server.on('GET', '/v1/a', firstRejected);
    server.on('GET', '/v1/b', firstRejected);
    try {
      const calls = [c.request({ method: 'GET', path: '/v1/a' }), c.request({ method: 'GET', path: '/v1/b' })].map((p) =>
        outcome(p).finally(() => settled++),
      );
      expect(await Promise.all(calls)).toEqual(['ok', 'ok']);
    } finally {
      await c.close();
    }
    expect(deleted).toEqual(['tok_1', 'tok_1']);
    expect(server.tokenExchanges()).toBe(2);
    expect(server.calls().map((r) => r.headers['x-auth-token'])).toEqual(['Bearer tok_1', 'Bearer tok_1', 'Bearer tok_2', 'Bearer tok_2']);
  });
});

/**
 * A 429 pauses its rate-limit bucket for every call of the client (spec: Limits > Rate limits:
 * "Exceeding a quota returns HTTP 429 `rate_limited` with `Retry-After`... Clients back off
 * accordingly"), read on the wire on a frozen clock: each write's `x-timestamp` shows when it
 * was sent.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MerchantClient, RateLimitBucket, RequestLimiter } from '../../src/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { freezeClock, receivedAt, signedAt, until } from '../helpers/time.js';
import { apiError, startWireServer, type Reply, type WireServer } from '../helpers/wire-server.js';

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  freezeClock(0);
});
afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await server.close();
});

const limited = (seconds: number): Reply => ({ ...apiError(429, 'rate_limited'), headers: { 'retry-after': String(seconds) } });
const created: Reply = { status: 201, body: { id: 'x' } };
const post = (path: string) => client.request({ method: 'POST', path, body: {}, idempotent: true });
const settled = (p: PromiseLike<unknown>) =>
  Promise.resolve(p).then(
    () => 'ok',
    (e: { code?: string }) => e.code,
  );

describe('pauses', () => {
  it('a shorter Retry-After never shortens a longer pause of the bucket, in either order', async () => {
    for (const [first, second] of [
      [30, 5],
      [5, 30],
    ]) {
      const before = server.requests.length;
      // A call's deadline bounds its wait for the pause: room for the 30 s.
      client = wireClient(server.url, { maxRetries: 0, timeoutMs: 60_000 });
      server.on('POST', '/v1/exchange/orders', [limited(first!), limited(second!)]);
      server.on('POST', '/v1/remit/quotes', created);
      // Two calls in flight together; both give up, and both pause the orders bucket.
      expect(await Promise.all([settled(post('/v1/exchange/orders')), settled(post('/v1/exchange/orders'))])).toEqual([
        'rate_limited',
        'rate_limited',
      ]);
      const next = post('/v1/remit/quotes');
      await vi.advanceTimersByTimeAsync(30_000);
      await next;
      await client.close();
      const calls = server.requests.slice(before).filter((r) => r.url !== '/v1/connect/token');
      const start = signedAt(calls[0]!);
      expect(calls.map((c) => `${c.url} ${signedAt(c) - start}`)).toEqual([
        '/v1/exchange/orders 0',
        '/v1/exchange/orders 0',
        '/v1/remit/quotes 30',
      ]);
    }
    client = wireClient(server.url);
  });

  it('a pause holds only its own bucket', async () => {
    client = wireClient(server.url, { maxRetries: 0 });
    server.on('POST', '/v1/exchange/orders', limited(20));
    server.on('POST', '/v1/deposits', created);
    server.on('POST', '/v1/members', created);
    expect(await settled(post('/v1/exchange/orders'))).toBe('rate_limited');
    await post('/v1/deposits');
    await post('/v1/members');
    expect(server.calls().map(signedAt)).toEqual([0, 0, 0]);
  });

  it("the token endpoint's 429 pauses the exchange, and is not the limiter's business", async () => {
    const log: string[] = [];
    const limiter: RequestLimiter = {
      acquire: async (bucket: RateLimitBucket) => void log.push(`acquire ${bucket}`),
      pause: (bucket: RateLimitBucket, ms: number) => void log.push(`pause ${bucket} ${ms}`),
    };
    let retrying = false;
    client = wireClient(server.url, { limiter, logger: { warn: (m) => void (m === 'retrying' && (retrying = true)) } });
    server.onToken([
      limited(7),
      { body: { auth_token: 'tok_late', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } },
    ]);
    server.on('GET', '/v1/assets', { body: {} });
    const read = client.request({ method: 'GET', path: '/v1/assets' });
    await until(() => retrying);
    await vi.advanceTimersByTimeAsync(7000);
    await read;
    const exchanges = server.requests.filter((r) => r.url === '/v1/connect/token');
    expect(exchanges.map(receivedAt)).toEqual([0, 7]);
    expect(log).toEqual(['acquire reads']);
  });
});

describe("a 429 whose body is not the service's envelope (a proxy's page)", () => {
  const page = (headers: Record<string, string> = {}): Reply => ({
    status: 429,
    headers,
    body: '<html><body>Too Many Requests</body></html>',
  });

  it('is waited out by its Retry-After and retried with the same key; the bucket is paused for the other calls', async () => {
    let retrying = false;
    const logged: Array<Record<string, unknown>> = [];
    client = wireClient(server.url, {
      logger: {
        warn: (m, fields) => {
          if (m !== 'retrying') return;
          retrying = true;
          logged.push({ ...fields });
        },
      },
    });
    server.on('POST', '/v1/withdrawals', [page({ 'retry-after': '2' }), created]);
    server.on('POST', '/v1/exchange/orders', created);
    const write = client.request({ method: 'POST', path: '/v1/withdrawals', body: {}, idempotent: true });
    await until(() => retrying);
    // Another call of the orders bucket waits out the same pause.
    const other = post('/v1/exchange/orders');
    await vi.advanceTimersByTimeAsync(2000);
    await write;
    await other;
    const calls = server.calls();
    expect(calls.map((c) => `${c.url} ${signedAt(c)}`)).toEqual(['/v1/withdrawals 0', '/v1/withdrawals 2', '/v1/exchange/orders 2']);
    expect(calls[1]!.headers['x-idempotency-key']).toBe(calls[0]!.headers['x-idempotency-key']);
    expect(logged).toMatchObject([{ reason: 'malformed_429', retryClass: 'after_wait', delayMs: 2000 }]);
  });

  it('without Retry-After it is retried after a backoff; with its retries spent it is the MalformedResponseError, key kept', async () => {
    client = wireClient(server.url, { maxRetries: 1 });
    server.on('POST', '/v1/withdrawals', page());
    const err = failure(client.request({ method: 'POST', path: '/v1/withdrawals', body: {}, idempotent: true }));
    await until(() => server.calls().length === 1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await err).toMatchObject({ name: 'MalformedResponseError', status: 429, call: { sent: 'yes', attempts: 2 } });
    const keys = server.calls().map((c) => c.headers['x-idempotency-key']);
    expect(keys[1]).toBe(keys[0]);
    expect(((await err) as { idempotencyKey?: string }).idempotencyKey).toBe(keys[0]);
  });
});

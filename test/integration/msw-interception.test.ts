/**
 * A merchant's msw 2 suite and the SDK with default settings: msw sees every request (its
 * handlers answer, its `onUnhandledRequest` applies), an unhandled request fails the call once
 * with msw's error as the cause, and a client that msw cannot see says so at its first call.
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { Agent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CallInterruptedError, MerchantClient } from '../../src/index.js';
import { createSandbox, SANDBOX_BASE_URL } from '../../src/testing/index.js';
import { mswHandlers } from '../../src/testing/msw.js';
import { failure } from '../helpers/client.js';
import { startWireServer } from '../helpers/wire-server.js';

const mocked = createSandbox();
const msw = setupServer(...mswHandlers(mocked));
/** Each request msw reported as unhandled (it prints one error for each). */
const unhandled: string[] = [];
msw.events.on('request:unhandled', ({ request }) => void unhandled.push(`${request.method} ${new URL(request.url).pathname}`));

beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  mocked.resetRequests();
  msw.resetHandlers();
  unhandled.length = 0;
  vi.restoreAllMocks();
});
afterAll(() => msw.close());

/** A client as app code builds it: no transport, no fetch, no dispatcher. */
function defaultClient(options: Partial<ConstructorParameters<typeof MerchantClient>[0]> = {}): MerchantClient {
  return new MerchantClient({ baseUrl: SANDBOX_BASE_URL, ...mocked.credentials, logger: { error: () => undefined }, ...options });
}

describe('with default settings, msw 2 sees every request of the client', () => {
  it('the token exchange, signed writes and reads are answered by the msw handlers', async () => {
    const client = defaultClient();
    const member = mocked.state.seedMember({ balances: { USDT: { available: '100' } } });
    await client.sandbox.faucet({ asset: 'USDT', amount: '5' });
    const order = await client.member(member.external_member_id).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T1' });
    const rows = await client.member(member.id).balances.list();
    mocked.state.seedReports(3);
    const reports = await client.reports.list().collect(10);
    expect(order.status).toBe('locked');
    expect(rows[0]).toMatchObject({ asset: 'USDT', available: '90.000000', withdrawing: '10.000000' });
    expect(reports).toHaveLength(3);
    expect(mocked.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'POST /v1/connect/token',
      'POST /v1/sandbox/faucet',
      'POST /v1/withdrawals',
      'GET /v1/balances',
      'GET /v1/reports',
    ]);
    await client.close();
  });

  it('a client created before msw listens is intercepted once it does, and goes back to the network when msw closes', async () => {
    const real = await startWireServer();
    real.on('GET', '/v1/assets', { body: { data: [] } });
    msw.close();
    const client = defaultClient({ baseUrl: real.url, clientId: 'cli_wire_test', apiKey: 'ak', signingKey: 'sk' });
    try {
      await client.request({ method: 'GET', path: '/v1/assets' });
      expect(real.requests.map((r) => r.url)).toEqual(['/v1/connect/token', '/v1/assets']);
      msw.listen({ onUnhandledRequest: 'error' });
      msw.use(http.get(`${real.url}/v1/assets`, () => HttpResponse.json({ data: [{ code: 'MSW' }] })));
      const answered = await client.request<{ data: { code: string }[] }>({ method: 'GET', path: '/v1/assets' });
      expect(answered.data[0]?.code).toBe('MSW');
      // msw answered: the real server saw nothing more.
      expect(real.requests).toHaveLength(2);
      msw.close();
      await client.request({ method: 'GET', path: '/v1/assets' });
      expect(real.requests).toHaveLength(3);
    } finally {
      msw.listen({ onUnhandledRequest: 'error' });
      await client.close();
      await real.close();
    }
  });
});

describe("an unhandled request under onUnhandledRequest: 'error'", () => {
  /** A host the sandbox's handlers do not answer: only the handlers a test adds do. */
  const OTHER = 'https://unmocked.merchant-stablecoin.test';
  const token = http.post(`${OTHER}/v1/connect/token`, () =>
    HttpResponse.json({ auth_token: 'tok_msw', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
  );

  it.each([
    ['a read', 'GET', '/v1/withdraw-addresses'],
    ['a signed write', 'POST', '/v1/exchange/orders'],
  ] as const)('%s fails at once with msw error as the cause, never retried: msw reports it once', async (_name, method, path) => {
    msw.use(token);
    const client = defaultClient({ baseUrl: OTHER, maxRetries: 2 });
    const err = await failure(client.request({ method, path, ...(method === 'POST' ? { body: { pair: 'USDT/USDC' } } : {}) }));
    expect(err).toBeInstanceOf(CallInterruptedError);
    const e = err as CallInterruptedError;
    expect(e.message).toContain(`${method} ${path}`);
    expect(e.message).toMatch(/refused .* before it was sent/);
    expect((e.cause as Error).name).toBe('InternalError');
    expect((e.cause as Error).message).toMatch(/\[MSW\] Cannot bypass a request when using the "error" strategy/);
    expect(e.call).toMatchObject({ sent: 'no', attempts: 1 });
    expect(unhandled).toEqual([`${method} ${path}`]);
    await client.close();
  });

  it('an unhandled token exchange fails the call the same way, reported once', async () => {
    const client = defaultClient({ baseUrl: OTHER });
    const err = await failure(client.assets.list());
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(((err as Error).cause as Error).name).toBe('InternalError');
    expect(unhandled).toEqual(['POST /v1/connect/token']);
    await client.close();
  });
});

describe('a client msw cannot see says so at its first call', () => {
  it.each([
    ["transport: 'undici'", { transport: 'undici' as const }, /\(option transport: 'undici'\)/],
    ['a dispatcher', { dispatcher: new Agent() }, /\(option dispatcher\)/],
  ])('%s: one error line naming the option, and the request goes to the network', async (_name, options, named) => {
    const real = await startWireServer();
    real.on('GET', '/v1/assets', { body: { data: [] } });
    const errors: string[] = [];
    const client = defaultClient({ baseUrl: real.url, ...options, logger: { error: (message) => void errors.push(message) } });
    try {
      await client.request({ method: 'GET', path: '/v1/assets' });
      await client.request({ method: 'GET', path: '/v1/assets' });
    } finally {
      await client.close();
      await real.close();
    }
    expect(real.requests.map((r) => r.url)).toEqual(['/v1/connect/token', '/v1/assets', '/v1/assets']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^msw \(a request interceptor\) is active/);
    expect(errors[0]).toMatch(named);
    expect(errors[0]).toContain(new URL(real.url).origin);
  });

  it('an interceptor of node:http alone (no fetch interceptor): one error line, and the request goes to the network', async () => {
    msw.close();
    const mark = Symbol.for('client-request-interceptor');
    const g = globalThis as Record<symbol, unknown>;
    // What @mswjs/interceptors' ClientRequestInterceptor leaves on globalThis while it is applied.
    g[mark] = {};
    const real = await startWireServer();
    real.on('GET', '/v1/assets', { body: { data: [] } });
    const errors: string[] = [];
    const client = defaultClient({ baseUrl: real.url, logger: { error: (message) => void errors.push(message) } });
    try {
      await client.request({ method: 'GET', path: '/v1/assets' });
      await client.request({ method: 'GET', path: '/v1/assets' });
    } finally {
      delete g[mark];
      msw.listen({ onUnhandledRequest: 'error' });
      await client.close();
      await real.close();
    }
    expect(real.requests).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/interceptor of node:http alone/);
  });
});

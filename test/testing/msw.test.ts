import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, LIVE_BASE_URL, SANDBOX_BASE_URL } from '../../src/testing/index.js';
import { mswHandlers } from '../../src/testing/msw.js';
import { TestClient, exchangeHeaders, viaFetch } from './harness.js';

const sb = createSandbox();
const server = setupServer(...mswHandlers(sb));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

describe('msw mode', () => {
  it('serves the sandbox base URL through fetch, with exact path, raw bytes and signatures', async () => {
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const c = new TestClient(sb, viaFetch(SANDBOX_BASE_URL));
    const w = await c.call('POST', '/v1/withdrawals', {
      member: m.id,
      key: true,
      body: { asset: 'USDT', amount: '1', memo: 'café ☕', to_address: 'T' },
    });
    expect(w.status).toBe(201);
    expect(w.headers['x-request-id']).toMatch(/^req_/);
    const page = await c.call('GET', '/v1/reports?limit=5&cursor=a%2Fb');
    expect(page.status).toBe(200);
    expect(sb.requests.map((r) => r.path)).toEqual(['/v1/connect/token', '/v1/withdrawals', '/v1/reports?limit=5&cursor=a%2Fb']);
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('answers a reset fault with a network error', async () => {
    const c = new TestClient(sb, viaFetch(SANDBOX_BASE_URL));
    sb.faults.inject({ path: '/v1/assets' }, { kind: 'reset' });
    await expect(c.call('GET', '/v1/assets')).rejects.toThrow();
    expect((await c.call('GET', '/v1/assets')).status).toBe(200);
  });

  it('leaves another host’s /v1 to that host’s own mock', async () => {
    server.use(http.get('https://payments.other.example/v1/assets', () => HttpResponse.json({ mine: true })));
    sb.resetRequests();
    const res = await fetch('https://payments.other.example/v1/assets');
    expect(await res.json()).toEqual({ mine: true });
    expect(sb.requests).toHaveLength(0);
  });

  it('with mswHandlers(sandbox, { anyHost: true }), answers /v1 on any origin', async () => {
    const any = createSandbox();
    server.use(...mswHandlers(any, { anyHost: true }));
    const c = new TestClient(any, viaFetch('https://other-origin.example.test'));
    expect((await c.call('GET', '/v1/assets')).status).toBe(200);
    expect(any.requests.map((r) => r.path)).toEqual(['/v1/connect/token', '/v1/assets']);
  });

  it('answers the live base URL as the production host: live credentials there, sandbox ones mismatched', async () => {
    const live = await fetch(`${LIVE_BASE_URL}/v1/connect/token`, { method: 'POST', headers: exchangeHeaders(sb, sb.liveCredentials) });
    expect(live.status).toBe(200);
    const crossed = await fetch(`${LIVE_BASE_URL}/v1/connect/token`, { method: 'POST', headers: exchangeHeaders(sb) });
    expect(crossed.status).toBe(400);
    expect(await crossed.json()).toMatchObject({ code: 'environment_mismatch' });
  });
});

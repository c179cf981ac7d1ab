import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, MerchantClient } from '../../src/index.js';
import { createSandbox, SANDBOX_BASE_URL } from '../../src/testing/index.js';
import { mswHandlers } from '../../src/testing/msw.js';

// msw sees the global fetch (and node:http), not undici's own request API (msw issue 2165).
const mocked = createSandbox();
const msw = setupServer(...mswHandlers(mocked));

beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
afterEach(() => mocked.resetRequests());
afterAll(() => msw.close());

describe('msw sees the traffic of the fetch transport', () => {
  it('every call of sandbox.client({ via: "msw" }) is answered by the msw handlers', async () => {
    const client = mocked.client({ via: 'msw' });
    const member = mocked.state.seedMember({ balances: { USDT: { available: '100' } } });
    await client.sandbox.faucet({ asset: 'USDT', amount: '5' });
    const order = await client.member(member.external_member_id).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T1' });
    const rows = await client.member(member.id).balances.list();
    mocked.state.seedReports(3);
    const reports = await client.reports.list().collect(10);
    expect(order.status).toBe('locked');
    expect(rows[0]).toMatchObject({ asset: 'USDT', available: '90.000000', withdrawing: '10.000000' });
    expect(reports).toHaveLength(3);
    // Token exchange, signed writes and reads all went through msw to the simulator.
    expect(mocked.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'POST /v1/connect/token',
      'POST /v1/sandbox/faucet',
      'POST /v1/withdrawals',
      'GET /v1/balances',
      'GET /v1/reports',
    ]);
    await client.close();
  });

  it('a client built in app code switches with one setting: transport "fetch"', async () => {
    const client = new MerchantClient({ baseUrl: SANDBOX_BASE_URL, ...mocked.credentials, transport: 'fetch' });
    await client.sandbox.faucet({ asset: 'USDC' });
    expect(mocked.requests.map((r) => r.path)).toEqual(['/v1/connect/token', '/v1/sandbox/faucet']);
    await client.close();
  });
});

describe('the default undici transport is not intercepted by msw 2', () => {
  it('its calls reach the real socket, and msw sees none', async () => {
    const real = createSandbox();
    const server = await real.listen();
    const client = new MerchantClient({ baseUrl: server.url, ...real.credentials });
    await client.sandbox.faucet({ asset: 'USDT' });
    expect(real.requests.map((r) => r.path)).toEqual(['/v1/connect/token', '/v1/sandbox/faucet']);
    expect(mocked.requests).toHaveLength(0);
    // Pointed at a host only msw could answer, the undici transport fails to connect.
    const unmocked = new MerchantClient({ baseUrl: SANDBOX_BASE_URL, ...mocked.credentials, maxRetries: 0, timeoutMs: 5000 });
    await expect(unmocked.assets.list()).rejects.toBeInstanceOf(ConnectionError);
    expect(mocked.requests).toHaveLength(0);
    await client.close();
    await unmocked.close();
    await server.close();
  });
});

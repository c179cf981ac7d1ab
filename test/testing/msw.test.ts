import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaFetch } from './harness.js';

const sb = createSandbox();
const server = setupServer(...sb.handlers);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterAll(() => server.close());

describe('msw mode', () => {
  it('serves any origin through fetch, with exact path, raw bytes and signatures', async () => {
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    const c = new TestClient(sb, viaFetch('https://sandbox.example.test'));
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
    const c = new TestClient(sb, viaFetch('https://other-origin.example.test'));
    sb.faults.inject({ path: '/v1/assets' }, { kind: 'reset' });
    await expect(c.call('GET', '/v1/assets')).rejects.toThrow();
    expect((await c.call('GET', '/v1/assets')).status).toBe(200);
  });
});

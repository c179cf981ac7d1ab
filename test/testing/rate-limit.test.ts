import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

describe('rate-limit buckets', () => {
  it('keeps the four buckets apart, answers 429 with Retry-After 60, and slides with the clock', async () => {
    const sb = createSandbox({ quotas: { reads: 3, orders: 2, deposits: 1, members_write: 2 } });
    sb.clock.freeze();
    const c = new TestClient(sb, viaHandle(sb));
    const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });

    for (let i = 0; i < 3; i++) expect((await c.call('GET', '/v1/assets')).status).toBe(200);
    const limited = await c.call('GET', '/v1/balances', { member: m.id });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.json).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited', retry_after: 60 });

    // Writes are other buckets and still flow.
    expect((await c.call('POST', '/v1/deposits', { member: m.id, key: true, body: { asset: 'USDT', amount: '1' } })).status).toBe(201);
    expect((await c.call('POST', '/v1/deposits', { member: m.id, key: true, body: { asset: 'USDT', amount: '1' } })).status).toBe(429);
    expect((await c.call('POST', '/v1/members', { key: true, body: { external_member_id: 'a' } })).status).toBe(201);
    expect((await c.call('POST', `/v1/members/${m.id}/suspend`)).status).toBe(200);
    expect((await c.call('POST', '/v1/members', { key: true, body: { external_member_id: 'b' } })).status).toBe(429);
    const w = { asset: 'USDT', amount: '1', to_address: 'T' };
    const m2 = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
    expect((await c.call('POST', '/v1/withdrawals', { member: m2.id, key: true, body: w })).status).toBe(201);
    expect((await c.call('POST', '/v1/sandbox/faucet', { key: true, body: { asset: 'USDT' } })).status).toBe(200);
    const third = await c.call('POST', '/v1/withdrawals', { member: m2.id, key: true, body: w });
    expect(third.status).toBe(429);
    // A throttled write never executes.
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);

    sb.clock.advance(59_999);
    expect((await c.call('GET', '/v1/assets')).status).toBe(429);
    sb.clock.advance(1);
    expect((await c.call('GET', '/v1/assets')).status).toBe(200);
  });

  it('changes quotas at run time', async () => {
    const sb = createSandbox();
    const c = new TestClient(sb, viaHandle(sb));
    sb.setQuota('reads', 1);
    expect((await c.call('GET', '/v1/assets')).status).toBe(200);
    expect((await c.call('GET', '/v1/assets')).status).toBe(429);
  });

  it('limits QR quotes to 30 per member per minute on top of the bucket', async () => {
    const sb = createSandbox();
    sb.clock.freeze();
    const c = new TestClient(sb, viaHandle(sb));
    const a = sb.state.seedMember({ balances: { USDT: { available: '1000' } } });
    const b = sb.state.seedMember({ balances: { USDT: { available: '1000' } } });
    const q = (member: string) => c.call('POST', '/v1/qrpay/quotes', { member, body: { code_value: 'sbxqr:Cafe:THB:360.00' } });
    for (let i = 0; i < 30; i++) expect((await q(a.id)).status).toBe(200);
    const over = await q(a.id);
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('60');
    expect((await q(b.id)).status).toBe(200);
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

const setup = () => {
  const sb = createSandbox();
  const m = sb.state.seedMember({ balances: { USDT: { available: '100' } } });
  return { sb, m, c: new TestClient(sb, viaHandle(sb)) };
};
const body = { asset: 'USDT', amount: '10', to_address: 'TAddr' };

describe('idempotency', () => {
  it('replays the stored response for the same key and body, moving money once', async () => {
    const { sb, m, c } = setup();
    const key = randomUUID();
    const first = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    const second = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers['x-idempotent-replay']).toBe('true');
    expect(first.headers['x-idempotent-replay']).toBeUndefined();
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
    expect(sb.state.effects[0]).toMatchObject({ kind: 'withdrawal.create', id: first.json.id, idempotencyKey: key });
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
  });

  it('answers 409 idempotency_key_reused for another body or another endpoint', async () => {
    const { sb, m, c } = setup();
    const key = randomUUID();
    await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    const otherBody = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body: { ...body, amount: '11' } });
    expect(otherBody.status).toBe(409);
    expect(otherBody.json).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    const otherEndpoint = await c.call('POST', '/v1/deposits', { member: m.id, key, body });
    expect(otherEndpoint.json.code).toBe('idempotency_key_reused');
    expect(sb.state.countEffects()).toBe(1);
  });

  it('hashes the body bytes only: the same bytes with other headers replay', async () => {
    const { m, c } = setup();
    const key = randomUUID();
    const first = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    const again = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body, headers: { 'x-extra': '1' } });
    expect(again.json.id).toBe(first.json.id);
  });

  it('requires a UUID-shaped key (shape only, any version)', async () => {
    const { m, c } = setup();
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, body })).json.code).toBe('idempotency_key_required');
    const bad = await c.call('POST', '/v1/withdrawals', { member: m.id, key: 'not-a-uuid', body });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('idempotency_key_invalid');
    // Version nibble 1 and upper-case hex: shape is what counts.
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: 'ABCDEF01-2345-1789-8BCD-EF0123456789', body })).status).toBe(201);
  });

  it('answers idempotency_in_progress while the first request still runs', async () => {
    const { sb, m, c } = setup();
    await c.auth();
    // The first request is held (with its key claimed) until the test releases it.
    const held = sb.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'hang' });
    const key = randomUUID();
    const slow = c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    await held.waitForHits(1);
    const concurrent = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    expect(concurrent.status).toBe(409);
    expect(concurrent.json.code).toBe('idempotency_in_progress');
    await held.release();
    expect((await slow).status).toBe(201);
    const after = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    expect(after.headers['x-idempotent-replay']).toBe('true');
    expect(sb.state.countEffects('withdrawal.create')).toBe(1);
  });

  it('replays business failures under the same key, even once the cause is fixed', async () => {
    const { sb, m, c } = setup();
    const key = randomUUID();
    const big = { ...body, amount: '500' };
    const failed = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body: big });
    expect(failed.json.code).toBe('insufficient_balance');
    sb.state.setBalance(m.id, 'USDT', { available: '1000' });
    const replay = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body: big });
    expect(replay.json.code).toBe('insufficient_balance');
    expect(replay.headers['x-idempotent-replay']).toBe('true');
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key: true, body: big })).status).toBe(201);
  });

  it('forgets keys after 24 hours of sandbox time: the same key executes again', async () => {
    const { sb, m, c } = setup();
    const key = randomUUID();
    await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    sb.clock.advance(24 * 60 * 60 * 1000);
    c.forget();
    const again = await c.call('POST', '/v1/withdrawals', { member: m.id, key, body });
    expect(again.status).toBe(201);
    expect(again.headers['x-idempotent-replay']).toBeUndefined();
    expect(sb.state.countEffects('withdrawal.create')).toBe(2);
  });

  it('does not store member-context failures: the key stays free', async () => {
    const { sb, m, c } = setup();
    const key = randomUUID();
    expect((await c.call('POST', '/v1/withdrawals', { key, body })).json.code).toBe('member_context_required');
    expect((await c.call('POST', '/v1/withdrawals', { member: m.id, key, body })).status).toBe(201);
    expect(sb.state.countEffects()).toBe(1);
  });
});

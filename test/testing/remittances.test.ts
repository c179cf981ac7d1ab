import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

const setup = () => {
  const sb = createSandbox();
  const m = sb.state.seedMember({ balances: { USDT: { available: '20' } } });
  return { sb, m, c: new TestClient(sb, viaHandle(sb)) };
};

describe('remittance cancel', () => {
  it('returns the locked amount and every extra hold to available, and releases the prepaid hold', async () => {
    const { sb, m, c } = setup();
    sb.state.setPrepaid('USDT', { available: '100' });
    const r = sb.state.seedRemittance({ member: m.id, amount: '100', locked: '100', extra_holds: ['1.5', '2.25'], prepaid_hold: '7' });
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '20.000000', locked: '103.750000' });
    expect(sb.state.merchant.prepaid['USDT']).toEqual({ available: '100.000000', locked: '7.000000', queued: '0.000000' });

    // The id is accepted without its rmt_ prefix.
    const res = await c.call('POST', `/v1/remittances/${r.id.slice(4)}/cancel`, { member: m.id, key: true, rawBody: '{}' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: r.id, status: 'canceled' });
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '123.750000', locked: '0.000000', total: '123.750000' });
    expect(sb.state.merchant.prepaid['USDT']).toEqual({ available: '107.000000', locked: '0.000000', queued: '0.000000' });
    expect(sb.state.remittance(r.id)?.status).toBe('canceled');
    expect(sb.state.effects).toMatchObject([{ kind: 'remittance.cancel', id: r.id, amount: '103.75' }]);

    // Canceled is outside needs_reconfirm: the current implementation's 500 (spec).
    const again = await c.call('POST', `/v1/remittances/${r.id}/cancel`, { member: m.id, key: true });
    expect(again.status).toBe(500);
    expect(again.json.code).toBe('api_error');
  });

  it('cancels only needs_reconfirm, and hides other members’ orders', async () => {
    const { sb, m, c } = setup();
    const other = sb.state.seedMember();
    const processing = sb.state.seedRemittance({ member: m.id, status: 'processing' });
    expect((await c.call('POST', `/v1/remittances/${processing.id}/cancel`, { member: m.id, key: true })).json.code).toBe('api_error');
    const blocked = sb.state.seedRemittance({ member: m.id, cancel_blocked: true });
    expect((await c.call('POST', `/v1/remittances/${blocked.id}/cancel`, { member: m.id, key: true })).json.code).toBe('state_invalid');
    const mine = sb.state.seedRemittance({ member: m.id });
    const foreign = await c.call('POST', `/v1/remittances/${mine.id}/cancel`, { member: other.id, key: true });
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe('not_found');
    expect((await c.call('POST', `/v1/remittances/rmt_unknown/cancel`, { member: m.id, key: true })).json.code).toBe('not_found');
    expect(sb.state.countEffects()).toBe(0);
  });
});

describe('pending action', () => {
  it('shows slippage for needs_reconfirm, with the 4-hour deadline and balance check', async () => {
    const { sb, m, c } = setup();
    sb.clock.freeze();
    const r = sb.state.seedRemittance({
      member: m.id,
      amount: '100',
      slippage: { new_total: '101.5', extra_charge: '1.5', extra_locked: '30' },
    });
    const res = await c.call('GET', `/v1/remittances/${r.id}/pending-action`, { member: m.id });
    expect(res.json).toMatchObject({
      id: r.id,
      waiting_on: 'member',
      action: {
        kind: 'slippage',
        moved_bps: 150,
        slippage_bps: 100,
        old_total: '100.000000',
        new_total: '101.500000',
        extra_charge: '1.500000',
        extra_locked: '30.000000',
        available: '20.000000',
        can_accept: false,
        reject_reason: 'insufficient_balance',
      },
    });
    expect(Date.parse(res.json.action.deadline) - sb.clock.now()).toBe(4 * 60 * 60 * 1000);
  });

  it('shows supplement rounds, review, nothing, and unknown kinds unchanged', async () => {
    const { sb, m, c } = setup();
    const pa = async (id: string) => (await c.call('GET', `/v1/remittances/${id}/pending-action`, { member: m.id })).json;
    const sup = sb.state.seedRemittance({ member: m.id, status: 'reviewing', supplement: 'PENDING' });
    expect(await pa(sup.id)).toMatchObject({
      waiting_on: 'member',
      action: { kind: 'supplement', status: 'PENDING', deadline: null, submitted_at: '' },
    });
    const submitted = sb.state.seedRemittance({ member: m.id, status: 'reviewing', supplement: 'SUBMITTED' });
    expect(await pa(submitted.id)).toEqual({ id: submitted.id, waiting_on: 'review', action: null });
    const done = sb.state.seedRemittance({ member: m.id, status: 'completed' });
    expect(await pa(done.id)).toEqual({ id: done.id, waiting_on: 'none', action: null });
    const custom = sb.state.seedRemittance({ member: m.id, status: 'processing', action: { kind: 'brand_new_kind', hint: 'x' } });
    expect(await pa(custom.id)).toEqual({ id: custom.id, waiting_on: 'member', action: { kind: 'brand_new_kind', hint: 'x' } });
  });

  it('refunds automatically when the 4-hour window lapses', async () => {
    const { sb, m, c } = setup();
    const r = sb.state.seedRemittance({ member: m.id, amount: '50', extra_holds: ['5'] });
    sb.clock.advance(4 * 60 * 60 * 1000);
    expect(sb.state.remittance(r.id)?.status).toBe('refunded');
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '75.000000', locked: '0.000000' });
    expect(sb.state.effects).toMatchObject([{ kind: 'remittance.refund', idempotencyKey: null }]);
    c.forget();
    expect((await c.call('POST', `/v1/remittances/${r.id}/cancel`, { member: m.id, key: true })).json.code).toBe('api_error');
  });

  it('reconfirms with new_total unchanged, adding the extra hold', async () => {
    const { sb, m, c } = setup();
    const r = sb.state.seedRemittance({ member: m.id, amount: '100' });
    const action = (await c.call('GET', `/v1/remittances/${r.id}/pending-action`, { member: m.id })).json.action;
    expect(
      (await c.call('POST', `/v1/remittances/${r.id}/reconfirm`, { member: m.id, key: true, body: { new_total: '999' } })).json.code,
    ).toBe('invalid_request');
    const ok = await c.call('POST', `/v1/remittances/${r.id}/reconfirm`, {
      member: m.id,
      key: randomUUID(),
      body: { new_total: action.new_total },
    });
    expect(ok.json).toEqual({ id: r.id, status: 'processing' });
    expect(sb.state.remittance(r.id)?.extra_holds).toEqual([action.extra_locked]);
    expect(sb.state.balance(m.id, 'USDT').total).toBe('120.000000');
    const list = await c.call('GET', '/v1/remittances', { member: m.id });
    expect(list.json.data[0]).toMatchObject({ id: r.id, status: 'processing' });
  });
});

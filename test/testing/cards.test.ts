import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

const setup = () => {
  const sb = createSandbox();
  const m = sb.state.seedMember({ balances: { USDT: { available: '500' } }, kyc_level: 1 });
  return { sb, m, c: new TestClient(sb, viaHandle(sb)) };
};

describe('card activation', () => {
  it('locks the card for 24 hours after 3 mismatches; each mismatch is a 500 that counts', async () => {
    const { sb, m, c } = setup();
    sb.clock.freeze();
    const card = sb.state.seedCard({ member: m.id, form: 'physical', expiry: '08/29', pin: '2468' });
    const activate = (body: Record<string, string>, key: string = randomUUID()) =>
      c.call('POST', `/v1/cards/${card.id}/activate`, { member: m.id, key, body });
    const wrong = { expiry: '08/29', pin: '0000' };
    const key = randomUUID();
    const first = await activate(wrong, key);
    expect(first.status).toBe(500);
    expect(first.json).toMatchObject({ type: 'api_error', code: 'api_error' });
    expect(sb.state.card(card.id)?.failures).toBe(1);
    // A retry with the same key is executed again (5xx is not stored): it counts too.
    await activate(wrong, key);
    expect(sb.state.card(card.id)?.failures).toBe(2);
    await activate({ expiry: '09/29', pin: '2468' });
    const locked = await activate({ expiry: '08/29', pin: '2468' });
    expect(locked.status).toBe(400);
    expect(locked.json.code).toBe('state_invalid');
    expect(Date.parse(locked.json.locked_until) - sb.clock.now()).toBe(24 * 60 * 60 * 1000);
    expect(sb.state.card(card.id)?.status).toBe('unactivated');

    sb.clock.advance(24 * 60 * 60 * 1000);
    c.forget();
    const ok = await activate({ expiry: '08/29', pin: '2468' });
    expect(ok.json).toEqual({ id: card.id, status: 'active' });
    // Already active: 200, counter untouched.
    expect((await activate(wrong)).json).toEqual({ id: card.id, status: 'active' });
    expect(sb.state.card(card.id)?.failures).toBe(0);
  });

  it('answers 500 without counting for a card not shipped, and state_invalid for virtual cards', async () => {
    const { sb, m, c } = setup();
    const unshipped = sb.state.seedCard({ member: m.id, form: 'physical', inventory: 'in_stock' });
    const res = await c.call('POST', `/v1/cards/${unshipped.id}/activate`, {
      member: m.id,
      key: true,
      body: { expiry: '12/29', pin: '1234' },
    });
    expect(res.status).toBe(500);
    expect(sb.state.card(unshipped.id)?.failures).toBe(0);
    const virtual = sb.state.seedCard({ member: m.id, form: 'virtual', status: 'unactivated' });
    expect(
      (await c.call('POST', `/v1/cards/${virtual.id}/activate`, { member: m.id, key: true, body: { expiry: '12/29', pin: '1234' } })).json
        .code,
    ).toBe('state_invalid');
    expect(
      (await c.call('POST', `/v1/cards/${virtual.id}/activate`, { member: m.id, body: { expiry: '12/29', pin: '1234' } })).json.code,
    ).toBe('idempotency_key_required');
  });
});

describe('card state and funds', () => {
  it('unfreezes only frozen cards; risk_frozen is a 500', async () => {
    const { sb, m, c } = setup();
    const frozen = sb.state.seedCard({ member: m.id, status: 'frozen' });
    expect((await c.call('POST', `/v1/cards/${frozen.id}/unfreeze`, { member: m.id, key: true })).json).toEqual({
      id: frozen.id,
      status: 'unfreezing',
    });
    const active = sb.state.seedCard({ member: m.id });
    expect((await c.call('POST', `/v1/cards/${active.id}/unfreeze`, { member: m.id, key: true })).json.code).toBe('state_invalid');
    const risk = sb.state.seedCard({ member: m.id, status: 'risk_frozen' });
    expect((await c.call('POST', `/v1/cards/${risk.id}/unfreeze`, { member: m.id, key: true })).status).toBe(500);
    const other = sb.state.seedMember();
    expect((await c.call('POST', `/v1/cards/${frozen.id}/unfreeze`, { member: other.id, key: true })).json.code).toBe('not_found');
  });

  it('reports the close precheck in camelCase minor units', async () => {
    const { sb, m, c } = setup();
    const card = sb.state.seedCard({ member: m.id, balance: '12.34', auth_held: '2', min_retained: '1' });
    const res = await c.call('GET', `/v1/cards/${card.id}/close-check`, { member: m.id });
    expect(res.json).toEqual({
      balance: '1234',
      held: '300',
      authHeld: '200',
      withdrawable: '934',
      canClose: false,
      pendingWithdraw: false,
      closeRequested: false,
      closePhase: 'blocked_hold',
      scale: 2,
      currency: 'USD',
    });
    const clean = sb.state.seedCard({ member: m.id, balance: '5' });
    expect((await c.call('GET', `/v1/cards/${clean.id}/close-check`, { member: m.id })).json).toMatchObject({
      canClose: true,
      closePhase: 'idle',
    });
  });

  it('tops up (available to card) with card.topup.credited, withdraws keeping the minimum, and closes returning all', async () => {
    const { sb, m, c } = setup();
    const card = sb.state.seedCard({ member: m.id, min_retained: '5' });
    const top = await c.call('POST', `/v1/cards/${card.id}/topups`, { member: m.id, key: true, body: { amount: '50' } });
    expect(top.status).toBe(201);
    expect(top.json.id).toMatch(/^ctp_/);
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '450.000000', card: '50.000000' });
    expect((await c.call('POST', `/v1/cards/${card.id}/withdrawals`, { member: m.id, key: true, body: { amount: '46' } })).json.code).toBe(
      'insufficient_balance',
    );
    expect(
      (await c.call('POST', `/v1/cards/${card.id}/withdrawals`, { member: m.id, key: true, body: { amount: '5', reason: 'close' } })).json
        .code,
    ).toBe('invalid_request');
    expect((await c.call('POST', `/v1/cards/${card.id}/withdrawals`, { member: m.id, key: true, body: { amount: '45' } })).status).toBe(
      201,
    );
    const closed = await c.call('POST', `/v1/cards/${card.id}/close`, { member: m.id, key: true });
    expect(closed.json).toMatchObject({ id: card.id, status: 'closed', returned_amount: '5.00' });
    expect(sb.state.balance(m.id, 'USDT')).toMatchObject({ available: '500.000000', card: '0.000000' });
    expect(sb.state.effects.map((e) => e.kind)).toEqual(['card.topup', 'card.withdrawal', 'card.close']);
  });

  it('validates limits: bad amount string is a 500, ordering and minimum are invalid_fields', async () => {
    const { sb, m, c } = setup();
    const card = sb.state.seedCard({ member: m.id });
    const patch = (body: Record<string, unknown>) => c.call('PATCH', `/v1/cards/${card.id}/limits`, { member: m.id, body });
    expect((await patch({ single: '100', daily: '500', monthly: '0' })).json).toEqual({ id: card.id, accepted: true });
    expect(sb.state.card(card.id)?.limits).toEqual({ single: '100.00', daily: '500.00', monthly: '0.00' });
    expect((await patch({ single: 'ten' })).status).toBe(500);
    const order = await patch({ daily: '50' });
    expect(order.json.code).toBe('invalid_fields');
    expect(order.json.fields).toBeUndefined();
    expect((await patch({ monthly: '0.5' })).json.code).toBe('invalid_fields');
    expect((await patch({ single: '999999' })).json.code).toBe('invalid_fields');
    // Omitted items keep their values.
    expect((await patch({ monthly: '1000' })).json.accepted).toBe(true);
    expect(sb.state.card(card.id)?.limits).toEqual({ single: '100.00', daily: '500.00', monthly: '1000.00' });
    const gone = sb.state.seedCard({ member: m.id, status: 'closed' });
    expect((await c.call('PATCH', `/v1/cards/${gone.id}/limits`, { member: m.id, body: { single: '1' } })).json.code).toBe('state_invalid');
    const fixed = sb.state.seedCard({ member: m.id, limits_updatable: false });
    expect((await c.call('PATCH', `/v1/cards/${fixed.id}/limits`, { member: m.id, body: { single: '1' } })).json.code).toBe(
      'product_not_available',
    );
  });
});

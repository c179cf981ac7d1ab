/**
 * Withdrawals through the SDK over server mode: what the service's spec decides (balances rows,
 * `to_address` length in characters), the per-member limits the sandbox models, and the choice
 * for a second confirmation.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, isApiError, type ApiError } from '../../src/index.js';
import { servedWorlds, thrownBy } from './served.js';

const serve = servedWorlds();

describe('GET /v1/balances after a refused debit (spec: only assets with account rows)', () => {
  it('a member who never received funds still has no rows after an overdraft is refused', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember();
    const err = await thrownBy(() => client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'T-none' }));
    expect(isApiError(err, 'insufficient_balance')).toBe(true);
    expect(await client.member(m.id).balances.list()).toEqual([]);
    const envelope = await client.member(m.id).balances.envelope();
    expect(envelope).toMatchObject({ data: [], balances: [], next_cursor: null, has_more: false });
    expect(sandbox.state.countEffects()).toBe(0);
  });

  it('a refused debit in another asset adds no row beside the funded one', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDC: { available: '5' } } });
    const err = await thrownBy(() => client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }));
    expect(isApiError(err, 'insufficient_balance')).toBe(true);
    expect((await client.member(m.id).balances.list()).map((r) => r.asset)).toEqual(['USDC']);
  });
});

describe('to_address length counts characters (code points), like the SDK guard', () => {
  const astral = '𝒜'; // one character, two UTF-16 units

  it('200 characters outside the BMP are accepted and snapshotted unchanged', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '10' } } });
    const address = astral.repeat(200);
    expect(address.length).toBe(400);
    const order = await client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '1', to_address: address });
    expect(order.to_address).toBe(address);
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '9.000000', withdrawing: '1.000000' });
  });

  it('201 characters: the SDK refuses before sending, and the sandbox refuses the raw call', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '10' } } });
    const address = astral.repeat(201);
    const guarded = await thrownBy(() => client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '1', to_address: address }));
    expect(guarded).toBeInstanceOf(InvalidArgumentError);
    expect(sandbox.requests.filter((r) => r.path === '/v1/withdrawals')).toHaveLength(0);
    const raw = await thrownBy(() =>
      client.request({
        method: 'POST',
        path: '/v1/withdrawals',
        onBehalfOf: m.id,
        body: { asset: 'USDT', amount: '1', to_address: address },
      }),
    );
    expect(isApiError(raw, 'invalid_request')).toBe(true);
    expect(sandbox.state.countEffects()).toBe(0);
  });
});

describe('per-member withdrawal limits (state.setWithdrawalLimits)', () => {
  it('above single: 400 limit_exceeded with limit_scope member and limit_type single; nothing moves', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '500' } } });
    sandbox.state.setWithdrawalLimits(m.id, 'usdt', { single: '100' });
    const member = client.member(m.id);
    await member.withdrawals.create({ asset: 'USDT', amount: '100', to_address: 'T-at-limit' });
    const err = await thrownBy(() => member.withdrawals.create({ asset: 'USDT', amount: '100.000001', to_address: 'T-over' }));
    expect(isApiError(err, 'limit_exceeded')).toBe(true);
    expect((err as ApiError<'limit_exceeded'>).extras).toMatchObject({ limit_type: 'single', limit_scope: 'member' });
    expect((err as ApiError).attempts).toBe(1);
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '400.000000', withdrawing: '100.000000' });
    // Another asset, and another member, are not limited.
    const other = sandbox.state.seedMember({ balances: { USDT: { available: '500' } } });
    await client.member(other.id).withdrawals.create({ asset: 'USDT', amount: '300', to_address: 'T-other' });
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(2);
  });

  it('daily: the UTC day of the sandbox clock, failed withdrawals excepted; a new day starts afresh', async () => {
    const day = Date.UTC(2026, 0, 15, 10, 0, 0);
    // A fixed business day; signatures stay on real time, so a default client needs no clock setting.
    const { sandbox, client } = await serve({ sandbox: { now: () => day } });
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '500' } } });
    sandbox.state.setWithdrawalLimits(m.id, 'USDT', { daily: '100' });
    const member = client.member(m.id);
    const a = await member.withdrawals.create({ asset: 'USDT', amount: '60', to_address: 'T-a' });
    const over = await thrownBy(() => member.withdrawals.create({ asset: 'USDT', amount: '41', to_address: 'T-b' }));
    expect((over as ApiError<'limit_exceeded'>).extras).toMatchObject({ limit_type: 'daily', limit_scope: 'member' });
    // A failed withdrawal no longer counts.
    await member.withdrawals.fail(a.id);
    await member.withdrawals.create({ asset: 'USDT', amount: '100', to_address: 'T-c' });
    // 14 hours later it is the next UTC day.
    sandbox.clock.advance(14 * 60 * 60 * 1000);
    await member.withdrawals.create({ asset: 'USDT', amount: '100', to_address: 'T-d' });
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '300.000000', withdrawing: '200.000000' });
    // Cleared: no limit at all.
    sandbox.state.setWithdrawalLimits(m.id, 'USDT', null);
    await member.withdrawals.create({ asset: 'USDT', amount: '300', to_address: 'T-e' });
  });
});

describe('a second confirmation (sandbox choice)', () => {
  it('confirming a confirmed withdrawal with a new key is 400 state_invalid, sent once; the first key replays', async () => {
    const { sandbox, client } = await serve();
    const m = sandbox.state.seedMember({ balances: { USDT: { available: '50' } } });
    const member = client.member(m.id);
    const w = await member.withdrawals.create({ asset: 'USDT', amount: '20', to_address: 'T-conf' });
    const key = '5f1c1e2a-3b4c-4d5e-8f60-718293a4b5c6';
    const first = await member.withdrawals.confirm(w.id, {}, { idempotencyKey: key });
    expect(first).toMatchObject({ id: w.id, status: 'confirmed' });
    const again = await thrownBy(() => member.withdrawals.confirm(w.id));
    expect(isApiError(again, 'state_invalid')).toBe(true);
    expect((again as ApiError).attempts).toBe(1);
    const failed = await thrownBy(() => member.withdrawals.fail(w.id));
    expect(isApiError(failed, 'state_invalid')).toBe(true);
    const replay = await member.withdrawals.confirm(w.id, {}, { idempotencyKey: key }).withResponse();
    expect(replay.response.replayed).toBe(true);
    expect(sandbox.state.countEffects('withdrawal.confirm')).toBe(1);
    expect(sandbox.state.balance(m.id, 'USDT')).toMatchObject({ available: '30.000000', withdrawing: '0.000000', total: '30.000000' });
  });
});

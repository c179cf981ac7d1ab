/**
 * Withdrawals through the SDK over server mode: what the service's spec decides (balances rows,
 * `to_address` length in characters), the per-member limits the sandbox models, and the choice
 * for a second confirmation.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, isApiError } from '../../src/index.js';
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

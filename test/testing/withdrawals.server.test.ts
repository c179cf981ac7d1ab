/**
 * Withdrawals through the SDK over server mode: what the service's spec decides (balances rows,
 * `to_address` length in characters), the per-member limits the sandbox models, and the choice
 * for a second confirmation.
 */
import { describe, expect, it } from 'vitest';
import { isApiError } from '../../src/index.js';
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

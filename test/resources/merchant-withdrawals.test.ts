/**
 * Issue 23, point 7, through the sandbox over HTTP: withdrawal confirm and fail (scope not shown)
 * are callable without naming a member (`client.withdrawals`, no `x-on-behalf-of`), so a member
 * suspended after the debit, who is `member_not_found` under `x-on-behalf-of`, does not strand the
 * funds in `withdrawing`; the member form stays.
 */
import { describe, expect, it } from 'vitest';
import { isApiError, type MerchantClient } from '../../src/index.js';
import type { Sandbox } from '../../src/testing/index.js';
import { servedWorlds, thrownBy } from '../testing/served.js';

const serve = servedWorlds();

/** A member with 100 USDT and one 40 USDT withdrawal debited (`locked`). */
async function debited(sandbox: Sandbox, client: MerchantClient): Promise<{ member: string; withdrawal: string }> {
  const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
  const order = await client.member(m.id).withdrawals.create({ asset: 'USDT', amount: '40', to_address: 'TQ7x1Vb9' });
  return { member: m.id, withdrawal: order.id };
}

const settles = (sandbox: Sandbox, path: string) => sandbox.requests.filter((r) => r.method === 'POST' && r.path === path);

describe('confirm and fail without a member, for a member suspended after the debit', () => {
  it('confirm: the member form meets member_not_found; client.withdrawals.confirm clears the hold', async () => {
    const { sandbox, client } = await serve();
    const { member, withdrawal } = await debited(sandbox, client);
    await client.members.suspend(member);

    const stranded = await thrownBy(() => client.member(member).withdrawals.confirm(withdrawal));
    expect(isApiError(stranded, 'member_not_found')).toBe(true);
    expect(sandbox.state.balance(member, 'USDT')).toMatchObject({ available: '60.000000', withdrawing: '40.000000' });

    const result = await client.withdrawals.confirm(withdrawal).withResponse();
    expect(result.data).toMatchObject({ id: withdrawal, status: 'confirmed' });
    expect(sandbox.state.balance(member, 'USDT')).toMatchObject({ available: '60.000000', withdrawing: '0.000000' });
    expect(sandbox.state.countEffects('withdrawal.confirm')).toBe(1);

    const [withMember, withoutMember] = settles(sandbox, `/v1/withdrawals/${withdrawal}/confirm`);
    expect(withMember!.headers['x-on-behalf-of']).toBe(member);
    expect(withoutMember!.headers['x-on-behalf-of']).toBeUndefined();
    expect(withoutMember!.headers['x-idempotency-key']).toBe(result.response.idempotencyKey);
    expect(withoutMember!.body).toBe('{}');
  });

  it('fail: client.withdrawals.fail returns the funds to the suspended member’s available', async () => {
    const { sandbox, client } = await serve();
    const { member, withdrawal } = await debited(sandbox, client);
    await client.members.suspend(member);
    expect(isApiError(await thrownBy(() => client.member(member).withdrawals.fail(withdrawal)), 'member_not_found')).toBe(true);

    expect(await client.withdrawals.fail(withdrawal, { reason: 'chain rejected' })).toMatchObject({ id: withdrawal, status: 'failed' });
    expect(sandbox.state.balance(member, 'USDT')).toMatchObject({ available: '100.000000', withdrawing: '0.000000' });
    const [, withoutMember] = settles(sandbox, `/v1/withdrawals/${withdrawal}/fail`);
    expect(withoutMember!.headers['x-on-behalf-of']).toBeUndefined();
    expect(withoutMember!.body).toBe('{"reason":"chain rejected"}');
  });
});

describe('both forms stay', () => {
  it('an active member: the member form and the merchant form each settle one withdrawal, once', async () => {
    const { sandbox, client } = await serve();
    const first = await debited(sandbox, client);
    const second = await client.member(first.member).withdrawals.create({ asset: 'USDT', amount: '10', to_address: 'TQ7x1Vb9' });
    expect(await client.member(first.member).withdrawals.confirm(first.withdrawal)).toMatchObject({ status: 'confirmed' });
    expect(await client.withdrawals.confirm(second.id)).toMatchObject({ status: 'confirmed' });
    expect(sandbox.state.balance(first.member, 'USDT')).toMatchObject({ available: '50.000000', withdrawing: '0.000000' });
    expect(sandbox.state.countEffects('withdrawal.confirm')).toBe(2);
  });

  it("another member's order is refused under x-on-behalf-of, as before", async () => {
    const { sandbox, client } = await serve();
    const { withdrawal } = await debited(sandbox, client);
    const other = sandbox.state.seedMember();
    const err = await thrownBy(() => client.member(other.id).withdrawals.confirm(withdrawal));
    expect(isApiError(err, 'not_found')).toBe(true);
    expect(sandbox.state.countEffects('withdrawal.confirm')).toBe(0);
  });

  it('the merchant form checks its arguments before sending', async () => {
    const { sandbox, client } = await serve();
    await expect(client.withdrawals.confirm('')).rejects.toThrow(/withdrawalId/);
    await expect(client.withdrawals.fail(' ')).rejects.toThrow(/withdrawalId/);
    await expect(client.withdrawals.fail('wdr_1', 'x' as never)).rejects.toThrow(/params/);
    expect(sandbox.requests.filter((r) => r.path.startsWith('/v1/withdrawals/'))).toHaveLength(0);
  });
});

/**
 * How a merchant tests their own backend: msw intercepts the SDK's fetch transport and the
 * sandbox simulator answers like the service, with faults injected where the network bites.
 */
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../src/index.js';
import { createSandbox } from '../src/testing/index.js';
import { mswHandlers } from '../src/testing/msw.js';

// --- the merchant's application code under test -------------------------------------------
async function payOut(client: MerchantClient, memberId: string, amount: string): Promise<string> {
  const order = await client.member(memberId).withdrawals.create({ asset: 'USDT', amount, to_address: 'TQ7x1Vb9' });
  return order.id;
}
// -------------------------------------------------------------------------------------------

const sandbox = createSandbox();
const server = setupServer(...mswHandlers(sandbox));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  sandbox.faults.clear();
  sandbox.resetRequests();
});
afterAll(() => server.close());

describe('payOut', () => {
  it('debits the member once even when the gateway times out after executing', async () => {
    const client = sandbox.client({ via: 'msw' });
    const member = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
    // The service executes the debit, then the gateway answers 504: the outcome looks unknown.
    sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 504, when: 'after' });

    const id = await payOut(client, member.external_member_id, '40');

    // The SDK retried with the same key and got the stored result: one debit, not two.
    expect(id).toMatch(/^wdr_/);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
    expect(sandbox.state.balance(member.id, 'USDT')).toMatchObject({ available: '60.000000', withdrawing: '40.000000' });
    const attempts = sandbox.requests.filter((r) => r.path === '/v1/withdrawals');
    expect(attempts).toHaveLength(2);
    expect(attempts[0]!.headers['x-idempotency-key']).toBe(attempts[1]!.headers['x-idempotency-key']);
    expect(attempts[0]!.headers['x-nonce']).not.toBe(attempts[1]!.headers['x-nonce']);
    await client.close();
  });

  it('surfaces insufficient funds as a typed error and moves nothing', async () => {
    const client = sandbox.client({ via: 'msw' });
    const member = sandbox.state.seedMember({ balances: { USDT: { available: '5' } } });
    await expect(payOut(client, member.id, '40')).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect(sandbox.state.balance(member.id, 'USDT')).toMatchObject({ available: '5.000000', withdrawing: '0.000000' });
    await client.close();
  });
});

/**
 * The complete example of docs/testing.md, kept runnable: the same code with the package
 * imports pointed at src/. Change both together.
 */
// --- docs/testing.md: complete example (msw mode) -----------------------------------------
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isApiError, looseFields, type MerchantClient } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import { mswHandlers } from '../../src/testing/msw.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';

// The code under test: a function of your application.
async function payOut(client: MerchantClient, memberId: string, amount: string): Promise<string> {
  const order = await client.member(memberId).withdrawals.create({ asset: 'USDT', amount, to_address: 'TQ7x1Vb9' });
  return order.id;
}

const msw = setupServer();
let sandbox: Sandbox;
let client: MerchantClient;

beforeAll(() => msw.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  sandbox = createSandbox(); // a fresh simulated service per test
  msw.resetHandlers(...mswHandlers(sandbox)); // msw answers from this one
  client = sandbox.client({ via: 'msw' }); // fetch transport: msw sees every call
});
afterEach(() => client.close());
afterAll(() => msw.close());

describe('payOut', () => {
  it('debits once when the gateway times out after executing', async () => {
    const member = sandbox.state.seedMember({ external_member_id: 'user-42', balances: { USDT: { available: '100' } } });
    // The service executes the debit, then the gateway answers 504: the outcome looks unknown.
    sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 504, when: 'after' });

    const id = await payOut(client, 'user-42', '40');

    expect(id).toMatch(/^wdr_/);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1); // money moved once
    expect(sandbox.state.balance(member.id, 'USDT')).toMatchObject({ available: '60.000000', withdrawing: '40.000000' });
    const attempts = sandbox.requests.filter((r) => r.path === '/v1/withdrawals');
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.headers['x-idempotency-key']).toBe(attempts[0]!.headers['x-idempotency-key']);
    expect(attempts[1]!.headers['x-nonce']).not.toBe(attempts[0]!.headers['x-nonce']);
  });

  it('reports an overdraft by its code and moves nothing', async () => {
    sandbox.state.seedMember({ external_member_id: 'user-7', balances: { USDT: { available: '5' } } });
    const err = await payOut(client, 'user-7', '40').catch((e: unknown) => e);
    expect(isApiError(err, 'insufficient_balance')).toBe(true);
    expect(sandbox.state.balance('user-7', 'USDT')).toMatchObject({ available: '5.000000', withdrawing: '0.000000' });
  });

  it('corrects a service clock 10 minutes ahead after one timestamp_out_of_range', async () => {
    sandbox.state.seedMember({ external_member_id: 'user-8', balances: { USDT: { available: '100' } } });
    sandbox.clock.skewSignatures(10 * 60_000); // signatures and the Date header: 10 minutes ahead
    await payOut(client, 'user-8', '1');
    // The token exchange is unsigned: the withdrawal meets the skew, and goes again once, corrected.
    expect(sandbox.requests.filter((r) => r.path === '/v1/connect/token')).toHaveLength(1);
    expect(sandbox.requests.filter((r) => r.path === '/v1/withdrawals')).toHaveLength(2);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
    expect(Math.round(client.clockOffsetMs / 60_000)).toBe(10);
  });
});

describe('webhooks', () => {
  it('a card top-up reaches your handler as card.topup.credited', async () => {
    const received: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      // The simulator's own signature scheme (the spec does not publish the service's).
      verify: (rawBody, headers) => headers['z-signature'] === hooks.webhooks.sign(new TextDecoder().decode(rawBody)),
      onEvent: (event) => {
        received.push(event);
      },
    });
    // Deliveries go straight to the handler: no socket, nothing for msw to intercept.
    const hooks: Sandbox = createSandbox({
      webhooks: { transport: async (_url, req) => (await handler.handle(req.body, req.headers)).status },
    });
    msw.resetHandlers(...mswHandlers(hooks));
    const hooked = hooks.client({ via: 'msw' });
    hooks.webhooks.register('https://merchant.example/webhooks'); // events are emitted while a receiver is registered

    const member = hooks.state.seedMember({ balances: { USDT: { available: '50' } } });
    const card = hooks.state.seedCard({ member: member.id, form: 'virtual' });
    const topup = await hooked.member(member.id).cards.topUp(card.id, { asset: 'USDT', amount: '20' });
    await hooks.webhooks.flush();

    // The spec does not show the top-up's shape: looseFields reads its fields, each optional.
    expect(received.map((e) => [e.event_type, e.data.id])).toEqual([['card.topup.credited', looseFields(topup).id]]);
    expect(hooks.webhooks.deliveries.map((d) => d.status)).toEqual([200]);
    await hooked.close();
  });
});
// -------------------------------------------------------------------------------------------

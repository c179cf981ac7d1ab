/**
 * A merchant's own test suite with msw 2 and its own handlers: the application builds its client
 * with default settings (no transport named), and msw answers every request the SDK makes. The
 * runtime smoke (scripts/runtime-smoke.ts) runs the same three cases with msw 3 on Node 22 and 24.
 *
 *   npx vitest run examples/msw-merchant-suite.test.ts
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CallInterruptedError, isApiError, MerchantClient } from '../src/index.js';

// --- the merchant's application code under test ---------------------------------------------
/** Pays a customer out in USDT; answers what the shop shows them. */
async function payOut(client: MerchantClient, customer: string, amount: string): Promise<string> {
  try {
    const order = await client.member(customer).withdrawals.create({ asset: 'USDT', amount, to_address: 'TQ7x1Vb9shopWallet' });
    return `payout ${order.id} ${order.status}`;
  } catch (err) {
    if (isApiError(err, 'insufficient_balance')) return 'not enough funds';
    throw err;
  }
}
// ---------------------------------------------------------------------------------------------

const BASE_URL = 'https://sandbox.merchant-api.test';

/** The merchant's handlers: the token exchange, and withdrawals answered by amount. */
const handlers = [
  http.post(`${BASE_URL}/v1/connect/token`, () =>
    HttpResponse.json({ auth_token: 'tok_test', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
  ),
  http.post(`${BASE_URL}/v1/withdrawals`, async ({ request }) => {
    const body = (await request.json()) as { asset: string; amount: string; to_address: string };
    if (Number(body.amount) > 100) {
      return HttpResponse.json(
        { type: 'invalid_request_error', code: 'insufficient_balance', message: 'Insufficient balance', request_id: 'req_test_2' },
        { status: 400, headers: { 'x-request-id': 'req_test_2' } },
      );
    }
    const order = {
      id: 'wdr_test_1',
      status: 'locked',
      asset: body.asset,
      amount: body.amount,
      ledger_scale: 6,
      to_address: body.to_address,
    };
    return HttpResponse.json(order, { status: 201, headers: { 'x-request-id': 'req_test_1' } });
  }),
];

const server = setupServer(...handlers);
/** What msw reported as unhandled, one entry per request. */
const unhandled: string[] = [];
server.events.on('request:unhandled', ({ request }) => void unhandled.push(`${request.method} ${new URL(request.url).pathname}`));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  unhandled.length = 0;
});
afterAll(() => server.close());

/** As the application builds it: default settings, test credentials. */
function appClient(): MerchantClient {
  return new MerchantClient({ baseUrl: BASE_URL, clientId: 'cli_test', apiKey: 'test-api-key', signingKey: 'test-signing-key' });
}

describe('payOut', () => {
  it('pays a customer out: msw answers the token exchange and the signed withdrawal', async () => {
    const seen: Request[] = [];
    server.events.on('request:start', ({ request }) => void seen.push(request.clone()));
    const client = appClient();
    expect(await payOut(client, 'cust-42', '25.50')).toBe('payout wdr_test_1 locked');
    await client.close();
    expect(seen.map((r) => `${r.method} ${new URL(r.url).pathname}`)).toEqual(['POST /v1/connect/token', 'POST /v1/withdrawals']);
    const withdrawal = seen[1]!;
    expect(withdrawal.headers.get('x-on-behalf-of')).toBe('cust-42');
    expect(withdrawal.headers.get('x-idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(withdrawal.headers.get('x-signature')).toHaveLength(44);
    expect(await withdrawal.json()).toEqual({ asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9shopWallet' });
    server.events.removeAllListeners('request:start');
  });

  it('tells the customer when the balance is short (insufficient_balance)', async () => {
    const client = appClient();
    expect(await payOut(client, 'cust-42', '250')).toBe('not enough funds');
    await client.close();
  });

  it('a request without a handler fails the call with msw error as the cause, reported once by msw', async () => {
    const client = appClient();
    // The application reads balances, which this suite has no handler for.
    const err = await client
      .member('cust-42')
      .balances.list()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await client.close();
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(((err as Error).cause as Error).message).toMatch(/^\[MSW\] Cannot bypass a request/);
    expect(unhandled).toEqual(['GET /v1/balances']);
  });
});

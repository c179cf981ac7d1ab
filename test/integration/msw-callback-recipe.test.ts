/**
 * The callback recipe of docs/testing.md under msw 2: a suite that also calls its own app lets
 * loopback through and refuses the rest with `print.error()` and a throw. msw then answers the
 * refused request with a 500 "Unhandled Exception" whose body is the thrown error. The SDK reports
 * it as the interceptor's refusal: not sent, one attempt at most, never retried, msw's words as
 * the cause, and for a money-moving POST too.
 */
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CallInterruptedError, MemoryJournal, MerchantClient } from '../../src/index.js';
import { createSandbox, SANDBOX_BASE_URL } from '../../src/testing/index.js';
import { mswHandlers } from '../../src/testing/msw.js';
import { failure } from '../helpers/client.js';

const mocked = createSandbox();
const msw = setupServer(...mswHandlers(mocked));
/** Every request the recipe's callback refused (it runs once per refused request). */
const refused: string[] = [];

beforeAll(() =>
  msw.listen({
    onUnhandledRequest(request, print) {
      if (new URL(request.url).hostname === '127.0.0.1') return; // the suite's own app
      refused.push(`${request.method} ${new URL(request.url).pathname}`);
      print.error();
      throw new Error(`unhandled ${request.method} ${request.url}`);
    },
  }),
);
afterEach(() => {
  refused.length = 0;
  mocked.resetRequests();
  msw.resetHandlers();
});
afterAll(() => msw.close());

const quiet = { error: () => undefined, warn: () => undefined };

describe('the documented msw 2 callback recipe', () => {
  it('a money-moving POST nothing handles: CallInterruptedError, sent no, refused once, never retried', async () => {
    const journal = new MemoryJournal();
    // A host no handler answers: the refusal comes from the recipe's throw.
    const client = new MerchantClient({ baseUrl: 'https://elsewhere.example.test', ...mocked.credentials, logger: quiet, journal });
    msw.use(
      http.post('https://elsewhere.example.test/v1/connect/token', () =>
        HttpResponse.json({ auth_token: 'tok', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
      ),
    );
    const err = (await failure(
      client.member('m-1').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }),
    )) as CallInterruptedError;
    expect(err).toBeInstanceOf(CallInterruptedError);
    expect(err.call).toMatchObject({ sent: 'no' });
    expect(err.message).toMatch(/refused POST .*\/v1\/withdrawals before it was sent/);
    expect((err.cause as Error).message).toMatch(/^unhandled POST https:\/\/elsewhere\.example\.test\/v1\/withdrawals/);
    expect(refused).toEqual(['POST /v1/withdrawals']);
    // Nothing was sent: the journal holds nothing that a recovery could send later.
    expect(journal.open()).toEqual([]);
    await client.close();
  });

  it('the sandbox handlers still answer, and a handled 500 of the service is not mistaken for a refusal', async () => {
    const client = new MerchantClient({ baseUrl: SANDBOX_BASE_URL, ...mocked.credentials, logger: quiet, maxRetries: 0 });
    await client.sandbox.faucet({ asset: 'USDT', amount: '5' });
    msw.use(
      http.get(`${SANDBOX_BASE_URL}/v1/assets`, () =>
        HttpResponse.json({ type: 'api_error', code: 'api_error', message: 'boom', request_id: 'req_1' }, { status: 500 }),
      ),
    );
    const err = await failure(client.assets.list());
    expect(err).toMatchObject({ name: 'ApiError', code: 'api_error', call: { sent: 'yes' } });
    expect(refused).toEqual([]);
    await client.close();
  });
});

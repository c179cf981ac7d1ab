import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isApiError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';
import { SAMPLES } from './samples.js';

let server: WireServer;
let client: MerchantClient;

beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

/** The error codes the spec lists for each fully specified endpoint, with their HTTP status. */
const DOCUMENTED: Record<string, ReadonlyArray<readonly [number, string]>> = {
  'member.withdrawals.create': [
    [400, 'invalid_request'],
    [400, 'asset_not_allowed'],
    [400, 'insufficient_balance'],
    [400, 'limit_exceeded'],
    [400, 'request_rejected'],
    [400, 'service_unavailable'],
    [409, 'idempotency_key_reused'],
    [409, 'idempotency_in_progress'],
    [400, 'member_context_required'],
    [404, 'member_not_found'],
  ],
  'member.qrpay.quote': [
    [400, 'qr_code_invalid'],
    [400, 'corridor_not_supported'],
    [400, 'amount_out_of_range'],
    [400, 'kyc_required'],
    [400, 'insufficient_balance'],
    [400, 'request_rejected'],
    [400, 'product_not_available'],
    [400, 'service_unavailable'],
    [400, 'invalid_request'],
    [400, 'member_context_required'],
    [404, 'member_not_found'],
    [403, 'insufficient_scope'],
    [429, 'rate_limited'],
    [502, 'upstream_error'],
  ],
  'member.kyc.submitApplication': [
    [400, 'invalid_request'],
    [400, 'product_not_available'],
    [400, 'state_invalid'],
    [404, 'member_not_found'],
    [404, 'card_product_not_found'],
    [400, 'idempotency_key_required'],
    [409, 'idempotency_key_reused'],
  ],
  'member.kyc.quickBind': [
    [400, 'quick_kyc_disabled'],
    [400, 'quick_kyc_limit'],
    [400, 'quick_kyc_exhausted'],
    [400, 'quick_kyc_unpaid'],
    [400, 'invalid_request'],
    [400, 'member_context_required'],
    [404, 'member_not_found'],
    [409, 'idempotency_key_reused'],
    [409, 'idempotency_in_progress'],
  ],
  'merchant.conversions.create': [
    [400, 'quote_lock_unsupported'],
    [400, 'invalid_request'],
    [400, 'asset_not_allowed'],
    [400, 'product_not_available'],
    [400, 'amount_out_of_range'],
    [400, 'merchant_insufficient_funds'],
    [400, 'limit_exceeded'],
    [400, 'service_unavailable'],
    [403, 'insufficient_scope'],
    [409, 'idempotency_key_reused'],
    [409, 'idempotency_in_progress'],
  ],
  'merchant.topups.create': [
    [400, 'invalid_request'],
    [400, 'invalid_fields'],
    [400, 'asset_not_allowed'],
    [403, 'insufficient_scope'],
    [409, 'idempotency_key_reused'],
    [409, 'idempotency_in_progress'],
  ],
  'member.balances.list': [
    [400, 'member_context_required'],
    [404, 'member_not_found'],
  ],
  'member.shippingAddresses.update': [
    [400, 'invalid_fields'],
    [400, 'idempotency_key_required'],
    [404, 'not_found'],
  ],
  'member.remittances.applyPersonalAccount': [
    [400, 'kyc_required'],
    [400, 'state_invalid'],
    [403, 'insufficient_scope'],
    [404, 'member_not_found'],
  ],
  'member.remittances.cancel': [
    [400, 'state_invalid'],
    [500, 'api_error'],
    [404, 'not_found'],
  ],
  'remittances.agreement': [[503, 'service_unavailable']],
  'member.cards.unfreeze': [
    [400, 'state_invalid'],
    [400, 'product_not_available'],
    [400, 'idempotency_key_required'],
    [400, 'idempotency_key_invalid'],
    [500, 'api_error'],
    [404, 'not_found'],
  ],
  'reports.list': [[403, 'insufficient_scope']],
  'member.remittances.pendingAction': [[404, 'not_found']],
  'member.cards.closeCheck': [[404, 'not_found']],
  'member.cards.activate': [
    [400, 'state_invalid'],
    [400, 'product_not_available'],
    [400, 'idempotency_key_required'],
    [400, 'idempotency_key_invalid'],
    [500, 'api_error'],
    [404, 'not_found'],
  ],
  'sandbox.faucet': [
    [400, 'invalid_request'],
    [400, 'asset_not_allowed'],
    [400, 'limit_exceeded'],
    [400, 'idempotency_key_required'],
    [400, 'idempotency_key_invalid'],
    [409, 'idempotency_key_reused'],
    [409, 'idempotency_in_progress'],
    [404, 'not_found'],
  ],
  'remittances.corridors': [
    [403, 'insufficient_scope'],
    [500, 'api_error'],
  ],
  'member.cards.updateLimits': [
    [400, 'state_invalid'],
    [400, 'product_not_available'],
    [400, 'invalid_fields'],
    [500, 'api_error'],
    [404, 'not_found'],
  ],
  'remittances.swiftSearch': [[429, 'rate_limited']],
};

describe('documented error codes surface as ApiError with that code', () => {
  for (const [id, codes] of Object.entries(DOCUMENTED)) {
    const sample = SAMPLES[id]!;
    const [method, url] = sample.request.split(' ') as [string, string];
    for (const [status, code] of codes) {
      it(`${id}: ${status} ${code}`, async () => {
        server.on(method, url.split('?')[0]!, apiError(status, code));
        const err: unknown = await Promise.resolve(sample.call(client, { maxRetries: 0 })).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(isApiError(err) && err.code === code).toBe(true);
        expect(err).toMatchObject({ code, status, requestId: `req_${code}` });
        expect(server.calls()).toHaveLength(1);
      });
    }
  }

  it('the token exchange: 401 invalid_credentials surfaces on the first call', async () => {
    server.onToken(apiError(401, 'invalid_credentials'));
    const err = await client.reports.list().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(err, 'invalid_credentials')).toBe(true);
    expect(server.calls()).toHaveLength(0);
  });
});

describe('documented extra fields', () => {
  it('faucet limit_exceeded carries limit_type single', async () => {
    server.on('POST', '/v1/sandbox/faucet', apiError(400, 'limit_exceeded', { limit_type: 'single' }));
    const err = await client.sandbox.faucet({ asset: 'USDT', amount: '2000000' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(err, 'limit_exceeded') && err.extras.limit_type).toBe('single');
  });

  it('a locked card activation carries locked_until', async () => {
    server.on('POST', '/v1/cards/crd_1/activate', apiError(400, 'state_invalid', { locked_until: '2026-01-03T00:00:00Z' }));
    const err = await client
      .member('ext-42')
      .cards.activate('crd_1', { expiry: '07/29', pin: '1234' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isApiError(err, 'state_invalid') && err.extras.locked_until).toBe('2026-01-03T00:00:00Z');
  });

  it('top-up invalid_fields carries fields[].key = amount', async () => {
    server.on('POST', '/v1/merchant/topups', apiError(400, 'invalid_fields', { fields: [{ key: 'amount', reason: 'invalid' }] }));
    const err = await client.merchant.topups.create({ asset: 'USDT', amount: '1' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(err, 'invalid_fields') && err.extras.fields?.[0]?.key).toBe('amount');
  });
});

describe('500s that retrying does not fix are not retried', () => {
  const sends = async (id: string, status: number, code: string) => {
    const sample = SAMPLES[id]!;
    const [method, url] = sample.request.split(' ') as [string, string];
    server.on(method, url.split('?')[0]!, apiError(status, code));
    await expect(Promise.resolve(sample.call(client))).rejects.toMatchObject({ code });
    return server.calls().length;
  };

  it('card activation: a 500 (a mismatch counts toward the lock) is sent once', async () => {
    expect(await sends('member.cards.activate', 500, 'api_error')).toBe(1);
  });
  it('card activation: a 502 or a 504 from the service (upstream 5xx do not count toward the lock) is retried with the same key', async () => {
    const sample = SAMPLES['member.cards.activate']!;
    const url = sample.request.split(' ')[1]!.split('?')[0]!;
    server.on('POST', url, [apiError(502, 'upstream_error'), apiError(504, 'upstream_timeout'), { body: sample.reply }]);
    await sample.call(wireClient(server.url, { maxRetries: 3 }));
    const calls = server.calls();
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.headers['x-idempotency-key'])).size).toBe(1);
    expect(new Set(calls.map((c) => c.headers['x-nonce'])).size).toBe(3);
  });
  it('card activation: a 409 in progress is sent once (the first request may end in a 500 the key does not store)', async () => {
    expect(await sends('member.cards.activate', 409, 'idempotency_in_progress')).toBe(1);
  });
  it('card activation: an unknown code (treated as api_error) is sent once', async () => {
    expect(await sends('member.cards.activate', 500, 'brand_new_code')).toBe(1);
  });
  it('remittance cancel: a 500 for a non-cancellable order is sent once', async () => {
    expect(await sends('member.remittances.cancel', 500, 'api_error')).toBe(1);
  });
  it('card unfreeze: a risk-freeze 500 is sent once', async () => {
    expect(await sends('member.cards.unfreeze', 500, 'api_error')).toBe(1);
  });
  it('card limits: an invalid-amount 500 is sent once', async () => {
    expect(await sends('member.cards.updateLimits', 500, 'api_error')).toBe(1);
  });
  it('control: a withdrawal 500 is retried with the same idempotency key', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(500, 'api_error'), { status: 201, body: SAMPLES['member.withdrawals.create']!.reply }]);
    await SAMPLES['member.withdrawals.create']!.call(client);
    const calls = server.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.headers['x-idempotency-key']).toBe(calls[0]!.headers['x-idempotency-key']);
    expect(calls[1]!.headers['x-nonce']).not.toBe(calls[0]!.headers['x-nonce']);
  });
  it('control: a remittance cancel 502 is still retried with the same key', async () => {
    server.on('POST', '/v1/remittances/rmt_a%2Fb/cancel', [
      apiError(502, 'upstream_error'),
      { body: SAMPLES['member.remittances.cancel']!.reply },
    ]);
    await SAMPLES['member.remittances.cancel']!.call(client);
    expect(server.calls()).toHaveLength(2);
  });
});

describe('merchant conversions: service_unavailable "is not cached under the key, so the same key may be retried"', () => {
  const sample = SAMPLES['merchant.conversions.create']!;

  it('its retryClass says same_key_later; not retried automatically; the caller resends the same key and bytes', async () => {
    server.on('POST', '/v1/merchant/conversions', [apiError(400, 'service_unavailable'), { status: 201, body: sample.reply }]);
    const err = await Promise.resolve(sample.call(wireClient(server.url, { maxRetries: 3 }))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isApiError(err, 'service_unavailable')).toBe(true);
    expect(err).toMatchObject({ retryClass: 'same_key_later', attempts: 1, call: { sent: 'yes' } });
    // One request: the SDK leaves the wait for the line to the caller.
    expect(server.calls()).toHaveLength(1);
    const key = (err as { idempotencyKey: string }).idempotencyKey;
    expect(server.calls()[0]!.headers['x-idempotency-key']).toBe(key);

    const { response } = await client.merchant.conversions
      .create({ from_asset: 'usdt', to_asset: 'USDC', from_amount: '100', min_to_amount: '99.5' }, { idempotencyKey: key })
      .withResponse();
    expect(response.status).toBe(201);
    const [first, again] = server.calls();
    expect(again!.headers['x-idempotency-key']).toBe(key);
    expect(again!.body.equals(first!.body)).toBe(true);
    expect(again!.headers['x-nonce']).not.toBe(first!.headers['x-nonce']);
  });

  it('control: other business failures of a conversion, and service_unavailable elsewhere, keep new_key', async () => {
    server.on('POST', '/v1/merchant/conversions', apiError(400, 'merchant_insufficient_funds'));
    await expect(Promise.resolve(sample.call(client))).rejects.toMatchObject({
      code: 'merchant_insufficient_funds',
      retryClass: 'new_key',
    });
    const withdrawal = SAMPLES['member.withdrawals.create']!;
    server.on('POST', '/v1/withdrawals', apiError(400, 'service_unavailable'));
    await expect(Promise.resolve(withdrawal.call(client))).rejects.toMatchObject({ code: 'service_unavailable', retryClass: 'new_key' });
    expect(server.calls()).toHaveLength(2);
  });
});

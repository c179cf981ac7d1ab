import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, InvalidArgumentError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';
import { qrQuote } from '../schemas/fixtures.js';

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

const order = { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '1', ledger_scale: 6, to_address: 'T' };

describe('idempotency keys', () => {
  it('generates a v4 key per call, and each call gets its own', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: order });
    const m = client.member('m');
    const a = await m.withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }).withResponse();
    const b = await m.withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }).withResponse();
    expect(a.response.idempotencyKey).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.response.idempotencyKey).not.toBe(b.response.idempotencyKey);
    expect(server.calls().map((c) => c.headers['x-idempotency-key'])).toEqual([a.response.idempotencyKey, b.response.idempotencyKey]);
  });

  it('a result is a replay only when the service says x-idempotent-replay: true', async () => {
    server.on('POST', '/v1/withdrawals', [
      { status: 201, body: order },
      { status: 201, headers: { 'x-idempotent-replay': 'false' }, body: order },
      { status: 201, headers: { 'x-idempotent-replay': 'true' }, body: order },
    ]);
    const create = () => client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }).withResponse();
    const flags = [];
    for (let i = 0; i < 3; i++) flags.push((await create()).response.replayed);
    expect(flags).toEqual([false, false, true]);
  });

  it('sends the caller key unchanged (shape checked, not version)', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: order });
    const key = 'ABCDEF01-2345-1789-0abc-def012345678';
    await client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: key });
    expect(server.calls()[0]!.headers['x-idempotency-key']).toBe(key);
  });

  it('rejects a malformed caller key before sending', async () => {
    const err = await client
      .member('m')
      .withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { idempotencyKey: 'order-42' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).argument).toBe('idempotencyKey');
    expect(server.requests).toHaveLength(0);
  });

  it('makes replays visible with the request id, status and headers', async () => {
    server.on('POST', '/v1/withdrawals', {
      status: 201,
      body: order,
      headers: { 'x-idempotent-replay': 'true', 'x-request-id': 'req_replayed' },
    });
    const { data, response } = await client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }).withResponse();
    expect(data).toEqual(order);
    expect(response).toMatchObject({ replayed: true, status: 201, requestId: 'req_replayed', attempts: 1 });
    expect(response.headers['x-idempotent-replay']).toBe('true');
  });

  it('GETs carry no key', async () => {
    server.on('GET', '/v1/balances', { body: { data: [], next_cursor: null, has_more: false, balances: [] } });
    const { response } = await client.member('m').balances.list().withResponse();
    expect(response.idempotencyKey).toBeUndefined();
    expect(server.calls()[0]!.headers['x-idempotency-key']).toBeUndefined();
  });
});

describe("a caller's key where the spec gives the endpoint none", () => {
  const KEY = '0b6f1c2e-4a5d-4e8f-9a0b-1c2d3e4f5a6b';

  it('QR quotes ("No idempotency key"), card limits ("No idempotency key is listed") and reads: refused, nothing sent', async () => {
    const m = client.member('m');
    const calls: Array<[string, () => PromiseLike<unknown>]> = [
      ['POST /v1/qrpay/quotes', () => m.qrpay.quote({ code_value: 'QR1' }, { idempotencyKey: KEY })],
      ['PATCH /v1/cards/{id}/limits', () => m.cards.updateLimits('crd_1', { single: '10' }, { idempotencyKey: KEY })],
      ['GET /v1/balances', () => m.balances.list({ idempotencyKey: KEY })],
      ['GET /v1/reports', () => client.reports.list(undefined, { idempotencyKey: KEY })],
      ['GET /v1/remit/vp/agreement', () => client.remittances.agreement(undefined, { idempotencyKey: KEY })],
    ];
    for (const [route, call] of calls) {
      const err = await Promise.resolve(call()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidArgumentError);
      expect(err).toMatchObject({ argument: 'idempotencyKey' });
      expect((err as Error).message).toBe(
        `idempotencyKey: ${route} takes no idempotency key (the spec gives it none); remove the option. Nothing was sent.`,
      );
    }
    expect(server.requests).toHaveLength(0);
  });

  it('without the option, those calls go out with no x-idempotency-key header', async () => {
    server.on('POST', '/v1/qrpay/quotes', { body: qrQuote });
    server.on('PATCH', '/v1/cards/crd_1/limits', { body: { id: 'crd_1', accepted: true } });
    const m = client.member('m');
    const quote = await m.qrpay.quote({ code_value: 'QR1' }).withResponse();
    const limits = await m.cards.updateLimits('crd_1', { single: '10' }).withResponse();
    expect([quote.response.idempotencyKey, limits.response.idempotencyKey]).toEqual([undefined, undefined]);
    expect(server.calls().map((c) => [c.method, c.headers['x-idempotency-key']])).toEqual([
      ['POST', undefined],
      ['PATCH', undefined],
    ]);
  });

  it('a keyless write whose requirement the spec does not show sends the caller key as given; client.request() always does', async () => {
    server.on('POST', '/v1/members/mem_1/suspend', { body: {} });
    server.on('POST', '/v1/qrpay/decode', { body: { amount_editable: false, required_payer_fields: [] } });
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await client.members.suspend('mem_1', {}, { idempotencyKey: KEY });
    await client.member('m').qrpay.decode({ code_value: 'QR1' }, { idempotencyKey: KEY });
    await client.members.suspend('mem_1');
    await client.request({ method: 'GET', path: '/v1/assets', idempotencyKey: KEY });
    expect(server.calls().map((c) => `${c.method} ${c.url} ${c.headers['x-idempotency-key']}`)).toEqual([
      `POST /v1/members/mem_1/suspend ${KEY}`,
      `POST /v1/qrpay/decode ${KEY}`,
      'POST /v1/members/mem_1/suspend undefined',
      `GET /v1/assets ${KEY}`,
    ]);
  });
});

describe('cancellation', () => {
  it('an abort during a backoff sleep stops at once and carries the key', async () => {
    // The client logs 'retrying' right before it sleeps its backoff: abort then, not after a guess.
    let onSleeping!: () => void;
    const sleeping = new Promise<void>((r) => (onSleeping = r));
    const slow = wireClient(server.url, {
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
      logger: { warn: (message) => void (message === 'retrying' && onSleeping()) },
    });
    server.on('POST', '/v1/withdrawals', apiError(502, 'upstream_error'));
    const controller = new AbortController();
    const pending = slow.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { signal: controller.signal });
    await sleeping;
    controller.abort();
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).idempotencyKey).toBe(server.calls()[0]!.headers['x-idempotency-key']);
    expect(server.calls()).toHaveLength(1);
    await slow.close();
  });

  it('an abort during the request stops waiting', async () => {
    // The server holds the request and never answers; the test aborts once it has arrived.
    let onArrived!: () => void;
    const arrived = new Promise<void>((r) => (onArrived = r));
    server.on('POST', '/v1/withdrawals', () => {
      onArrived();
      return new Promise<never>(() => undefined);
    });
    const controller = new AbortController();
    const pending = client.member('m').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { signal: controller.signal });
    await arrived;
    controller.abort();
    const err = await pending.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect((err as AbortError).idempotencyKey).toBe(server.calls()[0]!.headers['x-idempotency-key']);
    expect(server.calls()).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const err = await client
      .member('m')
      .withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' }, { signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(0);
  });
});

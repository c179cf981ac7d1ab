import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AbortError, InvalidArgumentError, type MerchantClient } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';

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

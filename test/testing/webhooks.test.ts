import http from 'node:http';
import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';
import { TestClient, viaHandle } from './harness.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local receiver answering with the given statuses in turn (then 200). */
async function receiver(statuses: number[] = []): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const queue = [...statuses];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(queue.shift() ?? 200);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((f) => f()));
});

describe('webhooks', () => {
  it('delivers the envelope with the spec headers and the simulator signature, retrying on 500', async () => {
    const sb = createSandbox({ merchantId: 'mch_test', webhooks: { backoffMs: 1 } });
    const rx = await receiver([500, 503]);
    closers.push(rx.close);
    sb.webhooks.register(rx.url);
    const env = await sb.webhooks.emit('card.3ds.received', {
      object: 'card',
      id: 'crd_1',
      external_member_id: 'u1',
      status: 'received',
      otp_code: '123456',
    });
    expect(rx.got).toHaveLength(3);
    const last = rx.got[2] as Received;
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.headers['z-event-id']).toBe(env.event_id);
    expect(last.headers['z-event-type']).toBe('card.3ds.received');
    expect(last.headers['z-signature']).toBe(createHmac('sha256', sb.webhooks.secret).update(last.body).digest('hex'));
    const parsed = JSON.parse(last.body);
    expect(parsed).toEqual({
      event_id: env.event_id,
      event_type: 'card.3ds.received',
      created_at: expect.any(String),
      merchant_id: 'mch_test',
      livemode: false,
      data: { object: 'card', id: 'crd_1', external_member_id: 'u1', status: 'received', status_version: 1, otp_code: '123456' },
    });
    expect(parsed.event_id).toMatch(/^evt_[0-9a-f]+$/);
    expect(sb.webhooks.deliveries.map((d) => [d.attempt, d.status, d.ok])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 200, true],
    ]);
  });

  it('gives up after the configured attempts and times out a silent receiver', async () => {
    const sb = createSandbox({ webhooks: { attempts: 2, backoffMs: 1, timeoutMs: 50 } });
    const hang = http.createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', () => r()));
    closers.push(async () => {
      hang.closeAllConnections();
      await new Promise<void>((r) => hang.close(() => r()));
    });
    sb.webhooks.register(`http://127.0.0.1:${(hang.address() as AddressInfo).port}/`);
    await sb.webhooks.emit('card.status.updated', { object: 'card', id: 'crd_2', status: 'active' });
    expect(sb.webhooks.deliveries).toHaveLength(2);
    expect(sb.webhooks.deliveries.every((d) => !d.ok && d.status === undefined && /timeout/.test(d.error ?? ''))).toBe(true);
  });

  it('duplicates and shuffles a batch, keeping one event id per event and rising status versions', async () => {
    const sb = createSandbox();
    const rx = await receiver();
    closers.push(rx.close);
    sb.webhooks.register(rx.url);
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const envs = await sb.webhooks.emitBatch(
      [
        { event_type: 'card.status.updated', data: { object: 'card', id: 'crd_9', status: 'frozen' } },
        { event_type: 'card.status.updated', data: { object: 'card', id: 'crd_9', status: 'unfreezing' } },
        { event_type: 'card.status.updated', data: { object: 'card', id: 'crd_9', status: 'active' } },
      ],
      { duplicates: 1, shuffle: random },
    );
    expect(envs.map((e) => e.data.status_version)).toEqual([1, 2, 3]);
    expect(rx.got).toHaveLength(6);
    const ids = rx.got.map((g) => g.headers['z-event-id']);
    expect(new Set(ids)).toEqual(new Set(envs.map((e) => e.event_id)));
    for (const e of envs) expect(ids.filter((i) => i === e.event_id)).toHaveLength(2);
  });

  it('emits exchange.order.executed, card.topup.credited and card.activated automatically', async () => {
    const sb = createSandbox();
    const rx = await receiver();
    closers.push(rx.close);
    const c = new TestClient(sb, viaHandle(sb));
    const m = sb.state.seedMember({ external_member_id: 'ext-1', balances: { USDT: { available: '100' } } });
    // Nothing is emitted while no receiver is registered.
    await c.call('POST', '/v1/exchange/orders', {
      member: m.id,
      key: true,
      body: { from_asset: 'USDT', to_asset: 'USDC', from_amount: '1' },
    });
    await sb.webhooks.flush();
    expect(sb.webhooks.events).toHaveLength(0);

    sb.webhooks.register(rx.url);
    const order = await c.call('POST', '/v1/exchange/orders', {
      member: m.id,
      key: true,
      body: { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' },
    });
    expect(order.json).toMatchObject({ status: 'executed', to_amount: '9.980000' });
    const card = sb.state.seedCard({ member: m.id });
    const top = await c.call('POST', `/v1/cards/${card.id}/topups`, { member: m.id, key: true, body: { amount: '5' } });
    const phys = sb.state.seedCard({ member: m.id, form: 'physical' });
    await c.call('POST', `/v1/cards/${phys.id}/activate`, { member: m.id, key: true, body: { expiry: '12/29', pin: '1234' } });
    await sb.webhooks.flush();
    const bodies = rx.got.map((g) => JSON.parse(g.body) as { event_type: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.event_type)).toEqual(['exchange.order.executed', 'card.topup.credited', 'card.activated']);
    expect(bodies[0]?.data).toEqual({
      object: 'exchange_order',
      id: order.json.id,
      external_member_id: 'ext-1',
      status: 'executed',
      status_version: 0,
    });
    expect(bodies[1]?.data).toMatchObject({ object: 'card_topup', id: top.json.id, status: 'credited' });
    expect(bodies[2]?.data).toMatchObject({ object: 'card', id: phys.id, status: 'active' });
    // Payloads carry identifiers and status only.
    for (const b of bodies) expect(Object.keys(b.data)).not.toContain('amount');
    // A replayed request emits nothing new.
    const key = sb.requests.find((r) => r.path === `/v1/cards/${card.id}/topups`)?.headers['x-idempotency-key'];
    await c.call('POST', `/v1/cards/${card.id}/topups`, { member: m.id, key, body: { amount: '5' } });
    await sb.webhooks.flush();
    expect(rx.got).toHaveLength(3);
  });
});

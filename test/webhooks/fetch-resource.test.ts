import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import type { MerchantClient } from '../../src/index.js';
import {
  EVENT_RESOURCE_ROUTES,
  UnsupportedEventResourceError,
  eventResourceRoute,
  fetchEventResource,
  parseEvent,
  type WebhookEvent,
} from '../../src/webhooks/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { envelope, headersFor } from './helpers.js';

function event(type: string, data: Record<string, unknown>): WebhookEvent {
  const env = envelope(type, data);
  return parseEvent(JSON.stringify(env), headersFor(env));
}

let server: WireServer;
let client: MerchantClient;
beforeEach(async () => {
  server = await startWireServer();
  client = wireClient(server.url, { maxRetries: 0 });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe('fetchEventResource', () => {
  it('reads a card with GET /v1/cards/{id} on behalf of the event member', async () => {
    server.on('GET', '/v1/cards/crd_42', { body: { id: 'crd_42', status: 'active' } });
    const e = event('card.3ds.received', { object: 'card', id: 'crd_42', status: 'received', otp_code: '1', external_member_id: 'ext-7' });
    const card = await fetchEventResource<{ id: string; status: string }>(client, e);
    expect(card).toEqual({ id: 'crd_42', status: 'active' });
    const [call] = server.calls();
    expect(call?.method).toBe('GET');
    expect(call?.url).toBe('/v1/cards/crd_42');
    expect(call?.headers['x-on-behalf-of']).toBe('ext-7');
  });

  it('percent-encodes the id so that it cannot change the path', async () => {
    server.on('GET', '/v1/cards/crd%2F..%2Fx', { body: {} });
    await fetchEventResource(client, event('card.activated', { object: 'card', id: 'crd/../x', status: 'active' }));
    expect(server.calls()[0]?.url).toBe('/v1/cards/crd%2F..%2Fx');
  });

  it('refuses kinds the spec shows no endpoint for, naming why', async () => {
    const exchange = event('exchange.order.executed', { object: 'exchange_order', id: 'u-1', status: 'executed', status_version: 0 });
    await expect(fetchEventResource(client, exchange)).rejects.toThrow(UnsupportedEventResourceError);
    const first = event('card.topup.credited', { object: 'card_topup', id: 'first:abc', status: 'credited' });
    await expect(fetchEventResource(client, first)).rejects.toThrow(/no ctp_ row/);
    await expect(
      fetchEventResource(client, event('card.topup.credited', { object: 'card_topup', id: 'ctp_1', status: 'credited' })),
    ).rejects.toThrow(/no GET endpoint for data.object "card_topup"/);
    expect(server.calls()).toHaveLength(0);
  });

  it('takes extra routes, merchant-level ones without x-on-behalf-of', async () => {
    server.on('GET', '/v1/reports/rep_1', { body: { id: 'rep_1', status: 'ready' } });
    const e = event('report.ready', { object: 'report', id: 'rep_1', status: 'ready', external_member_id: '' });
    expect(eventResourceRoute(e)).toBeUndefined();
    const report = await fetchEventResource(client, e, { routes: { report: { path: '/v1/reports/{id}', memberScoped: false } } });
    expect(report).toEqual({ id: 'rep_1', status: 'ready' });
    expect(server.calls()[0]?.headers['x-on-behalf-of']).toBeUndefined();
  });

  it('needs the member for member-scoped resources', async () => {
    const e = event('card.activated', { object: 'card', id: 'crd_1', status: 'active', external_member_id: '' });
    await expect(fetchEventResource(client, e)).rejects.toThrow(InvalidArgumentError);
  });

  it('routes only what the spec shows', () => {
    expect(Object.keys(EVENT_RESOURCE_ROUTES)).toEqual(['card']);
  });
});

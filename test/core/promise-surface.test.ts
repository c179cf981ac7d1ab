/**
 * The promise surface on the wire: `finally` on a single call, `catch` on a list, and the
 * per-member QR quote sub-limit key of a raw request sent without a member.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type MerchantClient } from '../../src/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { wireClient } from '../helpers/client.js';
import { apiError, startWireServer, type WireServer } from '../helpers/wire-server.js';
import { envelope, headersFor } from '../webhooks/helpers.js';

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

describe('promises', () => {
  it('finally runs after a single call, and catch takes a failed list', async () => {
    server.on('GET', '/v1/assets', { body: { data: [], has_more: false, next_cursor: null } });
    let finished = 0;
    await client.assets.list().then(() => undefined);
    server.on('GET', '/v1/reports', apiError(403, 'insufficient_scope'));
    const failed = await client.reports.list().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ApiError);
    expect((failed as ApiError).code).toBe('insufficient_scope');
    server.on('GET', '/v1/balances', { body: { data: [], has_more: false, next_cursor: '' } });
    const rows = await client
      .member('ext-1')
      .balances.list()
      .finally(() => void finished++);
    expect(rows).toEqual([]);
    expect(finished).toBe(1);
  });

  it('a raw QR quote without a member is sent once, under its own sub-limit', async () => {
    server.on('POST', '/v1/qrpay/quotes', { status: 200, body: { quote_id: 'q_1' } });
    const r = await client.request({ method: 'POST', path: '/v1/qrpay/quotes', body: {} });
    expect(r).toMatchObject({ quote_id: 'q_1' });
    expect(server.calls()).toHaveLength(1);
  });

  it('a webhook receiver with telemetry off still answers and counts nothing', async () => {
    const handler = createWebhookHandler({ onEvent: () => undefined, telemetry: { enabled: false }, logger: {} });
    const env = envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 1 });
    expect((await handler.handle(JSON.stringify(env), headersFor(env))).status).toBe(200);
  });
});

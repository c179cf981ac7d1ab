/**
 * Deliveries from the sandbox simulator (`sandbox.webhooks`) to a real `node:http` receiver
 * built with `createWebhookHandler`.
 *
 * The `verify` hook here implements the SIMULATOR's own `z-signature` scheme (hex HMAC-SHA256 of
 * the raw body with `sandbox.webhooks.secret`), since the spec does not publish the service's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../src/index.js';
import { createSandbox, type Sandbox } from '../../src/testing/index.js';
import {
  StatusTracker,
  createWebhookHandler,
  fetchEventResource,
  type WebhookEvent,
  type WebhookHandlerOptions,
  type WebhookVerifier,
} from '../../src/webhooks/index.js';
import { shuffled, startReceiver, type Receiver } from './helpers.js';

function simulatorVerifier(secret: string): WebhookVerifier {
  return (rawBody, headers) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
    const given = Buffer.from(headers['z-signature'] ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };
}

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function setup(
  options: Omit<WebhookHandlerOptions, 'verify' | 'logger'>,
  verifySecret?: string,
): Promise<{ sb: Sandbox; rx: Receiver }> {
  const sb = createSandbox({ merchantId: 'mch_sim', webhooks: { backoffMs: 1 } });
  const handler = createWebhookHandler({ ...options, verify: simulatorVerifier(verifySecret ?? sb.webhooks.secret), logger: {} });
  const rx = await startReceiver(handler);
  closers.push(() => rx.close());
  sb.webhooks.register(rx.url);
  return { sb, rx };
}

/** A deterministic random source for the simulator's shuffle. */
function seeded(seed: number): () => number {
  const order = shuffled(
    Array.from({ length: 1000 }, (_, i) => i / 1000),
    seed,
  );
  let i = 0;
  return () => order[i++ % order.length] as number;
}

describe('sandbox.webhooks → createWebhookHandler', () => {
  it('processes each event once under shuffled duplicates, and tracks the highest version', async () => {
    const processed: string[] = [];
    const tracker = new StatusTracker();
    const { sb } = await setup({
      onEvent: (event) => {
        processed.push(event.event_id);
        tracker.applyEvent(event);
      },
    });
    const statuses = ['unactivated', 'active', 'frozen', 'unfreezing', 'active', 'frozen'];
    const emitted = await sb.webhooks.emitBatch(
      statuses.map((status) => ({
        event_type: 'card.status.updated',
        data: { object: 'card', id: 'crd_sim', external_member_id: 'ext-1', status },
      })),
      { shuffle: seeded(11), duplicates: 2 },
    );
    expect(sb.webhooks.deliveries).toHaveLength(statuses.length * 3);
    expect(sb.webhooks.deliveries.every((d) => d.ok)).toBe(true);
    expect(processed.sort()).toEqual(emitted.map((e) => e.event_id).sort());
    const top = emitted.reduce((a, b) => (b.data.status_version > a.data.status_version ? b : a));
    expect(tracker.get('card:crd_sim')).toMatchObject({ status: top.data.status, statusVersion: top.data.status_version });
  });

  it('a failing handler gets the event again from the simulator and processes it then', async () => {
    let calls = 0;
    const processed: WebhookEvent[] = [];
    const { sb } = await setup({
      onEvent: (event) => {
        calls++;
        if (calls === 1) throw new Error('transient');
        processed.push(event);
      },
    });
    const env = await sb.webhooks.emit('card.3ds.received', {
      object: 'card',
      id: 'crd_1',
      external_member_id: 'ext-1',
      status: 'received',
      otp_code: '654321',
    });
    expect(sb.webhooks.deliveries.map((d) => d.status)).toEqual([500, 200]);
    expect(processed).toHaveLength(1);
    const [event] = processed;
    expect(event?.event_id).toBe(env.event_id);
    expect(event?.known && event.event_type === 'card.3ds.received' && event.data.otp_code).toBe('654321');
  });

  it('unknown event types reach onEvent as unknown', async () => {
    const got: WebhookEvent[] = [];
    const { sb } = await setup({ onEvent: (e) => void got.push(e) });
    await sb.webhooks.emit('earn.subscription.matured', {
      object: 'earn_subscription',
      id: 'ern_1',
      external_member_id: 'ext-1',
      status: 'matured',
    });
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ known: false, event_type: 'earn.subscription.matured' });
  });

  it('deliveries failing verification are answered 401 and never processed', async () => {
    let calls = 0;
    const { sb } = await setup({ onEvent: () => void calls++ }, 'not-the-secret');
    sb.webhooks.configure({ attempts: 2 });
    await sb.webhooks.emit('card.activated', { object: 'card', id: 'crd_1', external_member_id: 'ext-1', status: 'active' });
    expect(sb.webhooks.deliveries.map((d) => d.status)).toEqual([401, 401]);
    expect(calls).toBe(0);
  });

  it('end to end: a card activation through the client emits events; the receiver reads the card back', async () => {
    const sb = createSandbox({ merchantId: 'mch_sim', webhooks: { backoffMs: 1 } });
    const api = await sb.listen();
    closers.push(() => api.close());
    const client = new MerchantClient({
      baseUrl: api.url,
      ...sb.credentials,
      backoff: { baseDelayMs: 1, inProgressDelayMs: 5, maxDelayMs: 20 },
    });
    closers.push(() => client.close());
    const member = sb.state.seedMember({ external_member_id: 'ext-e2e' });
    const card = sb.state.seedCard({
      member: member.external_member_id,
      form: 'physical',
      status: 'unactivated',
      expiry: '12/29',
      pin: '1234',
    });

    const reads: Array<{ type: string; status: unknown }> = [];
    const handler = createWebhookHandler({
      verify: simulatorVerifier(sb.webhooks.secret),
      logger: {},
      onEvent: async (event) => {
        if (!event.known || event.data.object !== 'card') return;
        const record = await fetchEventResource<{ id: string; status: string }>(client, event);
        reads.push({ type: event.event_type, status: record.status });
      },
    });
    const rx = await startReceiver(handler);
    closers.push(() => rx.close());
    sb.webhooks.register(rx.url);

    await client.member('ext-e2e').cards.activate(card.id, { expiry: '12/29', pin: '1234' });
    await sb.webhooks.flush();
    expect(reads).toContainEqual({ type: 'card.activated', status: 'active' });
    expect(sb.webhooks.deliveries.every((d) => d.ok)).toBe(true);
  });
});

/**
 * Issue 15, cases 5 to 8: the receiver is lenient where the spec cannot be enforced once a
 * delivery is verified (an event refused with 400 is redelivered until the service gives up, and
 * lost), exact about ordering and duplicates, and bounded in time, against hostile loopback
 * senders and servers.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { MerchantClient } from '../../src/index.js';
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DELIVERY_TIMEOUT_MS,
  MemoryEventStore,
  StatusTracker,
  createWebhookHandler,
  eventResourceKey,
  fetchEventResource,
  isNonConformingEvent,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';
import { envelope, headersFor, post, recordingLogger, startReceiver, type Receiver } from './helpers.js';

let receiver: Receiver | undefined;
let server: WireServer | undefined;
let client: MerchantClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  await receiver?.close();
  receiver = server = client = undefined;
});

async function serve(options: Omit<WebhookHandlerOptions, 'logger'>) {
  const log = recordingLogger();
  receiver = await startReceiver(createWebhookHandler({ verify: () => true, ...options, logger: log.logger }));
  return { url: receiver.url, log };
}

describe('case 5: a verified event whose data differs from the typing reaches onEvent and is acknowledged', () => {
  it('no otp_code, a non-zero status_version on an exchange event, a null external_member_id: each 200, each handled once', async () => {
    const got: WebhookEvent[] = [];
    const { url } = await serve({ onEvent: (e) => void got.push(e) });
    const deliveries = [
      envelope('card.3ds.received', { object: 'card', id: 'crd_1', status: 'received' }),
      envelope('exchange.order.executed', { object: 'exchange_order', id: 'exo_1', status: 'executed', status_version: 3 }),
      envelope('card.status.updated', { object: 'card', id: 'crd_2', status: 'active', external_member_id: null }),
      { event_id: 'evt_bare', event_type: 'card.activated', data: null },
    ];
    for (const env of deliveries) {
      const answer = await post(url, JSON.stringify(env), headersFor(env));
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ received: true });
    }
    expect(got.map((e) => e.event_id)).toEqual(deliveries.map((d) => d.event_id));
    expect(got.every(isNonConformingEvent)).toBe(true);
    const paths = got.map((e) => (isNonConformingEvent(e) ? e.issues.map((i) => i.path.join('.')) : []));
    expect(paths[0]).toContain('data.otp_code');
    expect(paths[1]).toContain('data.status_version');
    expect(paths[2]).toContain('data.external_member_id');
    expect(paths[3]).toContain('data');
    // Fields pass through as received, and the event types stay readable.
    expect(got[1]).toMatchObject({ known: false, event_type: 'exchange.order.executed', data: { id: 'exo_1', status_version: 3 } });

    // A redelivery of an acknowledged non-conforming event is a duplicate, not a second run.
    const again = await post(url, JSON.stringify(deliveries[0]), headersFor(deliveries[0]!));
    expect(again.body).toEqual({ received: true, duplicate: true });
    expect(got).toHaveLength(4);
  });

  it('onEvent failing on such an event still answers 500, so it is redelivered', async () => {
    const { url } = await serve({
      onEvent: () => {
        throw new Error('cannot handle');
      },
    });
    const env = envelope('card.3ds.received', { object: 'card', id: 'crd_1', status: 'received' });
    expect((await post(url, JSON.stringify(env), headersFor(env))).status).toBe(500);
  });

  it('a verify that rejects still answers 401 without onEvent', async () => {
    let calls = 0;
    const { url } = await serve({ verify: () => false, onEvent: () => void calls++ });
    const env = envelope('card.3ds.received', { object: 'card', id: 'crd_1', status: 'received' });
    expect((await post(url, JSON.stringify(env), headersFor(env))).status).toBe(401);
    expect(calls).toBe(0);
  });
});

describe('case 6: a late poll without a version cannot move a state an event set', () => {
  it('active at version 5 by event, then a poll from a loopback server saying unactivated: stays active', async () => {
    const tracker = new StatusTracker();
    const { url } = await serve({ onEvent: (e) => void tracker.applyEvent(e) });
    const env = envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 5 });
    expect((await post(url, JSON.stringify(env), headersFor(env))).status).toBe(200);

    // A replica that lags answers the old state.
    server = await startWireServer();
    server.on('GET', '/v1/cards/crd_1', { body: { id: 'crd_1', status: 'unactivated' } });
    client = wireClient(server.url);
    const polled = await fetchEventResource<{ status: string }>(client, { ...env, known: true } as WebhookEvent);
    expect(polled.status).toBe('unactivated');

    expect(tracker.applyPolled(eventResourceKey({ ...env, known: true } as WebhookEvent), polled.status)).toBe(false);
    expect(tracker.get('card:crd_1')).toMatchObject({ status: 'active', statusVersion: 5, source: 'event' });
    // A poll the caller dates after the event may still move it (it is newer than the event).
    expect(tracker.applyPolled('card:crd_1', 'frozen', { requestedAt: Date.now() + 1 })).toBe(true);
  });
});

describe('case 7: the default store never evicts an in-flight claim', () => {
  it('many events completing while one is in flight: its duplicate is 409, never a second onEvent', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const runs = new Map<string, number>();
    const slow = envelope('card.status.updated', { object: 'card', id: 'crd_slow', status: 'active', status_version: 1 });
    const { url } = await serve({
      store: new MemoryEventStore({ maxEntries: 3 }),
      onEvent: async (e) => {
        runs.set(e.event_id, (runs.get(e.event_id) ?? 0) + 1);
        if (e.event_id !== slow.event_id) return;
        started();
        await gate;
      },
    });
    const first = post(url, JSON.stringify(slow), headersFor(slow));
    await running;
    for (let i = 0; i < 8; i++) {
      const env = envelope('card.status.updated', { object: 'card', id: `crd_${i}`, status: 'active', status_version: 1 });
      expect((await post(url, JSON.stringify(env), headersFor(env))).status).toBe(200);
    }
    expect((await post(url, JSON.stringify(slow), headersFor(slow))).status).toBe(409);
    release();
    expect((await first).status).toBe(200);
    expect((await post(url, JSON.stringify(slow), headersFor(slow))).body).toEqual({ received: true, duplicate: true });
    expect(runs.get(slow.event_id)).toBe(1);
  });

  it('completed ids stay for their TTL however often duplicates arrive; in-flight claims do not count against the bound', () => {
    let now = 0;
    const store = new MemoryEventStore({ now: () => now, maxEntries: 2, retentionMs: 1_000 });
    for (let i = 0; i < 5; i++) expect(store.claim(`evt_flight_${i}`, 60_000)).toBe('claimed');
    store.claim('evt_a', 60_000);
    store.complete('evt_a');
    expect(store.size).toBe(6);
    for (let i = 0; i < 5; i++) expect(store.claim(`evt_flight_${i}`, 60_000)).toBe('in_progress');
    now = 999;
    expect(store.claim('evt_a', 60_000)).toBe('duplicate');
    now = 1_000;
    expect(store.claim('evt_a', 60_000)).toBe('claimed'); // its TTL is over
  });
});

describe('case 8: the body read has its own deadline, well inside the 10 s delivery timeout', () => {
  it('a body trickled by a hostile sender is answered 408 and the connection closed, without onEvent', async () => {
    let calls = 0;
    const { url } = await serve({ bodyTimeoutMs: 300, onEvent: () => void calls++ });
    const { port } = new URL(url);
    const socket = connect(Number(port), '127.0.0.1');
    const answer = new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    socket.write(
      'POST /webhooks HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 100\r\nz-event-id: evt_1\r\n\r\n{',
    );
    // The sender never sends the rest: the server must answer and close on its own.
    const text = await answer;
    expect(text.startsWith('HTTP/1.1 408')).toBe(true);
    expect(text).toContain('"error":"body_timeout"');
    expect(calls).toBe(0);
  });

  it('the default deadline is well inside the delivery timeout, and is checked against timeoutMs', () => {
    expect(DEFAULT_BODY_TIMEOUT_MS).toBeLessThanOrEqual(DELIVERY_TIMEOUT_MS / 2);
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 1_000, bodyTimeoutMs: 1_000 })).toThrow(/bodyTimeoutMs/);
    // Zero would give up on every body at once: refused too, with the rule in the message.
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 1_000, bodyTimeoutMs: 0 })).toThrow(
      'bodyTimeoutMs: must be above 0 and below timeoutMs.',
    );
  });
});

/**
 * A webhook receiver on node:http, fed by the sandbox simulator.
 *
 *   npx tsx examples/webhooks.ts
 *
 * It delivers a few events, duplicates included and in shuffled order, makes the first
 * processing attempt fail once to show the redelivery, and prints what the receiver did.
 *
 * The `verify` below checks the SIMULATOR's signature (hex HMAC-SHA256 of the raw body with
 * `sandbox.webhooks.secret`). The spec does not publish the service's `z-signature` procedure:
 * in production, implement `verify` with the scheme and key the service gives you.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSandbox } from '../src/testing/index.js';
import { StatusTracker, createWebhookHandler, eventResourceKey, type WebhookVerifier } from '../src/webhooks/index.js';

const sandbox = createSandbox({ webhooks: { backoffMs: 10 } });

const verify: WebhookVerifier = (rawBody, headers) => {
  const expected = Buffer.from(createHmac('sha256', sandbox.webhooks.secret).update(rawBody).digest('hex'));
  const given = Buffer.from(headers['z-signature'] ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

const tracker = new StatusTracker();
let failOnce = true;

const handler = createWebhookHandler({
  verify,
  logger: {
    debug: (message, fields) => {
      if (message.includes('duplicate')) console.log(`  duplicate of ${String(fields?.['eventId'])} acknowledged (200) without processing`);
    },
    warn: (message) => console.log(`  [warn] ${message}`),
    error: (message) => console.log(`  [error] ${message}`),
  },
  async onEvent(event) {
    if (!event.known) {
      console.log(`  onEvent ${event.event_id} ${event.event_type}: unknown type, ignored`);
      return;
    }
    if (failOnce) {
      failOnce = false;
      throw new Error('simulated outage (the service will redeliver)');
    }
    const moved = tracker.apply(eventResourceKey(event), event.data.status, event.data.status_version);
    console.log(
      `  onEvent ${event.event_id} ${event.event_type} ${event.data.id} -> ${event.data.status} v${event.data.status_version}${moved ? '' : ' (older version, not applied)'}`,
    );
  },
});

const server = createServer(handler);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
sandbox.webhooks.register(url);
console.log(`receiver listening on ${url}`);

console.log('delivering 3 card status events, each twice, shuffled:');
await sandbox.webhooks.emitBatch(
  ['unactivated', 'active', 'frozen'].map((status) => ({
    event_type: 'card.status.updated',
    data: { object: 'card', id: 'crd_demo', external_member_id: 'ext-demo', status },
  })),
  { shuffle: true, duplicates: 1 },
);
console.log('delivering an event type the SDK does not know:');
await sandbox.webhooks.emit('earn.subscription.matured', {
  object: 'earn_subscription',
  id: 'ern_demo',
  external_member_id: 'ext-demo',
  status: 'matured',
});

console.log('deliveries (as the simulator saw them):');
for (const d of sandbox.webhooks.deliveries)
  console.log(`  ${d.event_id} ${d.event_type} attempt ${d.attempt}: HTTP ${d.status ?? d.error}`);
const final = tracker.get('card:crd_demo');
console.log(`final card status: ${final?.status} (version ${final?.statusVersion})`);

server.closeAllConnections();
await new Promise<void>((resolve) => server.close(() => resolve()));
if (final?.status !== 'frozen') {
  console.error('unexpected final status');
  process.exit(1);
}

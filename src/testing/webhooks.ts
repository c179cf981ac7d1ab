/**
 * Webhook emission to registered receivers: envelopes built and logged in order, duplicates and
 * shuffling, redelivery, one chain of deliveries at-least-once (`webhook-delivery.ts` sends them).
 *
 * `z-signature` here is the SIMULATOR's own scheme, since the spec names the header but not the
 * service's procedure ("Signature verification procedure for webhooks: not shown"): lowercase hex
 * HMAC-SHA256 of the raw body bytes (UTF-8 JSON, exactly as sent) keyed with the UTF-8 bytes of
 * `sandbox.webhooks.secret`, nothing else signed (no timestamp, no event id). Do not treat it as
 * the production procedure.
 */
import { createHmac } from 'node:crypto';
import { hex, iso } from './ids.js';
import { DELIVERY_DEFAULTS, deliverOne, sleep, type DeliveryContext } from './webhook-delivery.js';
import type { InternalWebhooks, WebhookDeliveryOptions, WebhookDelivery, WebhookEnvelope, WebhookEventData } from './webhook-types.js';

/**
 * Builds envelopes, logged in emission order. `status_version` is forward-only per resource:
 * the next one unless the event gives its own.
 */
function envelopeBuilder(
  merchantId: string,
  now: () => number,
  events: WebhookEnvelope[],
  versions: Map<string, number>,
): (eventType: string, data: WebhookEventData) => WebhookEnvelope {
  return (eventType, data) => {
    const key = `${data.object}:${data.id}`;
    const version = data.status_version ?? (versions.get(key) ?? 0) + 1;
    versions.set(key, Math.max(version, versions.get(key) ?? 0));
    const env: WebhookEnvelope = {
      event_id: `evt_${hex(16)}`,
      event_type: eventType,
      created_at: iso(now()),
      merchant_id: merchantId,
      livemode: false,
      data: { ...data, external_member_id: data.external_member_id ?? '', status_version: version },
    };
    events.push(env);
    return env;
  };
}

/** `env` once plus `duplicates` copies (same `event_id`). */
function copiesOf(env: WebhookEnvelope, duplicates = 0): WebhookEnvelope[] {
  return Array.from({ length: 1 + duplicates }, () => env);
}

/** Fisher-Yates shuffle in place, drawing from `random`. */
function shuffleInPlace(copies: WebhookEnvelope[], random: () => number): void {
  for (let i = copies.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copies[i], copies[j]] = [copies[j] as WebhookEnvelope, copies[i] as WebhookEnvelope];
  }
}

/** The event emitted earlier with this id. */
function eventById(events: readonly WebhookEnvelope[], eventId: string): WebhookEnvelope {
  const env = events.find((e) => e.event_id === eventId);
  if (!env) throw new Error(`sandbox: no event ${eventId}`);
  return env;
}

/** Empties the lists and the status versions (`sandbox.reset()`). */
function clearAll(lists: ReadonlyArray<unknown[]>, versions: Map<string, number>): void {
  for (const l of lists) l.length = 0;
  versions.clear();
}

/** Creates the webhook emitter; `now` is the sandbox clock (for `created_at`). */
export function createWebhooks(init: {
  merchantId: string;
  now: () => number;
  secret?: string;
  options?: WebhookDeliveryOptions;
}): InternalWebhooks {
  const receivers: string[] = [];
  const events: WebhookEnvelope[] = [];
  const deliveries: WebhookDelivery[] = [];
  const secret = init.secret ?? `whsec_sbx_${hex(16)}`;
  let opts: Required<WebhookDeliveryOptions> = { ...DELIVERY_DEFAULTS, ...init.options };
  // One chain keeps deliveries in emission order, which tests (and shuffle) rely on.
  let chain: Promise<void> = Promise.resolve();

  const sign = (rawBody: string): string => createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
  const versions = new Map<string, number>();
  const build = envelopeBuilder(init.merchantId, init.now, events, versions);
  const delivery: DeliveryContext = { options: () => opts, sign, log: deliveries };

  function enqueue(copies: WebhookEnvelope[], afterResponse = false): Promise<void> {
    const targets = [...receivers];
    const run = async (): Promise<void> => {
      if (afterResponse) await sleep(0);
      for (const env of copies) for (const url of targets) await deliverOne(env, url, delivery);
    };
    chain = chain.then(run, run);
    return chain;
  }

  return {
    secret,
    get receivers() {
      return receivers;
    },
    events,
    deliveries,
    register(url) {
      if (!receivers.includes(url)) receivers.push(url);
      return () => this.unregister(url);
    },
    unregister(url) {
      if (url === undefined) receivers.length = 0;
      else if (receivers.includes(url)) receivers.splice(receivers.indexOf(url), 1);
    },
    configure(options) {
      opts = { ...opts, ...options };
    },
    async emit(eventType, data, options = {}) {
      const env = build(eventType, data);
      await enqueue(copiesOf(env, options.duplicates));
      return env;
    },
    async emitBatch(list, options = {}) {
      const envs = list.map((e) => build(e.event_type, e.data));
      const copies = envs.flatMap((env) => copiesOf(env, options.duplicates));
      if (options.shuffle) shuffleInPlace(copies, typeof options.shuffle === 'function' ? options.shuffle : Math.random);
      await enqueue(copies);
      return envs;
    },
    flush: () => chain,
    sign,
    async redeliver(eventId) {
      const env = eventById(events, eventId);
      await enqueue([env]);
      return env;
    },
    clear: () => clearAll([receivers, events, deliveries], versions),
    auto(req) {
      if (receivers.length === 0) return;
      // The event follows the API answer, so delivery waits one turn of the event loop.
      void enqueue([build(req.event_type, req.data)], true);
    },
  };
}

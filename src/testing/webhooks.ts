/**
 * Webhook emission to registered receivers (spec: Events > Delivery contract): POST of the
 * envelope as JSON with `content-type`, `z-event-id`, `z-event-type` and `z-signature`, a
 * 10-second timeout, retries with backoff on a non-2xx answer or a timeout, at-least-once.
 *
 * `z-signature` here is the SIMULATOR's own scheme, since the spec names the header but not the
 * service's procedure ("Signature verification procedure for webhooks: not shown"): lowercase hex
 * HMAC-SHA256 of the raw body bytes (UTF-8 JSON, exactly as sent) keyed with the UTF-8 bytes of
 * `sandbox.webhooks.secret`, nothing else signed (no timestamp, no event id). Do not treat it as
 * the production procedure.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { hex, iso } from './ids.js';

/** `data` of an event: identifiers and status only, plus the event type's extra fields. */
export interface WebhookEventData {
  /** Resource kind, e.g. `card`, `exchange_order`, `card_topup`. */
  object: string;
  /** Resource identifier. */
  id: string;
  /** The member's external id ('' when none). */
  external_member_id?: string;
  /** Resource status. */
  status: string;
  /** Omitted: the next version for this resource (starting at 1). */
  status_version?: number;
  /** Extra fields of the event type (`application_id`, `otp_code`, ...). */
  [extra: string]: unknown;
}

/** The delivered envelope. */
export interface WebhookEnvelope {
  /** `evt_<hex>`, also in `z-event-id`. */
  event_id: string;
  /** Event type, also in `z-event-type`. */
  event_type: string;
  /** ISO 8601. */
  created_at: string;
  /** The sandbox merchant. */
  merchant_id: string;
  /** Always false in the sandbox. */
  livemode: false;
  /** Identifiers and status of the resource. */
  data: WebhookEventData & {
    /** The member's external id ('' when none). */
    external_member_id: string;
    /** Forward-only version of the status. */
    status_version: number;
  };
}

/** One delivery attempt, as logged in `sandbox.webhooks.deliveries`. */
export interface WebhookDelivery {
  /** Event delivered. */
  event_id: string;
  /** Its type. */
  event_type: string;
  /** Receiver URL. */
  url: string;
  /** 1 for the first attempt of this copy. */
  attempt: number;
  /** Receiver's HTTP status, or undefined on timeout or connection error. */
  status: number | undefined;
  /** Timeout or connection error message. */
  error: string | undefined;
  /** Whether the receiver answered 2xx in time. */
  ok: boolean;
  /** The exact bytes sent. */
  body: string;
  /**
   * The headers sent: `content-type`, `z-event-id`, `z-event-type` and `z-signature` (the
   * simulator's signature of `body`), so that a receiver in any language can be checked against
   * what it was given. The webhook secret itself is never in a delivery record.
   */
  headers: Record<string, string>;
}

/** Delivery tuning. The spec shows no retry schedule; these defaults are the simulator's. */
export interface WebhookDeliveryOptions {
  /** Attempts per delivery, including the first (default 5). */
  attempts?: number;
  /** First retry delay in real ms, doubled each retry (default 50). */
  backoffMs?: number;
  /** Per-attempt timeout in real ms (default 10 000, the spec's). */
  timeoutMs?: number;
  /** Replace the HTTP POST (resolves with the receiver's status; rejects on network error). */
  transport?: (url: string, request: { headers: Record<string, string>; body: string; timeoutMs: number }) => Promise<number>;
}

/** Options of {@link SandboxWebhooks.emitBatch}. */
export interface BatchOptions {
  /** Deliver in a random order (`true`) or one drawn from your random source. */
  shuffle?: boolean | (() => number);
  /** Extra copies of each event, same `event_id` (default 0). */
  duplicates?: number;
}

/** Webhook control (`sandbox.webhooks`). */
export interface SandboxWebhooks {
  /** Key of the simulator's `z-signature` (hex HMAC-SHA256 of the raw body). */
  readonly secret: string;
  /** Receiver URLs currently registered. */
  readonly receivers: readonly string[];
  /** Every envelope emitted, in emission order. */
  readonly events: readonly WebhookEnvelope[];
  /** Every delivery attempt. */
  readonly deliveries: readonly WebhookDelivery[];
  /** Registers a receiver; automatic events are emitted only while one is registered. Returns an unregister function. */
  register(url: string): () => void;
  /** Unregisters `url`, or every receiver. */
  unregister(url?: string): void;
  /** Changes delivery tuning. */
  configure(options: WebhookDeliveryOptions): void;
  /** Builds and delivers one event (plus `duplicates` copies); resolves after all attempts. */
  emit(eventType: string, data: WebhookEventData, options?: { duplicates?: number }): Promise<WebhookEnvelope>;
  /** Builds several events and delivers them (optionally shuffled and duplicated) one after another. */
  emitBatch(events: ReadonlyArray<{ event_type: string; data: WebhookEventData }>, options?: BatchOptions): Promise<WebhookEnvelope[]>;
  /** Resolves once every queued delivery (automatic ones included) has finished. */
  flush(): Promise<void>;
  /** The simulator's `z-signature` for a raw body. */
  sign(rawBody: string): string;
  /**
   * Delivers an event emitted earlier again, same envelope and `event_id`, to the receivers
   * registered now; resolves after all attempts. Throws when no event has that id.
   */
  redeliver(eventId: string): Promise<WebhookEnvelope>;
}

/** Internal request to emit from a route. */
export interface EmitRequest {
  event_type: string;
  data: WebhookEventData;
}

function post(url: string, req: { headers: Record<string, string>; body: string; timeoutMs: number }): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const mod = u.protocol === 'https:' ? https : http;
    const body = Buffer.from(req.body, 'utf8');
    // agent: false, so no keep-alive socket outlives the delivery and holds a receiver open.
    const r = mod.request(
      u,
      { method: 'POST', agent: false, headers: { ...req.headers, 'content-length': String(body.length) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => r.destroy(new Error(`timeout after ${req.timeoutMs} ms`)), req.timeoutMs);
    r.on('close', () => clearTimeout(timer));
    r.on('error', reject);
    r.end(body);
  });
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The emitter plus the hook routes use for automatic events. */
export interface InternalWebhooks extends SandboxWebhooks {
  /** Emits from a route only when a receiver is registered; delivery starts after the response. */
  auto(req: EmitRequest): void;
  /** Forgets receivers, events, deliveries and status versions (`sandbox.reset()`). */
  clear(): void;
}

/** What a delivery reads: the current tuning (it may change between attempts), the signer, the log. */
interface DeliveryContext {
  readonly options: () => Required<WebhookDeliveryOptions>;
  readonly sign: (rawBody: string) => string;
  readonly log: WebhookDelivery[];
}

/** Delivers one envelope to one receiver, retrying with doubling backoff until a 2xx or the last attempt. */
async function deliverOne(env: WebhookEnvelope, url: string, ctx: DeliveryContext): Promise<void> {
  const body = JSON.stringify(env);
  const headers = {
    'content-type': 'application/json',
    'z-event-id': env.event_id,
    'z-event-type': env.event_type,
    'z-signature': ctx.sign(body),
  };
  for (let attempt = 1; attempt <= ctx.options().attempts; attempt++) {
    const opts = ctx.options();
    let status: number | undefined;
    let error: string | undefined;
    try {
      status = await opts.transport(url, { headers, body, timeoutMs: opts.timeoutMs });
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const ok = status !== undefined && status >= 200 && status < 300;
    ctx.log.push({ event_id: env.event_id, event_type: env.event_type, url, attempt, status, error, ok, body, headers: { ...headers } });
    if (ok) return;
    if (attempt < ctx.options().attempts) await sleep(ctx.options().backoffMs * 2 ** (attempt - 1));
  }
}

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

/** The simulator's delivery tuning (the spec shows no retry schedule; the timeout is the spec's). */
const DELIVERY_DEFAULTS: Required<WebhookDeliveryOptions> = { attempts: 5, backoffMs: 50, timeoutMs: 10_000, transport: post };

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

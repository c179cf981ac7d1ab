/**
 * Delivery of one envelope to one receiver (spec: Events > Delivery contract): POST of the
 * envelope as JSON with `content-type`, `z-event-id`, `z-event-type` and `z-signature`, a
 * 10-second timeout, retries with backoff on a non-2xx answer or a timeout.
 */
import http from 'node:http';
import https from 'node:https';
import type { WebhookDelivery, WebhookDeliveryOptions, WebhookEnvelope } from './webhook-types.js';

/** POSTs one delivery over node:http or node:https; resolves with the status, rejects on a timeout or network error. */
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

/** Waits `ms` of real time (delivery backoff, and the turn an automatic event waits for its response). */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** What a delivery reads: the current tuning (it may change between attempts), the signer, the log. */
export interface DeliveryContext {
  readonly options: () => Required<WebhookDeliveryOptions>;
  readonly sign: (rawBody: string) => string;
  readonly log: WebhookDelivery[];
}

/** Delivers one envelope to one receiver, retrying with doubling backoff until a 2xx or the last attempt. */
export async function deliverOne(env: WebhookEnvelope, url: string, ctx: DeliveryContext): Promise<void> {
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

/** The simulator's delivery tuning (the spec shows no retry schedule; the timeout is the spec's). */
export const DELIVERY_DEFAULTS: Required<WebhookDeliveryOptions> = { attempts: 5, backoffMs: 50, timeoutMs: 10_000, transport: post };

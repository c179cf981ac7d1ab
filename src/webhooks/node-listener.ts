import { log, type Logger } from '../core/telemetry/logger.js';
import { WebhookParseError } from './errors.js';
import type { WebhookHeaders } from './headers.js';
import type { NodeRequestLike, NodeResponseLike } from './node-types.js';
import { readBody, type BodyLimits } from './read-body.js';
import { respond, type WebhookResponse } from './responses.js';

/** The framework-neutral handling a listener wraps; `startedAt` (performance.now()) counts the body read in the time bound. */
export type HandleDelivery = (rawBody: string | Uint8Array, headers: WebhookHeaders, startedAt: number) => Promise<WebhookResponse>;

/**
 * Wraps delivery handling as a `node:http` request listener. It also serves as Express-style
 * middleware: a body already read by `express.raw()` (a Buffer on `req.body`) is used as is,
 * and a body parsed by a JSON middleware is refused with a message naming the cause.
 */
export function createNodeListener(
  handle: HandleDelivery,
  limits: BodyLimits,
  logger: Logger | undefined,
): (req: NodeRequestLike, res: NodeResponseLike) => void {
  return (req, res) => {
    void serve(req, res).catch((err: unknown) => {
      log(logger, 'error', `webhooks: could not answer a delivery: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) write(res, respond('failed', 'The receiver failed; deliver again.'));
      else res.destroy();
    });
  };

  async function serve(req: NodeRequestLike, res: NodeResponseLike): Promise<void> {
    const startedAt = performance.now();
    if (req.method !== 'POST') {
      req.resume();
      write(res, respond('method_not_allowed', 'Webhook deliveries are POST requests.'));
      return;
    }
    let raw: unknown;
    const preRead = (req as NodeRequestLike & { body?: unknown }).body;
    if (preRead !== undefined || req.readableEnded) {
      raw = preRead;
    } else {
      try {
        raw = await readBody(req, limits);
      } catch (err) {
        if (err instanceof WebhookParseError && (err.reason === 'body_too_large' || err.reason === 'body_timeout')) {
          log(logger, 'warn', `webhooks: ${err.message} Answered ${err.reason === 'body_timeout' ? 408 : 413}.`);
          write(res, respond(err.reason, err.message), true);
          // A trickling sender would keep the socket open after the answer: close it.
          if (err.reason === 'body_timeout') res.once('finish', () => req.destroy());
          return;
        }
        throw err;
      }
    }
    // `raw` may be a parsed object here; handle refuses it with the raw-body message.
    write(res, await handle(raw as string | Uint8Array, req.headers, startedAt));
  }
}

const encoder = new TextEncoder();

function write(res: NodeResponseLike, response: WebhookResponse, close = false): void {
  if (res.headersSent || res.writableEnded) return;
  const body = encoder.encode(JSON.stringify(response.body));
  res.writeHead(response.status, {
    'content-type': 'application/json',
    'content-length': String(body.byteLength),
    ...(response.status === 405 ? { allow: 'POST' } : {}),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
}

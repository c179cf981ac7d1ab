import { InvalidArgumentError } from '../core/errors/errors.js';
import { resolveLogLevel } from '../core/telemetry/log-level.js';
import { leveledLogger, log } from '../core/telemetry/logger.js';
import { envVar } from '../core/platform/runtime.js';
import { createDeliveryCounter } from '../core/telemetry/delivery-counter.js';
import { WebhookParseError, WebhookSignatureError } from './errors.js';
import { claimEvent } from './delivery-claim.js';
import { answerMarginMs, answerTimer, errorText, type Settings } from './delivery-settings.js';
import type { WebhookEvent } from './events.js';
import { normalizeHeaders, type WebhookHeaderMap, type WebhookHeaders } from './headers.js';
import { MemoryEventStore } from './memory-event-store.js';
import { createNodeListener } from './node-listener.js';
import type { NodeRequestLike, NodeResponseLike } from './node-types.js';
import { receiveEvent } from './parse.js';
import { toRawBytes } from './raw-body.js';
import { respond, type WebhookResponse } from './responses.js';
import { runOnEvent } from './run-on-event.js';
import type { TransactionalWebhookHandlerOptions } from './transactional-options.js';
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DELIVERY_TIMEOUT_MS,
  type WebhookHandlerOptions,
  type WebhookVerifier,
} from './handler-options.js';

/**
 * A webhook receiver: a `node:http` request listener (also usable as Express middleware after
 * `express.raw({ type: 'application/json' })`), with `handle` for any other framework.
 */
export interface WebhookHandler {
  /** `node:http` request listener: reads the raw body (size-capped) and answers. */
  (req: NodeRequestLike, res: NodeResponseLike): void;
  /**
   * Framework-neutral form: give the raw body and headers, send back `status` and `body` (as
   * JSON). Never rejects.
   */
  handle(rawBody: string | Uint8Array, headers: WebhookHeaders): Promise<WebhookResponse>;
}

interface HandlerSettings extends Settings {
  readonly verify: WebhookVerifier | undefined;
}

function bodyLimitsOf(options: WebhookHandlerOptions, timeoutMs: number): { maxBodyBytes: number; bodyTimeoutMs: number } {
  const maxBodyBytes = options.maxBodyBytes ?? 256 * 1024;
  if (!(maxBodyBytes > 0)) throw new InvalidArgumentError('maxBodyBytes', 'must be a positive number of bytes.');
  const bodyTimeoutMs = options.bodyTimeoutMs ?? Math.min(DEFAULT_BODY_TIMEOUT_MS, Math.floor(timeoutMs / 2));
  if (!(bodyTimeoutMs > 0 && bodyTimeoutMs < timeoutMs)) {
    throw new InvalidArgumentError('bodyTimeoutMs', 'must be above 0 and below timeoutMs.');
  }
  return { maxBodyBytes, bodyTimeoutMs };
}

function settingsOf(options: WebhookHandlerOptions): HandlerSettings & { maxBodyBytes: number; bodyTimeoutMs: number } {
  if (typeof options?.onEvent !== 'function') throw new InvalidArgumentError('onEvent', 'must be a function.');
  if (options.verify !== undefined && typeof options.verify !== 'function') throw new InvalidArgumentError('verify', 'must be a function.');
  const timeoutMs = options.timeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS;
  if (!(timeoutMs > 0 && timeoutMs < DELIVERY_TIMEOUT_MS)) {
    throw new InvalidArgumentError(
      'timeoutMs',
      `must be above 0 and below ${DELIVERY_TIMEOUT_MS} ms: the service times a delivery out after 10 s and retries it.`,
    );
  }
  const claimTtlMs = options.claimTtlMs ?? 60_000;
  if (!(claimTtlMs > timeoutMs)) throw new InvalidArgumentError('claimTtlMs', 'must exceed timeoutMs.');
  const { maxBodyBytes, bodyTimeoutMs } = bodyLimitsOf(options, timeoutMs);
  return {
    onEvent: options.onEvent,
    store: options.store ?? new MemoryEventStore(),
    verify: options.verify,
    timeoutMs,
    answerByMs: timeoutMs + answerMarginMs(timeoutMs),
    warnAfterMs: options.warnAfterMs ?? Math.floor(timeoutMs * 0.75),
    claimTtlMs,
    logger: leveledLogger(options.logger ?? console, resolveLogLevel(options.logLevel, envVar)),
    maxBodyBytes,
    bodyTimeoutMs,
  };
}

/**
 * Creates a webhook receiver that processes each event once and acknowledges only what it
 * processed (spec, Events > Delivery contract: at-least-once, 2xx acknowledges, anything else
 * or a 10-second timeout makes the service retry).
 *
 * Per delivery: `verify` (401 on failure) → parse (400 only when the body cannot be an event: not
 * JSON, no `event_id`, or a `z-event-id` header that differs from it; a verified event that
 * deviates from the SDK's typing reaches `onEvent` as a `NonConformingEvent`) → claim `event_id` in the
 * store (a processed duplicate is answered 200 at once; one still in progress 409; a store that
 * cannot answer 503, without processing) → `onEvent`
 * within `timeoutMs` → 200 and `complete`, or 500 and `release` on failure, or 503 on timeout
 * (the claim is then completed or released when `onEvent` settles late, so a redelivery never
 * runs beside a still-running first attempt until the claim's lease expires).
 *
 * With a {@link TransactionalEventStore} (`PostgresEventStore`), the claim is a transaction of the
 * merchant's database holding the event's processed mark: `onEvent` gets it as
 * `context.transaction`, and it commits when `onEvent` resolves (200; 503 if the commit fails) or
 * rolls back when it throws (500). A concurrent delivery of the event waits for it (up to the
 * time it has left, then 409), and a redelivery after it committed is a duplicate: the event's
 * effects written through it commit exactly once.
 *
 * @example
 * const handler = createWebhookHandler({ verify, onEvent: async (event) => { ... } });
 * http.createServer(handler).listen(8080);
 * @throws InvalidArgumentError for invalid options.
 */
export function createWebhookHandler<T>(options: TransactionalWebhookHandlerOptions<T>): WebhookHandler;
/**
 * Creates a webhook receiver with any {@link EventStore} (the in-memory default, `RedisEventStore`,
 * your own): the same receiver as above, without `context.transaction`.
 *
 * @throws InvalidArgumentError for invalid options.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler;
export function createWebhookHandler(options: WebhookHandlerOptions | TransactionalWebhookHandlerOptions<unknown>): WebhookHandler {
  const settings = settingsOf(options as WebhookHandlerOptions);
  // The store checks its settings against the delivery's time, and may log to this logger.
  settings.store.attach?.({ timeoutMs: settings.timeoutMs, logger: settings.logger });
  if (settings.verify === undefined) {
    log(
      settings.logger,
      'warn',
      'webhooks: no verify hook, so deliveries are not authenticated. The spec does not publish the z-signature procedure: obtain it from the service and pass verify.',
    );
  }
  const deliveries = createDeliveryCounter(options.telemetry);
  const handle = (rawBody: string | Uint8Array, headers: WebhookHeaders, startedAt = performance.now()): Promise<WebhookResponse> =>
    processDelivery(settings, rawBody, headers, startedAt)
      .catch((err: unknown) => {
        log(settings.logger, 'error', 'webhooks: unexpected failure while handling a delivery', { error: errorText(err) });
        return respond('failed', 'The receiver failed; deliver again.');
      })
      .then((response) => {
        deliveries.count(response.outcome, response.event?.event_type);
        return response;
      });
  const listener = createNodeListener(
    handle,
    { maxBodyBytes: settings.maxBodyBytes, bodyTimeoutMs: settings.bodyTimeoutMs },
    settings.logger,
  );
  return Object.assign(listener, { handle: (rawBody: string | Uint8Array, headers: WebhookHeaders) => handle(rawBody, headers) });
}

async function processDelivery(
  s: HandlerSettings,
  rawBody: string | Uint8Array,
  rawHeaders: WebhookHeaders,
  startedAt: number,
): Promise<WebhookResponse> {
  const headers = normalizeHeaders(rawHeaders);
  let bytes: Uint8Array;
  try {
    bytes = toRawBytes(rawBody);
  } catch (err) {
    log(s.logger, 'error', `webhooks: ${errorText(err)}`);
    return respond('raw_body_required', 'The receiver is misconfigured (the body was not raw).');
  }

  if (s.verify !== undefined) {
    const rejection = await runVerify(s.verify, bytes, headers);
    if (rejection !== undefined) {
      log(s.logger, 'warn', `webhooks: delivery rejected by verify: ${rejection.message}`, { eventId: headers['z-event-id'] });
      return respond('invalid_signature', 'Signature verification failed.');
    }
  }

  let event: WebhookEvent;
  try {
    event = receiveEvent(bytes, headers);
  } catch (err) {
    if (!(err instanceof WebhookParseError)) throw err;
    log(s.logger, 'warn', `webhooks: malformed delivery answered 400: ${err.message}`, {
      eventId: headers['z-event-id'],
      reason: err.reason,
    });
    return respond('invalid_event', err.message);
  }
  const answer = answerTimer(s, startedAt);
  try {
    const held = await claimEvent(s, event, startedAt, answer.signal);
    if ('status' in held) return held;
    return await runOnEvent(s, event, headers, held, { startedAt, answer: answer.signal });
  } finally {
    answer.dispose();
  }
}

async function runVerify(
  verify: WebhookVerifier,
  bytes: Uint8Array,
  headers: WebhookHeaderMap,
): Promise<WebhookSignatureError | undefined> {
  try {
    if ((await verify(bytes, headers)) === true) return undefined;
    return new WebhookSignatureError('verify returned false.');
  } catch (err) {
    return err instanceof WebhookSignatureError ? err : new WebhookSignatureError(`verify threw: ${errorText(err)}`);
  }
}

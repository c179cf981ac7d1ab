import { InvalidArgumentError } from '../core/errors.js';
import { resolveLogLevel } from '../core/log-level.js';
import { leveledLogger, log, type Logger, type LogLevelSetting } from '../core/logger.js';
import { envVar } from '../core/platform/runtime.js';
import { createDeliveryCounter, type TelemetryOptions } from '../core/otel.js';
import { WebhookParseError, WebhookSignatureError } from './errors.js';
import { claimEvent } from './delivery-claim.js';
import { errorText, type Settings } from './delivery-settings.js';
import type { EventStore } from './event-store.js';
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

/** The service's delivery timeout (spec, Events > Delivery contract): 10 seconds. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Default bound of a delivery's handling, below {@link DELIVERY_TIMEOUT_MS}: 8 seconds. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 8_000;
/**
 * Default deadline of the body read by the `node:http` listener: 3 seconds from the request's
 * arrival, well inside the service's 10-second delivery timeout, so that a body trickled byte by
 * byte cannot hold a socket for Node's 300-second default.
 */
export const DEFAULT_BODY_TIMEOUT_MS = 3_000;

/**
 * Verifies a delivery's signature. Return true to accept; return false or throw to reject
 * (answered 401). Called before anything else, with the exact bytes received as a `Uint8Array`:
 * a Buffer where the runtime has one (Node, Bun), a plain Uint8Array elsewhere (workerd, Deno,
 * browsers). Decode with `TextDecoder` and compute with Web Crypto (`crypto.subtle`) for a hook
 * that runs on every runtime.
 *
 * The spec names the `z-signature` header but does not publish how it is computed: obtain the
 * scheme and key from the service. The SDK ships no built-in scheme on purpose.
 */
export type WebhookVerifier = (rawBody: Uint8Array, headers: WebhookHeaderMap) => boolean | Promise<boolean>;

/** What `onEvent` receives besides the event. */
export interface WebhookEventContext {
  /** Aborted (reason: {@link WebhookTimeoutError}) when the handler's time bound expires. */
  readonly signal: AbortSignal;
  /** The delivery's headers, lower-case names. */
  readonly headers: WebhookHeaderMap;
  /**
   * Epoch ms by which the delivery is answered: the wall clock when `onEvent` starts plus the
   * time left on the handler's own (monotonic) bound. A wall-clock step while `onEvent` runs
   * does not move the bound; `signal` is what to rely on.
   */
  readonly deadline: number;
}

/** Settings of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /**
   * Processes one event, at most once per `event_id` across deliveries. Resolve only when the
   * work is durably done: the delivery is acknowledged (2xx) only then. Throw to have the
   * service deliver it again. Unknown event types arrive too (`event.known === false`), and so
   * do verified events that deviate from the SDK's typing (`NonConformingEvent`, with
   * `issues`): acknowledge them when handled, or they are redelivered until the service gives up.
   */
  readonly onEvent: (event: WebhookEvent, context: WebhookEventContext) => void | Promise<void>;
  /**
   * Deduplication store (default: a new {@link MemoryEventStore}, for one process only). When it
   * cannot answer (`claim` throws or answers something else), the delivery is answered 503 and
   * `onEvent` is not called: the service delivers it again later.
   */
  readonly store?: EventStore;
  /** Signature check, called before anything else. See {@link WebhookVerifier}. */
  readonly verify?: WebhookVerifier;
  /**
   * Bound of a delivery's handling in ms, below the service's 10-second timeout (default
   * 8000). On expiry the delivery is answered 503 and `onEvent`'s signal is aborted.
   */
  readonly timeoutMs?: number;
  /** A warning is logged when `onEvent` succeeds after this many ms (default 75% of `timeoutMs`). */
  readonly warnAfterMs?: number;
  /**
   * Lease of an in-progress claim in the store, in ms (default 60 000). Must exceed
   * `timeoutMs`; a claim of a crashed process frees after it.
   */
  readonly claimTtlMs?: number;
  /** Largest body the `node:http` listener reads, in bytes (default 256 KiB). */
  readonly maxBodyBytes?: number;
  /**
   * Deadline of the body read by the `node:http` listener, in ms from the request's arrival
   * (default {@link DEFAULT_BODY_TIMEOUT_MS}); must be below `timeoutMs`, which also counts the
   * read. A body not complete by then is answered 408 and the connection closed.
   */
  readonly bodyTimeoutMs?: number;
  /**
   * Logger (`console`, pino, ...), as the client's: `console` by default. Never receives bodies,
   * OTP codes or signatures.
   */
  readonly logger?: Logger;
  /**
   * The least severe level passed to the logger, or `off`, as the client's `logLevel`: default
   * `MERCHANT_API_LOG`, else `warn` (the missing `verify` at creation, a delivery rejected or
   * malformed, a parsed body given instead of the raw bytes, a store failure).
   */
  readonly logLevel?: LogLevelSetting;
  /**
   * OpenTelemetry, as the client's `telemetry` option: counts deliveries in
   * `merchant_stablecoin.webhook.deliveries` by `outcome` (`processed`, `duplicate`, `in_progress`,
   * `invalid_signature`, `invalid_event`, `failed`, `timeout`, ...) and `event_type`.
   */
  readonly telemetry?: TelemetryOptions;
}

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
  const held = await claimEvent(s, event, startedAt);
  if ('status' in held) return held;
  return runOnEvent(s, event, headers, startedAt, held);
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

/** What `createWebhookHandler` takes: its options, the context `onEvent` gets, the verify hook, the time bounds. */
import type { Logger, LogLevelSetting } from '../core/telemetry/logger.js';
import type { TelemetryOptions } from '../core/telemetry/otel-api.js';
import type { EventStore } from './event-store.js';
import type { WebhookEvent } from './events.js';
import type { WebhookHeaderMap } from './headers.js';

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

import type { WebhookEvent } from './events.js';

/**
 * What happened to a delivery, and the HTTP status answered:
 *
 * | outcome | status | meaning |
 * |---|---|---|
 * | `processed` | 200 | `onEvent` succeeded; the event is recorded as processed |
 * | `duplicate` | 200 | already processed; `onEvent` not called |
 * | `in_progress` | 409 | another delivery of the event is being processed; the service retries later |
 * | `failed` | 500 | `onEvent` threw; the claim is released, so the redelivery is processed |
 * | `timeout` | 503 | `onEvent` exceeded `timeoutMs`; the service retries |
 * | `invalid_signature` | 401 | the `verify` hook rejected the delivery |
 * | `invalid_event` | 400 | malformed body or headers ({@link WebhookParseError}) |
 * | `body_too_large` | 413 | body over `maxBodyBytes` |
 * | `body_timeout` | 408 | body not complete within `bodyTimeoutMs` (the connection is closed) |
 * | `raw_body_required` | 500 | the receiver was given a parsed body instead of the raw bytes |
 * | `method_not_allowed` | 405 | not a POST |
 * | `store_error` | 503 | the event store could not answer (down, or refusing); nothing was processed, the service delivers again |
 */
export type WebhookOutcome =
  | 'processed'
  | 'duplicate'
  | 'in_progress'
  | 'failed'
  | 'timeout'
  | 'invalid_signature'
  | 'invalid_event'
  | 'body_too_large'
  | 'body_timeout'
  | 'raw_body_required'
  | 'method_not_allowed'
  | 'store_error';

/** HTTP status per {@link WebhookOutcome}. Any 2xx acknowledges; anything else makes the service retry. */
export const OUTCOME_STATUS: Readonly<Record<WebhookOutcome, number>> = Object.freeze({
  processed: 200,
  duplicate: 200,
  in_progress: 409,
  failed: 500,
  timeout: 503,
  invalid_signature: 401,
  invalid_event: 400,
  body_too_large: 413,
  body_timeout: 408,
  raw_body_required: 500,
  method_not_allowed: 405,
  store_error: 503,
});

/** JSON body of a webhook answer. */
export interface WebhookResponseBody {
  /** True for a 2xx answer (the delivery is acknowledged). */
  readonly received: boolean;
  /** Present (true) when the event had already been processed. */
  readonly duplicate?: true;
  /** The outcome, on non-2xx answers. */
  readonly error?: WebhookOutcome;
  /** A short explanation, on non-2xx answers (never the handler's own error text). */
  readonly message?: string;
}

/** The answer to send for one delivery. */
export interface WebhookResponse {
  /** HTTP status. */
  readonly status: number;
  /** JSON body. */
  readonly body: WebhookResponseBody;
  /** What happened. */
  readonly outcome: WebhookOutcome;
  /** The parsed event, when parsing got that far. */
  readonly event?: WebhookEvent;
}

/** Builds the answer for an outcome. */
export function respond(outcome: WebhookOutcome, message?: string, event?: WebhookEvent): WebhookResponse {
  const status = OUTCOME_STATUS[outcome];
  const ok = status >= 200 && status < 300;
  const body: WebhookResponseBody = ok
    ? { received: true, ...(outcome === 'duplicate' ? { duplicate: true as const } : {}) }
    : { received: false, error: outcome, ...(message !== undefined ? { message } : {}) };
  return { status, body, outcome, ...(event !== undefined ? { event } : {}) };
}

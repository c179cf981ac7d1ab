import { MerchantSdkError } from '../core/errors/errors.js';

/**
 * Why a delivery could not be read as an event.
 *
 * - `raw_body_required`: the body given was not the raw bytes (usually `req.body` already parsed
 *   by a JSON middleware). A receiver bug, not a bad delivery: handlers answer 500.
 * - `body_too_large`: the body exceeded the handler's `maxBodyBytes` (answered 413).
 * - `body_timeout`: the body was not complete within the handler's `bodyTimeoutMs` (answered 408).
 * - `invalid_utf8`, `invalid_json`, `invalid_envelope`, `invalid_event_data`: malformed input.
 * - `missing_header`, `header_mismatch`: `z-event-id` or `z-event-type` absent or different
 *   from the body's `event_id` or `event_type`.
 */
export type WebhookParseErrorReason =
  | 'raw_body_required'
  | 'body_too_large'
  | 'body_timeout'
  | 'invalid_utf8'
  | 'invalid_json'
  | 'invalid_envelope'
  | 'invalid_event_data'
  | 'missing_header'
  | 'header_mismatch';

/** One validation issue of an event body. */
export interface WebhookIssue {
  /** Path of the offending field, e.g. `['data', 'status_version']`. */
  readonly path: ReadonlyArray<PropertyKey>;
  /** What is wrong with it. */
  readonly message: string;
}

/**
 * A delivery is not a well-formed event (or the raw body was not given). A webhook handler
 * answers 400 for it (500 for `raw_body_required`, 413 for `body_too_large`), and never calls
 * `onEvent`.
 */
export class WebhookParseError extends MerchantSdkError {
  /** Class name, `WebhookParseError`. */
  override name = 'WebhookParseError';
  /** The kind of failure. */
  readonly reason: WebhookParseErrorReason;
  /** Validation issues, for `invalid_envelope` and `invalid_event_data`. */
  readonly issues: readonly WebhookIssue[];

  constructor(reason: WebhookParseErrorReason, message: string, issues: readonly WebhookIssue[] = []) {
    super(message);
    this.reason = reason;
    this.issues = issues;
  }
}

/**
 * The `verify` hook rejected a delivery (returned false or threw). A webhook handler answers
 * 401 for it and never parses the body nor calls `onEvent`.
 */
export class WebhookSignatureError extends MerchantSdkError {
  /** Class name, `WebhookSignatureError`. */
  override name = 'WebhookSignatureError';
}

/**
 * `onEvent` did not settle within the handler's `timeoutMs`. It is the `reason` of the
 * `AbortSignal` handed to `onEvent`; the delivery is answered 503 so that the service retries.
 */
export class WebhookTimeoutError extends MerchantSdkError {
  /** Class name, `WebhookTimeoutError`. */
  override name = 'WebhookTimeoutError';
  /** The bound that was exceeded, in milliseconds. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`onEvent did not finish within ${timeoutMs} ms (the service's delivery timeout is 10 s).`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * {@link fetchEventResource} cannot read the resource of an event: the spec shows no
 * `GET` endpoint for its `data.object` (e.g. `exchange_order`, `card_topup`), or the id has no
 * row of its own (`first:<application uuid>` initial card top-ups).
 */
export class UnsupportedEventResourceError extends MerchantSdkError {
  /** Class name, `UnsupportedEventResourceError`. */
  override name = 'UnsupportedEventResourceError';
  /** The event's `data.object`. */
  readonly object: string;
  /** The event's `data.id`. */
  readonly id: string;
  constructor(object: string, id: string, message: string) {
    super(message);
    this.object = object;
    this.id = id;
  }
}

import type { CallState } from './call-state.js';

/**
 * Base class of every error the SDK throws. Real classes, so `instanceof` works in ESM and CJS.
 */
export class MerchantSdkError extends Error {
  /** Class name, `MerchantSdkError` (survives minification, unlike `constructor.name`). */
  override name = 'MerchantSdkError';
  /**
   * Idempotency key of the call this error ended, when it had one. Retry with this same key when
   * `call.sent` is not `no`: a new key could execute the operation a second time.
   */
  readonly idempotencyKey: string | undefined;
  /** The state of the call this error ended; undefined for errors raised outside a call. */
  readonly call: CallState | undefined;

  constructor(message?: string, options?: { cause?: unknown; idempotencyKey?: string | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.idempotencyKey = options?.idempotencyKey;
    this.call = undefined;
  }
}

/** The service could not be reached, or the connection broke before a full response. */
export class ConnectionError extends MerchantSdkError {
  /** Class name, `ConnectionError` (survives minification, unlike `constructor.name`). */
  override name = 'ConnectionError';
  /** Attempts made. */
  readonly attempts: number;
  constructor(message: string, idempotencyKey: string | undefined, attempts: number, options?: { cause?: unknown }) {
    super(message, { cause: options?.cause, idempotencyKey });
    this.attempts = attempts;
  }
}

/**
 * An attempt exceeded `timeoutMs` (from the start of the attempt to the end of the body), or the
 * call's deadline (`timeoutMs × (maxRetries + 1)` from its start) passed while it waited for a
 * token or its rate-limit bucket, or during its last attempt. The message says which; `call.sent`
 * says whether anything reached the service.
 */
export class TimeoutError extends ConnectionError {
  /** Class name, `TimeoutError` (survives minification, unlike `constructor.name`). */
  override name = 'TimeoutError';
}

/** The caller aborted the call through its `AbortSignal`. */
export class AbortError extends MerchantSdkError {
  /** Class name, `AbortError` (survives minification, unlike `constructor.name`). */
  override name = 'AbortError';
  constructor(idempotencyKey: string | undefined, options?: { cause?: unknown }) {
    super('The call was aborted by its AbortSignal.', { cause: options?.cause, idempotencyKey });
  }
}

/**
 * What {@link AcceptedButUnreadableError} reports about the answer.
 *
 * @internal
 */
export interface AcceptedButUnreadableInit {
  /** HTTP status (2xx). */
  readonly status: number;
  /** `X-Request-Id` of the response. */
  readonly requestId: string | undefined;
  /** The body as received: at most 4096 characters, secrets masked. */
  readonly body: string;
  /** The parsed JSON, when the body was JSON. */
  readonly parsed?: unknown;
}

/**
 * The service accepted the call (it answered 2xx: for a write, the money moved), but its answer
 * could not be read: not JSON, too large, or (see {@link ResponseValidationError}) not the
 * documented shape. Never call again with a new key: look the result up, or call again with
 * `idempotencyKey` to get the same answer replayed.
 */
export class AcceptedButUnreadableError extends MerchantSdkError {
  /** Class name, `AcceptedButUnreadableError` (survives minification, unlike `constructor.name`). */
  override name = 'AcceptedButUnreadableError';
  /** HTTP status (2xx). */
  readonly status: number;
  /** Request id of the response. */
  readonly requestId: string | undefined;
  /** The body as received: at most 4096 characters, secrets masked. Not enumerable. */
  declare readonly body: string;
  /** The parsed JSON, when the body was JSON (what `validateResponses: false` would return). Not enumerable. */
  declare readonly parsed: unknown;

  /** @internal Raised inside a call only, which stamps the call's key on it. */
  constructor(message: string, init: AcceptedButUnreadableInit) {
    super(message);
    this.status = init.status;
    this.requestId = init.requestId;
    Object.defineProperty(this, 'body', { value: init.body, enumerable: false });
    Object.defineProperty(this, 'parsed', { value: init.parsed, enumerable: false });
  }
}

/** One schema issue of a response. */
export interface ResponseIssue {
  /** Path of the offending value inside the response body. */
  readonly path: ReadonlyArray<PropertyKey>;
  /** What was wrong with it. */
  readonly message: string;
}

/**
 * A 2xx response did not match the documented shape (opt out with `validateResponses: false`).
 * The service accepted the call: see {@link AcceptedButUnreadableError}.
 */
export class ResponseValidationError extends AcceptedButUnreadableError {
  /** Class name, `ResponseValidationError` (survives minification, unlike `constructor.name`). */
  override name = 'ResponseValidationError';
  /** Validation issues (path and message per issue). */
  readonly issues: readonly ResponseIssue[];
  /** @internal */
  constructor(message: string, init: AcceptedButUnreadableInit & { issues: readonly ResponseIssue[] }) {
    super(message, init);
    this.issues = init.issues;
  }
}

/** A non-2xx response body was not the service's error envelope (a proxy's HTML page), or too large. */
export class MalformedResponseError extends MerchantSdkError {
  /** Class name, `MalformedResponseError` (survives minification, unlike `constructor.name`). */
  override name = 'MalformedResponseError';
  /** HTTP status. */
  readonly status: number;
  /** `X-Request-Id` header, when present. */
  readonly requestId: string | undefined;
  /** The first characters of the body, for diagnosis (secrets masked). */
  readonly snippet: string;
  constructor(
    message: string,
    init: { status: number; requestId: string | undefined; snippet: string; idempotencyKey: string | undefined },
  ) {
    super(message, { idempotencyKey: init.idempotencyKey });
    this.status = init.status;
    this.requestId = init.requestId;
    this.snippet = init.snippet;
  }
}

/**
 * The service (or something in between) answered with a redirect. The SDK never follows one,
 * whatever dispatcher or `fetch` is plugged: the next host would receive the token, the
 * signature, the idempotency key and the body.
 */
export class RedirectRefusedError extends MerchantSdkError {
  /** Class name, `RedirectRefusedError` (survives minification, unlike `constructor.name`). */
  override name = 'RedirectRefusedError';
  /** The 3xx status, when the redirect was seen as a response. */
  readonly status: number | undefined;
  /** Origin of the `Location` it pointed to (never its path or query), when known. */
  readonly locationOrigin: string | undefined;
  constructor(status: number | undefined, locationOrigin: string | undefined, idempotencyKey: string | undefined) {
    super(
      `The response was a redirect${status === undefined ? '' : ` (HTTP ${status})`}${locationOrigin === undefined ? '' : ` to ${locationOrigin}`}; the SDK never follows redirects. Check the base URL.`,
      { idempotencyKey },
    );
    this.status = status;
    this.locationOrigin = locationOrigin;
  }
}

/**
 * The service's `Date` is further from the local clock than `maxClockSkewMs` allows: the SDK does
 * not sign with such an offset. Fix the host's clock (NTP) or raise the bound.
 */
export class ClockSkewError extends MerchantSdkError {
  /** Class name, `ClockSkewError` (survives minification, unlike `constructor.name`). */
  override name = 'ClockSkewError';
  /** Offset seen (service clock minus local clock, ms). */
  readonly offsetMs: number;
  /** The bound it exceeds (ms). */
  readonly maxOffsetMs: number;
  constructor(offsetMs: number, maxOffsetMs: number) {
    super(
      `The service clock is ${Math.round(offsetMs / 1000)} s away from this host's clock, beyond the ${Math.round(maxOffsetMs / 1000)} s the SDK adopts (maxClockSkewMs). Fix the host clock (NTP).`,
    );
    this.offsetMs = offsetMs;
    this.maxOffsetMs = maxOffsetMs;
  }
}

/**
 * A step of a call failed outside the SDK's own code (a plugged limiter or token store threw).
 * `cause` is the original error; `call` says whether an earlier attempt may have executed.
 */
export class CallInterruptedError extends MerchantSdkError {
  /** Class name, `CallInterruptedError` (survives minification, unlike `constructor.name`). */
  override name = 'CallInterruptedError';
}

/**
 * The outcome of a call is unknown, and a call with a new key could execute the operation twice.
 * Two cases:
 *
 * - A money-moving call with an intent journal did not run, but its intent could not be removed
 *   from the journal (the record's answer was lost and the clearing settle failed, or the settle
 *   after a "did not run" answer failed): a later `recover()` may still send it with its key.
 *   `cause` is what ended the call; `call.sent` is `maybe` (`call.attempts` 0 when nothing was
 *   sent). Call again with the same `idempotencyKey`: that finishes it exactly once whether or not
 *   `recover()` also sends it (the intent may be in the journal, or may have been cleared late).
 * - A call whose failures the service counts against the customer (card activation: three failures
 *   lock the card for 24 hours) may have been executed, and the SDK did not resend it: its last
 * attempt was sent and never answered (a reset, a client timeout), or answered by something other
 * than the service (a proxy's 5xx page). A resend could be one more counted failure, and the same
 * key does not prevent it (a failure answered 500 is not stored under the key).
 *
 * `cause` is the last attempt's error (`ConnectionError`, `TimeoutError`,
 * `MalformedResponseError`); `call` carries the key and `sent` (`maybe` or `yes`); the message says
 * what to check before anything else (for a card: read it, `active` means the activation went
 * through). Never resend such a call on your own; a new attempt is the user's new action.
 */
export class OutcomeUnknownError extends MerchantSdkError {
  /** Class name, `OutcomeUnknownError` (survives minification, unlike `constructor.name`). */
  override name = 'OutcomeUnknownError';
  /** @internal Raised inside a call only, which stamps the call's state on it. */
  constructor(message: string, options: { cause: unknown; idempotencyKey: string | undefined }) {
    super(message, options);
  }
}

/** An argument was rejected before anything was sent. `argument` names it. */
export class InvalidArgumentError extends MerchantSdkError {
  /** Class name, `InvalidArgumentError` (survives minification, unlike `constructor.name`). */
  override name = 'InvalidArgumentError';
  /** The argument or setting at fault (e.g. `amount`, `baseUrl`). */
  readonly argument: string;
  constructor(argument: string, message: string) {
    super(`${argument}: ${message}`);
    this.argument = argument;
  }
}

/** An SDK error that ended a call: a {@link MerchantSdkError} whose `call` is always there. */
export type CallEndingError = MerchantSdkError & {
  /** The state of the call this error ended. */
  readonly call: CallState;
};

/**
 * Whether `err` is an SDK error that ended a call, narrowed so that `err.call` needs no check:
 * `if (hasCallState(err) && err.call.sent !== 'no')`. Every error a client call rejects with carries
 * its call's state; errors raised outside a call (a constructor's bad option, a webhook's bad
 * signature) do not.
 */
export function hasCallState(err: unknown): err is CallEndingError {
  return err instanceof MerchantSdkError && err.call !== undefined;
}

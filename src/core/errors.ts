import { isKnownErrorCode, type ErrorCode, type ErrorType, type ExtrasOf, type RetryClass } from '../spec/error-codes.js';
import { printable } from './logger.js';
import { retryClassFor } from './retry-policy.js';

/**
 * Whether any attempt of a call may have reached the service:
 * - `no`: nothing left the client (bad input, no connection, a step before the first send failed);
 * - `maybe`: a request was on its way when the attempt failed (a reset, a timeout): the service may
 *   have executed it; or (with an intent journal) nothing was sent yet but the journal may still
 *   hold the call, so a later `recover()` may send it;
 * - `yes`: the service answered at least one attempt (any status).
 */
export type CallSent = 'no' | 'maybe' | 'yes';

/**
 * The state of one call, carried by every outcome: the result's response metadata on success,
 * `err.call` on failure, whatever step failed last (token renewal, limiter, clock, validation).
 *
 * The recipe after any failure: when `sent` is not `no` and the failure is not a business answer
 * to be fixed with a new key, call again with `idempotencyKey`; the service executes a key once.
 */
export interface CallState {
  /** The key every attempt of the call carried (undefined for calls without one, such as reads). */
  readonly idempotencyKey: string | undefined;
  /** Whether any attempt may have reached the service. */
  readonly sent: CallSent;
  /** HTTP status of the last response, when one arrived. */
  readonly status: number | undefined;
  /** `X-Request-Id` of the last response, when one arrived. Quote it to support. */
  readonly requestId: string | undefined;
  /** Attempts made on the wire. */
  readonly attempts: number;
}

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

/**
 * A copy of an error, keeping its class, stamped with the state of the call it ends. Always a
 * copy: an error may be shared by several calls (one token renewal fails for all its waiters),
 * and each caller must read its own call's state. `note` says which step failed after what.
 *
 * @internal
 */
export function withCallState<E extends MerchantSdkError>(err: E, call: CallState, note?: string): E {
  const target = copyError(err);
  Object.defineProperty(target, 'call', { value: call, enumerable: true, configurable: true });
  Object.defineProperty(target, 'idempotencyKey', { value: call.idempotencyKey, enumerable: true, configurable: true });
  // Attempts of this call, not of the step that failed (a token exchange counts its own).
  if (Object.hasOwn(target, 'attempts'))
    Object.defineProperty(target, 'attempts', { value: call.attempts, enumerable: true, configurable: true });
  if (note !== undefined) {
    const message = `${err.message} (${note})`;
    Object.defineProperty(target, 'message', { value: message, enumerable: false, writable: true, configurable: true });
    // The stack starts with the message where the runtime builds it so (V8); elsewhere it is kept.
    const stack = target.stack;
    const restated = typeof stack === 'string' ? stack.replace(err.message, message) : `${err.name}: ${message}`;
    Object.defineProperty(target, 'stack', { value: restated, writable: true, enumerable: false, configurable: true });
  }
  return target;
}

/**
 * A copy of `err` with its prototype (class) and every own property, each read from `err` as a
 * value. An accessor is never copied as is: Node 22 and later give an error an own `stack`
 * accessor that reads the error it was made for, so on a copy it would read nothing (and a copy
 * of that copy would lose the stack for good). `stack` is read even where the runtime keeps it
 * on the prototype, so the copy always carries the original's.
 */
function copyError<E extends Error>(err: E): E {
  const copy = Object.create(Object.getPrototypeOf(err) as object) as E;
  const descriptors = Object.getOwnPropertyDescriptors(err) as Record<PropertyKey, PropertyDescriptor>;
  for (const key of Reflect.ownKeys(descriptors)) {
    const d = descriptors[key]!;
    const value: PropertyDescriptor =
      'value' in d ? d : { value: Reflect.get(err, key) as unknown, writable: true, enumerable: d.enumerable, configurable: true };
    Object.defineProperty(copy, key, value);
  }
  if (!Object.hasOwn(copy, 'stack') && typeof err.stack === 'string') {
    Object.defineProperty(copy, 'stack', { value: err.stack, writable: true, enumerable: false, configurable: true });
  }
  return copy;
}

/** Fields every API error carries, as the pipeline reads them from a response. */
export interface ApiErrorInit {
  /** HTTP status of the response. */
  readonly status: number;
  /** Error code from the body (unknown codes kept). */
  readonly code: string;
  /** Error type from the body. */
  readonly type: string;
  /** Message from the body (never branch on it). */
  readonly message: string;
  /** Body `request_id`, else the `X-Request-Id` header. */
  readonly requestId: string | undefined;
  /** Response headers (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** Idempotency key sent with the call, if any. */
  readonly idempotencyKey: string | undefined;
  /** The parsed error body (either envelope shape, flattened). */
  readonly body: Readonly<Record<string, unknown>>;
  /** Attempts made. */
  readonly attempts: number;
  /** The retry class the pipeline applies to this failure on this endpoint (default: the catalogue's). */
  readonly retryClass?: RetryClass | undefined;
}

/**
 * An error response of the service. Branch on `code` (never on `message` or `status`); use
 * {@link isApiError} to narrow to a code and read its typed extra fields.
 */
export class ApiError<C extends string = string> extends MerchantSdkError {
  /** Class name, `ApiError` (survives minification, unlike `constructor.name`). */
  override name = 'ApiError';
  /** HTTP status. */
  readonly status: number;
  /** The error code: the contract. Unknown codes are kept as they came. */
  readonly code: C;
  /** The error type (`invalid_request_error`, `api_error`, ...). */
  readonly type: ErrorType | (string & {});
  /** Request id (body `request_id`, else the `X-Request-Id` header). Quote it to support. */
  readonly requestId: string | undefined;
  /**
   * Response headers (lower-case names). Not enumerable, so `util.inspect` and logs of the error
   * do not print them: a proxy's `set-cookie` may be among them.
   */
  declare readonly headers: Readonly<Record<string, string>>;
  /** Documented extra fields of the code (`limit_type`, `hosted_url`, `retry_after`, `fields`...). */
  readonly extras: ExtrasOf<C>;
  /** Attempts made before giving up. */
  readonly attempts: number;
  /**
   * True when the service answered with `X-Idempotent-Replay: true`: this failure is the stored
   * outcome of an earlier call with the same key, not a fresh one.
   */
  readonly replayed: boolean;
  /**
   * What a caller does about this failure, from the same rules the SDK's retry loop applied to it
   * (the catalogue's class, every 404 `never`, and the endpoint's own exceptions: a card
   * activation's `api_error` is `never`). Unknown codes are treated as `api_error`.
   */
  readonly retryClass: RetryClass;
  /** The parsed error body with every field the service sent. Not enumerable, like `headers`. */
  declare readonly raw: Readonly<Record<string, unknown>>;

  /** @internal Built by the SDK from an error response. */
  constructor(init: ApiErrorInit) {
    // Code, message and request id come from the server: control characters are escaped.
    super(printable(`${init.code} (HTTP ${init.status}): ${init.message}${init.requestId ? ` [request_id ${init.requestId}]` : ''}`), {
      idempotencyKey: init.idempotencyKey,
    });
    this.status = init.status;
    this.code = init.code as C;
    this.type = init.type;
    this.requestId = init.requestId;
    Object.defineProperty(this, 'headers', { value: init.headers, enumerable: false });
    this.attempts = init.attempts;
    this.replayed = init.headers['x-idempotent-replay'] === 'true';
    this.retryClass = init.retryClass ?? retryClassFor(init.code, init.status, {});
    Object.defineProperty(this, 'raw', { value: init.body, enumerable: false });
    this.extras = pickExtras(init.body) as ExtrasOf<C>;
  }

  /** Whether the code is one of the catalogue's 50. */
  get known(): boolean {
    return isKnownErrorCode(this.code);
  }

  /** JSON form without secrets (headers are left out: they may carry cookies of proxies). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      type: this.type,
      requestId: this.requestId,
      idempotencyKey: this.idempotencyKey,
      attempts: this.attempts,
      replayed: this.replayed,
      retryClass: this.retryClass,
      extras: this.extras,
      call: this.call,
    };
  }
}

const EXTRA_KEYS = [
  'limit_type',
  'limit_scope',
  'challenge_id',
  'hosted_url',
  'expires_at',
  'retry_after',
  'fields',
  'reason',
  'locked_until',
] as const;

function pickExtras(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of EXTRA_KEYS) if (body[key] !== undefined) out[key] = body[key];
  return out;
}

/**
 * Narrows an unknown error to an {@link ApiError}, optionally of one code, with typed extras.
 * `code` is one of the spec's codes ({@link ErrorCode}), so a typo (`'insufficient_balanse'`)
 * does not compile. For a code this SDK version does not know yet (the service may add codes),
 * compare it yourself: `isApiError(err) && err.code === 'new_code'`.
 *
 * @example
 * if (isApiError(err, 'step_up_required')) redirect(err.extras.hosted_url);
 */
export function isApiError(err: unknown): err is ApiError;
/**
 * Narrows an unknown error to an {@link ApiError} of one of the spec's codes, with its typed
 * extras. A typo of a code does not compile.
 *
 * @example
 * if (isApiError(err, 'limit_exceeded')) console.log(err.extras.limit_type);
 */
export function isApiError<C extends ErrorCode>(err: unknown, code: C): err is ApiError<C>;
export function isApiError(err: unknown, code?: ErrorCode): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
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

/**
 * A list iterator saw the service restart from the first page (the spec: an undecodable or
 * expired cursor returns the first page, not an error): an item already yielded in this
 * iteration came back after a page boundary, or (reports) the order went backwards. Nothing of
 * the restarted page was yielded. Start a new iteration.
 */
export class PaginationRestartError extends MerchantSdkError {
  /** Class name, `PaginationRestartError` (survives minification, unlike `constructor.name`). */
  override name = 'PaginationRestartError';
  /** The cursor that the service no longer accepted. */
  readonly cursor: string | null;
  /** The list's endpoint (`METHOD /path`), when known. */
  readonly endpoint: string | undefined;
  constructor(cursor: string | null, endpoint?: string) {
    super(
      `${endpoint === undefined ? 'The list' : `The list ${endpoint}`} restarted from its first page (the cursor expired or could not be decoded); stopping instead of yielding duplicates. Start a new iteration.`,
    );
    this.cursor = cursor;
    this.endpoint = endpoint;
  }
}

/**
 * Why a list stopped making progress ({@link PaginationStalledError}):
 * - `missing_cursor`: `has_more: true` without a `next_cursor`;
 * - `repeated_cursor`: a `next_cursor` the iteration already followed (the next request would
 *   repeat an earlier one);
 * - `empty_pages`: `has_more: true` with no items (each page with a new cursor) for longer than
 *   the list call's own deadline, `timeoutMs × (maxRetries + 1)`, since the last page with items.
 */
export type PaginationStallReason = 'missing_cursor' | 'repeated_cursor' | 'empty_pages';

/**
 * A list answered pages that make no progress, so iterating would request pages for ever.
 * Raised instead of looping; what was yielded before is complete and free of duplicates.
 */
export class PaginationStalledError extends MerchantSdkError {
  /** Class name, `PaginationStalledError` (survives minification, unlike `constructor.name`). */
  override name = 'PaginationStalledError';
  /** The list's endpoint (`METHOD /path`), when known. */
  readonly endpoint: string | undefined;
  /** What the service answered. */
  readonly reason: PaginationStallReason;
  /** The cursor of the last request made. */
  readonly cursor: string | null;
  constructor(reason: PaginationStallReason, cursor: string | null, endpoint?: string) {
    super(
      `${endpoint === undefined ? 'The list' : `The list ${endpoint}`} makes no progress: ${STALL_TEXT[reason]}; stopping instead of looping.`,
    );
    this.reason = reason;
    this.cursor = cursor;
    this.endpoint = endpoint;
  }
}

const STALL_TEXT: Readonly<Record<PaginationStallReason, string>> = {
  missing_cursor: 'it reported has_more: true without a next_cursor',
  repeated_cursor: 'it answered a next_cursor that this iteration already followed',
  empty_pages: "it answered has_more: true with no items for longer than the list call's deadline (timeoutMs × (maxRetries + 1))",
};

import { ERROR_CODES, isKnownErrorCode, type ErrorCode, type ErrorType, type ExtrasOf, type RetryClass } from '../spec/error-codes.js';
import { printable } from './logger.js';

/**
 * Base class of every error the SDK throws. Real classes, so `instanceof` works in ESM and CJS.
 */
export class MerchantSdkError extends Error {
  /** Class name, `MerchantSdkError` (survives minification, unlike `constructor.name`). */
  override name = 'MerchantSdkError';
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
  /** The idempotency key sent, so that the caller can retry with the same key. */
  readonly idempotencyKey: string | undefined;
  /** Documented extra fields of the code (`limit_type`, `hosted_url`, `retry_after`, `fields`...). */
  readonly extras: ExtrasOf<C>;
  /** Attempts made before giving up. */
  readonly attempts: number;
  /** The parsed error body with every field the service sent. Not enumerable, like `headers`. */
  declare readonly raw: Readonly<Record<string, unknown>>;

  /** @internal Built by the SDK from an error response. */
  constructor(init: ApiErrorInit) {
    // Code, message and request id come from the server: control characters are escaped.
    super(printable(`${init.code} (HTTP ${init.status}): ${init.message}${init.requestId ? ` [request_id ${init.requestId}]` : ''}`));
    this.status = init.status;
    this.code = init.code as C;
    this.type = init.type;
    this.requestId = init.requestId;
    Object.defineProperty(this, 'headers', { value: init.headers, enumerable: false });
    this.idempotencyKey = init.idempotencyKey;
    this.attempts = init.attempts;
    Object.defineProperty(this, 'raw', { value: init.body, enumerable: false });
    this.extras = pickExtras(init.body) as ExtrasOf<C>;
  }

  /** Whether the code is one of the catalogue's 50. */
  get known(): boolean {
    return isKnownErrorCode(this.code);
  }

  /** The code's retry class from the spec (unknown codes are treated as `api_error`). */
  get retryClass(): RetryClass {
    return isKnownErrorCode(this.code) ? ERROR_CODES[this.code].retry : 'same_key';
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
      extras: this.extras,
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
 *
 * @example
 * if (isApiError(err, 'step_up_required')) redirect(err.extras.hosted_url);
 */
export function isApiError<C extends ErrorCode | (string & {})>(err: unknown, code?: C): err is ApiError<C> {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

/** The service could not be reached, or the connection broke before a full response. */
export class ConnectionError extends MerchantSdkError {
  /** Class name, `ConnectionError` (survives minification, unlike `constructor.name`). */
  override name = 'ConnectionError';
  /** Idempotency key sent; a write may have executed, so retry with this same key. */
  readonly idempotencyKey: string | undefined;
  /** Attempts made. */
  readonly attempts: number;
  constructor(message: string, idempotencyKey: string | undefined, attempts: number, options?: { cause?: unknown }) {
    super(message, options);
    this.idempotencyKey = idempotencyKey;
    this.attempts = attempts;
  }
}

/** An attempt exceeded `timeoutMs` (including the body read). The write may have executed. */
export class TimeoutError extends ConnectionError {
  /** Class name, `TimeoutError` (survives minification, unlike `constructor.name`). */
  override name = 'TimeoutError';
}

/** The caller aborted the call through its `AbortSignal`. */
export class AbortError extends MerchantSdkError {
  /** Class name, `AbortError` (survives minification, unlike `constructor.name`). */
  override name = 'AbortError';
  /** Idempotency key of the aborted call (it may have executed: retry with the same key). */
  readonly idempotencyKey: string | undefined;
  constructor(idempotencyKey: string | undefined, options?: { cause?: unknown }) {
    super('The call was aborted by its AbortSignal.', options);
    this.idempotencyKey = idempotencyKey;
  }
}

/** A response did not match the documented shape (opt out with `validateResponses: false`). */
export class ResponseValidationError extends MerchantSdkError {
  /** Class name, `ResponseValidationError` (survives minification, unlike `constructor.name`). */
  override name = 'ResponseValidationError';
  /** Request id of the response. */
  readonly requestId: string | undefined;
  /** Validation issues (path and message per issue). */
  readonly issues: ReadonlyArray<{
    /** Path of the offending value inside the response body. */
    path: ReadonlyArray<PropertyKey>;
    /** What was wrong with it. */
    message: string;
  }>;
  /** HTTP status of the response. */
  readonly status: number;
  constructor(
    message: string,
    init: { requestId: string | undefined; status: number; issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> },
  ) {
    super(message);
    this.requestId = init.requestId;
    this.status = init.status;
    this.issues = init.issues;
  }
}

/** A response body was not JSON (a proxy's HTML page, a truncated body) or too large. */
export class MalformedResponseError extends MerchantSdkError {
  /** Class name, `MalformedResponseError` (survives minification, unlike `constructor.name`). */
  override name = 'MalformedResponseError';
  /** HTTP status. */
  readonly status: number;
  /** `X-Request-Id` header, when present. */
  readonly requestId: string | undefined;
  /** The first characters of the body, for diagnosis. */
  readonly snippet: string;
  /** Idempotency key sent. */
  readonly idempotencyKey: string | undefined;
  constructor(
    message: string,
    init: { status: number; requestId: string | undefined; snippet: string; idempotencyKey: string | undefined },
  ) {
    super(message);
    this.status = init.status;
    this.requestId = init.requestId;
    this.snippet = init.snippet;
    this.idempotencyKey = init.idempotencyKey;
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

/** A list iterator saw the service restart from the first page (an expired cursor). */
export class PaginationRestartError extends MerchantSdkError {
  /** Class name, `PaginationRestartError` (survives minification, unlike `constructor.name`). */
  override name = 'PaginationRestartError';
  /** The cursor that the service no longer accepted. */
  readonly cursor: string | null;
  constructor(cursor: string | null) {
    super(
      'The list restarted from its first page (the cursor expired or could not be decoded); stopping instead of yielding duplicates. Start a new iteration.',
    );
    this.cursor = cursor;
  }
}

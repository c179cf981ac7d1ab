import { isKnownErrorCode, type ErrorCode, type ErrorType, type ExtrasOf, type RetryClass } from '../../facts/error-codes.js';
import { MerchantSdkError } from './errors.js';
import { printable } from '../text.js';
import { retryClassFor } from './retry-class.js';

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

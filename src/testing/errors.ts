/**
 * The simulator's own error envelope writer. Deliberately independent of the client's error
 * parsing (src/core): a shared table would let one wrong entry pass both sides' tests.
 */

/** HTTP status per code, for the codes the simulator emits whose status is not 400. */
const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  invalid_credentials: 401,
  invalid_token: 401,
  invalid_signature: 401,
  signature_required: 401,
  timestamp_out_of_range: 401,
  nonce_reused: 401,
  insufficient_scope: 403,
  ip_not_allowed: 403,
  merchant_disabled: 403,
  member_not_found: 404,
  resource_not_found: 404,
  card_product_not_found: 404,
  not_found: 404,
  idempotency_key_reused: 409,
  idempotency_in_progress: 409,
  duplicate_resource: 409,
  rate_limited: 429,
  api_error: 500,
  upstream_error: 502,
  upstream_timeout: 504,
};

/** Envelope `type` per HTTP status (spec: Errors > Type to HTTP status). */
const TYPE_BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found',
  409: 'idempotency_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'upstream_error',
  504: 'upstream_timeout',
};

/** The spec's status for `code` (400 unless listed). */
function statusOf(code: string): number {
  return STATUS_BY_CODE[code] ?? 400;
}

/** Envelope `type` for an HTTP status; statuses outside the table (503) read as `api_error`. */
export function typeOf(status: number): string {
  return TYPE_BY_STATUS[status] ?? 'api_error';
}

/** Options of a thrown {@link ServiceError}. */
export interface ServiceErrorOptions {
  /** Override the catalogue status (the agreement endpoint's 503, injected faults). */
  status?: number;
  /** Extra envelope fields (`fields`, `limit_type`, `locked_until`, `retry_after`...). */
  extra?: Record<string, unknown>;
  /** Response headers to add (`Retry-After`). */
  headers?: Record<string, string>;
  /** False when the failure must not be stored under the idempotency key. */
  storable?: boolean;
}

/** A failure a route or check raises; the pipeline turns it into the spec's envelope. */
export class ServiceError extends Error {
  readonly code: string;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly storable: boolean;

  constructor(code: string, message: string, options: ServiceErrorOptions = {}) {
    super(message);
    this.name = 'ServiceError';
    this.code = code;
    this.status = options.status ?? statusOf(code);
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
    this.storable = options.storable ?? true;
  }
}

/** Throws a {@link ServiceError}; `never` lets callers use it in expressions. */
export function fail(code: string, message: string, options?: ServiceErrorOptions): never {
  throw new ServiceError(code, message, options);
}

/** Serialises the flat envelope `{type, code, message, request_id, ...extra}`. */
export function envelope(status: number, code: string, message: string, requestId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: typeOf(status), code, message, request_id: requestId, ...extra });
}

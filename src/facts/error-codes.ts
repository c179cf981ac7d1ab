/**
 * The spec's error catalogue (Errors > Code catalogue, Retry rules, Extra fields) as data.
 * Types, the retry policy, the docs table and the tests derive from this one table.
 */

/** Error `type` values and their HTTP status (Errors > Type to HTTP status). */
export const ERROR_TYPES = {
  /** Malformed requests and transactions that cannot proceed. */
  invalid_request_error: 400,
  /** Credentials, token or signature problems. */
  authentication_error: 401,
  /** Scope, IP allowlist or merchant status. */
  permission_error: 403,
  /** Unknown path or object (never retried). */
  not_found: 404,
  /** Key reuse, key in progress, duplicates. */
  idempotency_error: 409,
  /** Quota exceeded; honour `Retry-After`. */
  rate_limit_error: 429,
  /** Internal error; retried with the same key. */
  api_error: 500,
  /** Upstream provider unavailable; retried with the same key. */
  upstream_error: 502,
  /** Upstream timeout, outcome unknown; retried with the same key. */
  upstream_timeout: 504,
} as const;

/**
 * An error `type` of the spec.
 *
 * @useDeclaredType
 */
export type ErrorType = keyof typeof ERROR_TYPES;

/**
 * How the SDK treats a code (Errors > Retry rules):
 * - `same_key`: retried automatically with the same idempotency key and a fresh nonce.
 * - `after_wait`: rate limited; retried with the same key after `Retry-After`.
 * - `new_key`: a business failure; the caller corrects inputs or funding and calls again with a
 *   new key (the same key only replays the failure).
 * - `never`: do not retry (the spec's do-not-retry list, every 404).
 * - `reauth`: an authentication problem the SDK may repair once (token renewal, clock skew).
 * - `fatal`: configuration or credentials are wrong; retrying cannot help.
 * - `after_step_up`: retry with the same key after the end user completes the hosted screen.
 * - `same_key_later`: a failure the endpoint does not store under the key (merchant conversions'
 *   `service_unavailable`: "not cached under the key, so the same key may be retried"). Not
 *   retried automatically; the caller calls again later with the same key, which then executes.
 *   Never a catalogue class: only an endpoint's `unstoredCodes` turn a `new_key` code into it.
 */
export type RetryClass = 'same_key' | 'after_wait' | 'new_key' | 'never' | 'reauth' | 'fatal' | 'after_step_up' | 'same_key_later';

/** One row of the catalogue. */
export interface ErrorCodeInfo {
  /** HTTP status the spec gives for the code. */
  readonly status: number;
  /** Error `type` matching that status. */
  readonly type: ErrorType;
  /** Retry class. */
  readonly retry: RetryClass;
}

const row = (status: number, type: ErrorType, retry: RetryClass): ErrorCodeInfo => ({ status, type, retry });

/** All 50 public codes of the catalogue, in the spec's order. */
export const ERROR_CODES = {
  /** Token exchange: client id or api key wrong, key disabled or expired, or rotation overlap closed. */
  invalid_credentials: row(401, 'authentication_error', 'fatal'),
  /** Token missing, malformed, expired, or its key disabled, expired or reassigned. */
  invalid_token: row(401, 'authentication_error', 'reauth'),
  /** Signature mismatch, or a signature header missing or a non-numeric timestamp. */
  invalid_signature: row(401, 'authentication_error', 'fatal'),
  /** Endpoint must be signed (no emission point currently). */
  signature_required: row(401, 'authentication_error', 'fatal'),
  /** `x-timestamp` more than 300 s from the service clock (often milliseconds sent). */
  timestamp_out_of_range: row(401, 'authentication_error', 'reauth'),
  /** `x-nonce` already used within the 5-minute window. */
  nonce_reused: row(401, 'authentication_error', 'reauth'),
  /** The token's environment differs from the deployment called. */
  environment_mismatch: row(400, 'invalid_request_error', 'fatal'),
  /** The key lacks the endpoint's scope. */
  insufficient_scope: row(403, 'permission_error', 'never'),
  /** The caller's IP is not on the key's allowlist. */
  ip_not_allowed: row(403, 'permission_error', 'never'),
  /** Merchant entity nonexistent, suspended, frozen or closed. */
  merchant_disabled: row(403, 'permission_error', 'never'),
  /** A write was sent without `x-idempotency-key`. */
  idempotency_key_required: row(400, 'invalid_request_error', 'new_key'),
  /** The key is not UUID-shaped (8-4-4-4-12 hex). */
  idempotency_key_invalid: row(400, 'invalid_request_error', 'new_key'),
  /** `quote_id` sent to an endpoint that prices at execution time. */
  quote_lock_unsupported: row(400, 'invalid_request_error', 'new_key'),
  /** Same key with a different body or a different endpoint. */
  idempotency_key_reused: row(409, 'idempotency_error', 'never'),
  /** The first request with this key is still processing. */
  idempotency_in_progress: row(409, 'idempotency_error', 'same_key'),
  /** Member unknown, foreign, suspended or blocklisted. */
  member_not_found: row(404, 'not_found', 'never'),
  /** `x-on-behalf-of` missing on a member-scoped endpoint. */
  member_context_required: row(400, 'invalid_request_error', 'new_key'),
  /** Member suspended (no emission point currently). */
  member_suspended: row(400, 'invalid_request_error', 'new_key'),
  /** Quick KYC not enabled for the merchant. */
  quick_kyc_disabled: row(400, 'invalid_request_error', 'new_key'),
  /** The member already has 5 quick KYC bindings. */
  quick_kyc_limit: row(400, 'invalid_request_error', 'new_key'),
  /** No unassigned pool profile matches. */
  quick_kyc_exhausted: row(400, 'invalid_request_error', 'new_key'),
  /** The quick KYC fee cannot be paid (10 USDT on first allocation). */
  quick_kyc_unpaid: row(400, 'invalid_request_error', 'new_key'),
  /** The member's KYC level is below the line's requirement. */
  kyc_required: row(400, 'invalid_request_error', 'new_key'),
  /** The member's available balance in the asset is too low. */
  insufficient_balance: row(400, 'invalid_request_error', 'new_key'),
  /** The merchant prepaid available balance is too low. */
  merchant_insufficient_funds: row(400, 'invalid_request_error', 'new_key'),
  /** Confirming a withdrawal would make the custody declaration negative. */
  merchant_custody_shortfall: row(400, 'invalid_request_error', 'new_key'),
  /** Product not authorised, withdrawn from sale, or prerequisites unmet. */
  product_not_available: row(400, 'invalid_request_error', 'never'),
  /** The card does not support the operation. */
  card_operation_not_supported: row(400, 'invalid_request_error', 'new_key'),
  /** A limit was reached (`limit_type`, `limit_scope` when present). */
  limit_exceeded: row(400, 'invalid_request_error', 'new_key'),
  /** Amount outside the product's permitted range (or below the slippage floor). */
  amount_out_of_range: row(400, 'invalid_request_error', 'new_key'),
  /** Risk-control rejection, with no reason given. */
  request_rejected: row(400, 'invalid_request_error', 'never'),
  /** Strong authentication by the end user is needed (`hosted_url`). */
  step_up_required: row(400, 'invalid_request_error', 'after_step_up'),
  /** The order is past its cancellable point. */
  order_not_cancellable: row(400, 'invalid_request_error', 'never'),
  /** Asset not on the allowlist, disabled, or without a channel. */
  asset_not_allowed: row(400, 'invalid_request_error', 'new_key'),
  /** Malformed JSON, missing fields, unknown enums, bad amount format or precision. */
  invalid_request: row(400, 'invalid_request_error', 'new_key'),
  /** Unsupported uploaded file type. */
  kyc_upload_invalid: row(400, 'invalid_request_error', 'new_key'),
  /** KYC file over the per-file size limit. */
  kyc_upload_too_large: row(400, 'invalid_request_error', 'new_key'),
  /** Per-field validation failed (`fields` of `key` and `reason`). */
  invalid_fields: row(400, 'invalid_request_error', 'new_key'),
  /** Remittance corridor unavailable. */
  corridor_not_supported: row(400, 'invalid_request_error', 'new_key'),
  /** Referenced object not under this member, or nonexistent. */
  resource_not_found: row(404, 'not_found', 'never'),
  /** Action invalid in the object's current state. */
  state_invalid: row(400, 'invalid_request_error', 'never'),
  /** An identical record already exists. */
  duplicate_resource: row(409, 'idempotency_error', 'new_key'),
  /** Withdrawal address not allowed (own deposit address, blocklisted, bad format or chain). */
  address_not_allowed: row(400, 'invalid_request_error', 'new_key'),
  /** Payment QR cannot be decoded, is unsupported, or was rejected upstream. */
  qr_code_invalid: row(400, 'invalid_request_error', 'new_key'),
  /** Path or object nonexistent or not yours; sandbox-only endpoints on live. */
  not_found: row(404, 'not_found', 'never'),
  /** Quota exceeded (`Retry-After`). */
  rate_limited: row(429, 'rate_limit_error', 'after_wait'),
  /** Internal error. */
  api_error: row(500, 'api_error', 'same_key'),
  /** Upstream provider unavailable. */
  upstream_error: row(502, 'upstream_error', 'same_key'),
  /** Upstream timeout, outcome unknown. */
  upstream_timeout: row(504, 'upstream_timeout', 'same_key'),
  /** Line temporarily unavailable (funding, configuration or upstream). */
  service_unavailable: row(400, 'invalid_request_error', 'new_key'),
} as const satisfies Record<string, ErrorCodeInfo>;

/**
 * One of the 50 public error codes (the table itself is internal; docs/errors.md lists them).
 *
 * @useDeclaredType
 */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a string is one of the catalogue's codes. */
export function isKnownErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** Extra fields the spec documents per code (Errors > Extra fields), plus `locked_until`. */
export interface ErrorExtras {
  /** Extras of `limit_exceeded`. */
  limit_exceeded: {
    /** `single` or `daily`; may be absent. */
    limit_type?: 'single' | 'daily' | (string & {});
    /** `merchant` or `member`; may be absent. */
    limit_scope?: 'merchant' | 'member' | (string & {});
  };
  /** Extras of `step_up_required`. */
  step_up_required: {
    /** The challenge to complete. */
    challenge_id?: string;
    /** Hosted screen to send the end user to; retry with the same key afterwards. */
    hosted_url?: string;
    /** Unix seconds. */
    expires_at?: number;
  };
  /** Extras of `rate_limited`. */
  rate_limited: {
    /** Seconds to wait (also in the `Retry-After` header). */
    retry_after?: number;
  };
  /** Extras of `service_unavailable`. */
  service_unavailable: {
    /** Seconds to wait; only on `POST /v1/merchant/deposit-address`. */
    retry_after?: number;
  };
  /** Extras of `invalid_fields`. */
  invalid_fields: {
    /** The failing fields; documented only on `POST /v1/remit/payees`, other endpoints may omit it. */
    fields?: Array<{
      /** Field name. */
      key: string;
      /** Why it failed. */
      reason: string;
    }>;
    /** Overall reason. */
    reason?: string;
  };
  /** Extras of `state_invalid`. */
  state_invalid: {
    /** ISO timestamp; card activation locked after 3 failures. */
    locked_until?: string;
  };
}

/** Typed extra fields of a code (an empty object for codes without documented extras). */
export type ExtrasOf<C extends string> = C extends keyof ErrorExtras ? ErrorExtras[C] : Record<never, never>;

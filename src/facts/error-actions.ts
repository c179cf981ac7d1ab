/**
 * What a caller does about each error code: the advice of docs/errors.md's table. Kept apart from
 * the catalogue (`error-codes.ts`), which the client reads at run time: the advice is read only by
 * the docs generator and the tests, so it never ships in an application's bundle.
 */
import type { ErrorCode } from './error-codes.js';

const FIX = 'Correct the request and call again with a new idempotency key.';
const FUND = 'Fund the account or lower the amount, then call again with a new idempotency key.';

/** The advice per code, in the catalogue's order. */
export const ERROR_ACTIONS: Readonly<Record<ErrorCode, string>> = {
  invalid_credentials: 'Check the client id and api key (rotation closes old keys with no grace).',
  invalid_token: 'The SDK renews the token once and retries; persistent failures mean the key was revoked or reassigned.',
  invalid_signature: 'Check the signing key (not the api key) and that nothing rewrites the body or query in transit.',
  signature_required: 'Sign the request (the SDK signs every write).',
  timestamp_out_of_range: 'The SDK corrects its clock offset from the Date header and retries once; fix the host clock (NTP).',
  nonce_reused: 'The SDK sends a fresh nonce per attempt; seeing this means a request was replayed in transit.',
  environment_mismatch: 'Use sandbox credentials with the sandbox host and live credentials with the production host.',
  insufficient_scope: 'Grant the endpoint scope to the key (restricted scopes need approval).',
  ip_not_allowed: 'Add the caller IP to the key allowlist (only single IPs, * prefixes and /8, /16, /24 CIDR match).',
  merchant_disabled: 'The merchant entity is suspended, frozen or closed; contact the service.',
  idempotency_key_required: 'Send an idempotency key (the SDK sends one on every endpoint that takes it).',
  idempotency_key_invalid: 'Use an 8-4-4-4-12 hex key.',
  quote_lock_unsupported: 'Do not send quote_id to this endpoint.',
  idempotency_key_reused: 'The key was used with another body or endpoint; resend the original body to read the earlier result.',
  idempotency_in_progress: 'The first request with this key is still running; the SDK retries with backoff.',
  member_not_found: 'The member is unknown, foreign, suspended or blocklisted.',
  member_context_required: 'Call member-scoped endpoints through client.member(id).',
  member_suspended: 'The member is suspended.',
  quick_kyc_disabled: 'Quick KYC is not enabled for the merchant.',
  quick_kyc_limit: 'The member already has 5 quick KYC bindings.',
  quick_kyc_exhausted: 'No unassigned pool profile matches; try another country or identity type.',
  quick_kyc_unpaid: FUND,
  kyc_required: 'Raise the member KYC level, then call again with a new key.',
  insufficient_balance: FUND,
  merchant_insufficient_funds: FUND,
  merchant_custody_shortfall: 'Raise the custody declaration for the asset before confirming.',
  product_not_available: 'The product is not authorised, withdrawn or its prerequisites are unmet.',
  card_operation_not_supported: 'The card does not support the operation.',
  limit_exceeded: 'A limit was reached (see limit_type and limit_scope); lower the amount or wait.',
  amount_out_of_range: 'Use an amount within the product range (or above the slippage floor).',
  request_rejected: 'Rejected by risk control; no reason is given. Do not retry.',
  step_up_required: 'Send the end user to hosted_url, then retry with the same idempotency key.',
  order_not_cancellable: 'The order is past its cancellable point.',
  asset_not_allowed: 'Use an enabled asset on the allowlist.',
  invalid_request: FIX,
  kyc_upload_invalid: 'Upload a supported file type.',
  kyc_upload_too_large: 'Upload a smaller file.',
  invalid_fields: 'Correct the fields named in fields[], then call again with a new key.',
  corridor_not_supported: 'Pick a corridor from remittances.corridors().',
  resource_not_found: 'The referenced object is not under this member or does not exist.',
  state_invalid: 'The action is not valid in the object current state; read it again.',
  duplicate_resource: 'An identical record already exists.',
  address_not_allowed: 'Use a registered, usable withdrawal address.',
  qr_code_invalid: 'The QR payload cannot be decoded or is unsupported.',
  not_found: 'The path or object does not exist or is not yours (sandbox-only endpoints on live).',
  rate_limited: 'The SDK waits Retry-After and retries with the same key.',
  api_error: 'The SDK retries with the same key; report the request_id if it persists.',
  upstream_error: 'The SDK retries with the same key.',
  upstream_timeout: 'The outcome is unknown; the SDK retries with the same key, never a new one.',
  service_unavailable: 'The line is temporarily unavailable; try later (not queued).',
};

/**
 * The retry class of an error answer on an endpoint: the catalogue's class, with the endpoint's
 * exceptions (data of its descriptor). Read by `ApiError.retryClass` and by the attempt loop.
 */
import { ERROR_CODES, isKnownErrorCode, type RetryClass } from '../../facts/error-codes.js';
import type { Lockout, RetryMode } from '../../facts/endpoint.js';

/** An endpoint's exceptions to the spec's retry rules (data of its descriptor). */
export interface RetryRules {
  /** `never`: no automatic retry of a failure that may have reached the service. */
  readonly retry?: RetryMode | undefined;
  /** Codes never retried on this endpoint although the catalogue would (`api_error` covers unknown codes). */
  readonly noRetryCodes?: readonly string[] | undefined;
  /** Set when the endpoint's failures count against the customer: nothing that may have executed is resent. */
  readonly lockout?: Lockout | undefined;
  /**
   * Codes the endpoint does not store under the key (conversions' `service_unavailable`): a
   * `new_key` code among them is `same_key_later` there (the same key may be retried; not
   * automatically).
   */
  readonly unstoredCodes?: readonly string[] | undefined;
}

/**
 * The service's own upstream failures: "Network errors and upstream 5xx do not count" toward a
 * lockout, so these alone are retried (with the same key) on an endpoint that has one.
 */
const UNCOUNTED_CODES: ReadonlySet<string> = new Set(['upstream_error', 'upstream_timeout']);

/** Whether the endpoint excludes `code` from retries (an unknown code counts as `api_error`). */
function excluded(code: string, rules: RetryRules): boolean {
  const codes = rules.noRetryCodes;
  return codes !== undefined && (codes.includes(code) || (!isKnownErrorCode(code) && codes.includes('api_error')));
}

/** Whether a same-key retry of `code` could execute an action whose failures count (all but the upstream ones). */
function counted(code: string, rules: RetryRules): boolean {
  return rules.lockout !== undefined && !UNCOUNTED_CODES.has(code);
}

/**
 * The retry class of an error response on an endpoint: the rules the retry loop applies, as a
 * caller reads them on `ApiError.retryClass`. Every 404 is `never`; so is a code the endpoint
 * excludes, any 5xx of an endpoint that never retries, and on a lockout endpoint every same-key
 * code but `upstream_error` and `upstream_timeout`; unknown codes are `api_error`'s. A `new_key`
 * code the endpoint does not store under the key (`unstoredCodes`) is `same_key_later`: the same
 * key may be retried, and the loop does not retry it (only `same_key` is retried automatically).
 */
export function retryClassFor(code: string, status: number, rules: RetryRules): RetryClass {
  if (code === 'rate_limited' || status === 429) return 'after_wait';
  if (status === 404) return 'never';
  const cls = isKnownErrorCode(code) ? ERROR_CODES[code].retry : 'same_key';
  if (cls === 'same_key' && (rules.retry === 'never' || excluded(code, rules) || counted(code, rules))) return 'never';
  if (cls === 'new_key' && rules.unstoredCodes?.includes(code) === true) return 'same_key_later';
  return cls;
}

/**
 * Whether an error answer ends a lockout call only because the lockout forbids its same-key retry
 * (a 500, a 409 in progress, an unknown code): the action may have been executed and counted.
 */
export function lockoutStopped(code: string, status: number, rules: RetryRules): boolean {
  return retryClassFor(code, status, {}) === 'same_key' && counted(code, rules);
}

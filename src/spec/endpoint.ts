import type * as z from 'zod/mini';

/** HTTP methods the service's endpoints use. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * The spec's rate-limit buckets (Limits > Rate limits). The bucket is chosen by method and
 * path prefix; unrecognised writes fall into `orders`, unrecognised reads into `reads`.
 */
export type RateLimitBucket = 'deposits' | 'members_write' | 'orders' | 'reads';

/**
 * How the pipeline may retry an endpoint's server-side failures.
 *
 * - `spec`: the spec's Retry rules (same key on 500/502/504, 409 in progress, 429 after
 *   `Retry-After`, connection failures and client timeouts).
 * - `never`: no automatic retry of any failure that may have reached the service (a 429, and a
 *   connection that failed before sending, are still retried: nothing executed). Used for raw
 *   writes sent without an idempotency key, where a retry could execute twice.
 */
export type RetryMode = 'spec' | 'never';

/**
 * One endpoint of the spec as data. Resources, the endpoint table in the docs and the tests all
 * derive from these descriptors; the pipeline reads only the generic fields.
 */
export interface EndpointDescriptor<TResult = unknown> {
  /** Stable identifier, `namespace.method` as exposed by the SDK, e.g. `withdrawals.create`. */
  readonly id: string;
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Path template with `{name}` placeholders, e.g. `/v1/withdrawals/{id}/confirm`. */
  readonly path: string;
  /** Scope the spec names for the endpoint, or `undefined` where it is not shown. */
  readonly scope?: string | undefined;
  /** Whether the call needs `x-on-behalf-of` (a member view). */
  readonly memberScoped: boolean;
  /** Whether the call sends `x-idempotency-key` (writes that create objects or move funds). */
  readonly idempotent: boolean;
  /** Whether the call moves funds (documentation; retries of these always reuse the key). */
  readonly movesFunds: boolean;
  /** `full` when the spec shows the response shape, `loose` when it says "not shown". */
  readonly typing: 'full' | 'loose';
  /** Retry override; defaults to `spec`. */
  readonly retry?: RetryMode;
  /** Codes that must not be retried on this endpoint even though the global table would. */
  readonly noRetryCodes?: readonly string[];
  /** Response schema (zod). */
  readonly response: z.ZodMiniType<TResult>;
  /**
   * Top-level body fields whose values are secrets (a card PIN): masked wherever a server echoes
   * them back into an error or a log line. Bodies are never logged in any case.
   */
  readonly secretFields?: readonly string[];
}

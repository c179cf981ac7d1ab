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
 * An endpoint whose failures the service counts against the customer (card activation: three
 * failures lock the card for 24 hours, unlocked only by the service's operators). Such a call is
 * never resent once an attempt may have executed: a resend after a lost answer could be a second
 * counted failure, and the key does not protect it (a failure answered 500 is not stored under
 * the key). Only what cannot count is retried: a 429, a failure before anything was sent, and the
 * service's own `upstream_error` / `upstream_timeout` ("Network errors and upstream 5xx do not
 * count").
 */
export interface Lockout {
  /** What the service counts, in the spec's words (e.g. `three failures lock the card for 24 hours`). */
  readonly rule: string;
  /** What the caller checks instead of resending, quoted in the error that ends the call. */
  readonly check: string;
}

/**
 * One endpoint of the spec as data. Resources, the endpoint table in the docs and the tests all
 * derive from these descriptors; the pipeline reads only the generic fields.
 */
export interface EndpointDescriptor<TResult = unknown> {
  /** Stable identifier, e.g. `member.withdrawals.create`: the one name of logs, spans, metrics and journal rows. */
  readonly id: string;
  /** HTTP method. */
  readonly method: HttpMethod;
  /** Path template with `{name}` placeholders, e.g. `/v1/withdrawals/{id}/confirm`. */
  readonly path: string;
  /** Scope the spec names for the endpoint, or `undefined` where it is not shown. */
  readonly scope?: string | undefined;
  /** Whether the call acts for a member: sent with `x-on-behalf-of` (a member view). */
  readonly memberScoped: boolean;
  /**
   * A member-scoped endpoint that may also be called without naming a member (no
   * `x-on-behalf-of`), from a merchant-level namespace: the scope the spec does not show, where a
   * member-only call could be stranded (a suspended member's withdrawal waiting in `withdrawing`).
   */
  readonly memberOptional?: boolean;
  /** Whether the call sends `x-idempotency-key` (writes that create objects or move funds; `keyed` in a prepared call). */
  readonly sendsKey: boolean;
  /**
   * Set on a write the spec says takes no idempotency key ("No idempotency key" on QR quotes, "No
   * idempotency key is listed" on card limits): a caller's `options.idempotencyKey` is refused
   * there before anything is sent, as on every GET and HEAD (the key is for writes). On a keyless
   * write whose requirement the spec does not show (`sendsKey` false by the SDK's assumption), a
   * caller's key is sent as given instead.
   */
  readonly takesNoKey?: boolean;
  /**
   * Set on a write where the SDK sends a key (`sendsKey`) although the spec shows no requirement
   * and its common rule does not decide one: a quote (the one quote the spec shows, the QR quote,
   * takes none). The key is sent as on any keyed write (fresh per call, reused by its retries:
   * harmless if the service ignores it, protective if it honours it), but the OpenAPI document
   * declares the header optional (`x-idempotency: optional`), never required.
   */
  readonly keyNotRequired?: boolean;
  /**
   * Whether the intent journal records the call before it is sent (with a journal): the writes
   * that move funds. Their retries, like every keyed call's, reuse the key.
   */
  readonly journaled: boolean;
  /**
   * Set on the descriptor `client.request()` makes for a path outside the endpoint table: the SDK
   * does not know what such a call does, so the journal never covers it (a secret field or a key
   * does not make it one the journal could recover).
   */
  readonly outsideTable?: boolean;
  /** `full` when the spec shows the response shape, `loose` when it says "not shown". */
  readonly typing: 'full' | 'loose';
  /** Retry override; defaults to `spec`. */
  readonly retry?: RetryMode;
  /**
   * Codes the spec says this endpoint does not cache under the idempotency key (conversions:
   * "`service_unavailable` is not cached under the key, so the same key may be retried"): the
   * same key may execute the operation later, so such an answer never lets the intent journal
   * forget a call the caller may make again, and its `retryClass` is `same_key_later` (the same
   * key may be retried by the caller; the SDK does not retry it automatically).
   */
  readonly unstoredCodes?: readonly string[];
  /** Codes that must not be retried on this endpoint even though the global table would. */
  readonly noRetryCodes?: readonly string[];
  /** Set when the service counts the endpoint's failures against the customer: see {@link Lockout}. */
  readonly lockout?: Lockout;
  /**
   * True for the one endpoint sent without a signature although it is a POST: the token exchange
   * (spec: "the signing_key is never used for token exchange"; credentials travel in `x-client-id`
   * and `x-api-key` only). Every other method but GET and HEAD is signed.
   */
  readonly unsigned?: boolean;
  /** Response schema (zod). */
  readonly response: z.ZodMiniType<TResult>;
  /**
   * Top-level body fields whose values are secrets (a card PIN): masked wherever a server echoes
   * them back into an error or a log line. Bodies are never logged in any case.
   */
  readonly secretFields?: readonly string[];
}

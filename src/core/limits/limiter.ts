import type { RateLimitBucket } from '../../facts/endpoint.js';

/** The rate-limit bucket of a call: one of the spec's four, or the token exchange's own quota. */
export type CallBucket = RateLimitBucket | 'token';

/**
 * Optional client-side rate limiter, consulted before each attempt (client option `limiter`).
 * `MemoryRateLimiter` is the per-process implementation; a fleet plugs a shared one (Redis).
 *
 * Contract, for any implementation:
 * - `acquire(bucket, signal)` is called once per attempt (retries included) of every request
 *   except the token exchange, once the client holds a token and has waited out any pause of its
 *   own, right before signing and sending. It resolves when one request of `bucket` may be sent,
 *   and counts that request at once: the service's quotas are per merchant, so a shared
 *   implementation counts across processes, atomically with its check.
 * - `signal` ends the wait: the client passes one that aborts when the caller aborts or when the
 *   call's deadline (`timeoutMs × (maxRetries + 1)`) passes. When it aborts, the pending
 *   `acquire` rejects at once with `signal.reason`, takes no
 *   slot, and leaves nothing (timer, listener, subscription) that keeps the process alive. Any
 *   other rejection fails the call unsent, with that error; a fleet limiter that loses its store
 *   should fall back to counting locally rather than reject (a payment must not fail because a
 *   cache is down).
 * - `settle(bucket)`, when implemented, is called exactly once for every resolved `acquire`,
 *   when that attempt has ended (a response arrived, or it failed or was aborted). The service
 *   counted the request on arrival, before that moment, so a sliding window that holds the slot
 *   until one window after `settle` can never let the next request meet it there, however long
 *   the attempt queued for a socket. Without `settle`, an implementation must hold slots a
 *   margin past the window instead. It must not throw.
 * - `pause(bucket, ms)` is called when the service answered 429 with `Retry-After` for
 *   `bucket` (capped at `maxRetryAfterMs`), whether or not that call retries: every queued and
 *   future `acquire` of that bucket waits until `ms` from now (never shortening a longer
 *   pause); the other buckets keep flowing. It must not throw; a shared implementation
 *   publishes the pause to the other processes on its own time.
 * - Buckets are the spec's four: `deposits`, `members_write`, `orders`, `reads`.
 * - `subKey` names a limit the spec sets inside a bucket (Limits > Rate limits, "Other rate
 *   limits"): `qrpay_quotes:<member>` for `POST /v1/qrpay/quotes` (30 per member per 60 s),
 *   `swift_search` for `GET /v1/remit/swift-search` (300 a minute). Such a call still counts
 *   against its bucket. A 429 on it pauses only its own (bucket, subKey): `pause(bucket, ms,
 *   subKey)` must not hold the bucket's other calls. The client passes `subKey` to `acquire`,
 *   `settle` and `pause` only when the call has one; an implementation written before it
 *   existed ignores the argument, and then pauses the whole bucket (more cautious, never
 *   wrong). The token exchange never reaches the limiter: it has its own quota in the client.
 */
export interface RequestLimiter {
  /**
   * Resolves when a request of `bucket` (and of its sub-limit `subKey`, when given) may be sent,
   * counting it. Rejects with `signal.reason` on abort.
   */
  acquire(bucket: RateLimitBucket, signal?: AbortSignal, subKey?: string): Promise<void>;
  /** Called once per resolved `acquire` when its attempt has ended, with the same `subKey`. */
  settle?(bucket: RateLimitBucket, subKey?: string): void;
  /**
   * Called when the service answered 429 for `bucket`: pause it for `ms`, or, with `subKey`,
   * pause only the calls of that sub-limit.
   */
  pause?(bucket: RateLimitBucket, ms: number, subKey?: string): void;
}

import type { RateLimitBucket } from '../spec/endpoint.js';

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
 * - When `signal` aborts, the pending `acquire` rejects at once with `signal.reason`, takes no
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
 */
export interface RequestLimiter {
  /** Resolves when a request of `bucket` may be sent, counting it. Rejects with `signal.reason` on abort. */
  acquire(bucket: RateLimitBucket, signal?: AbortSignal): Promise<void>;
  /** Called once per resolved `acquire` when its attempt has ended. */
  settle?(bucket: RateLimitBucket): void;
  /** Called when the service answered 429 for `bucket`: pause it for `ms`. */
  pause?(bucket: RateLimitBucket, ms: number): void;
}

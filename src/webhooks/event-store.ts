/**
 * Result of {@link EventStore.claim}:
 * - `claimed`: this caller owns the event now and must `complete` or `release` it;
 * - `duplicate`: the event was already processed (completed): acknowledge without processing;
 * - `in_progress`: another delivery of the event is being processed and its claim has not
 *   expired: answer non-2xx so that the service delivers it again later.
 */
export type ClaimResult = 'claimed' | 'duplicate' | 'in_progress';

/**
 * Deduplication of deliveries on `z-event-id` (the spec: deliveries are at least once, the
 * receiver deduplicates on `z-event-id`).
 *
 * Contract, for a store shared by a fleet of receivers (Redis, SQL, ...):
 * - `claim` is atomic: of concurrent claims of one id, exactly one gets `claimed`. An
 *   in-progress claim expires after `ttlMs` (a crashed worker must not block the event for
 *   ever), after which a new claim succeeds.
 * - `complete` records the id as processed, for at least as long as the service may redeliver
 *   (the spec does not show its retry schedule; keep it days, not minutes). Later claims get
 *   `duplicate`.
 * - `release` forgets an in-progress claim (the handler failed), so that the redelivery the
 *   non-2xx answer causes is processed. It must not remove a completed record.
 *
 * Methods may be synchronous or return promises. Errors thrown propagate: the handler answers
 * 500 and the service retries.
 */
export interface EventStore {
  /**
   * Atomically claims `eventId` for processing.
   *
   * @param eventId - The `z-event-id`.
   * @param ttlMs - Lease of the in-progress claim, after which it expires.
   */
  claim(eventId: string, ttlMs: number): ClaimResult | Promise<ClaimResult>;
  /** Records `eventId` as processed (after `onEvent` succeeded). */
  complete(eventId: string): void | Promise<void>;
  /** Drops the in-progress claim of `eventId` (after `onEvent` failed or timed out). */
  release(eventId: string): void | Promise<void>;
}

/**
 * A call's deadline: `timeoutMs × (maxRetries + 1)` after it started, on the monotonic clock
 * (`performance.now()`). It bounds everything the call waits for besides its attempts, which the
 * transport bounds with the rest of it: the token (a renewal shared with other calls goes on for
 * them), the limiter, a 429 pause of its bucket, the backoff.
 */

/** setTimeout's largest delay; a deadline further away than this gets no timer (nothing waits 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The reason a call's wait ends with when its deadline passes. Never shown: the pipeline turns it
 * into a `TimeoutError` that names what the call waited for, so it carries no message.
 */
export class DeadlinePassed extends Error {
  override name = 'DeadlinePassed';
}

/** What the waits of one call end on: the caller's abort, or its deadline. */
export interface CallWaits {
  readonly signal: AbortSignal;
  /** Clears the timer and the listener (the call has ended). */
  dispose(): void;
}

/** What a call's deadline is made of: `timeoutMs × (maxRetries + 1)` from its start. */
export interface CallBudget {
  readonly timeoutMs: number;
  readonly maxRetries: number;
}

/** How long a call may last, all its waits and attempts included: `timeoutMs × (maxRetries + 1)`. */
export function callBudgetMs(budget: CallBudget): number {
  return budget.timeoutMs * (budget.maxRetries + 1);
}

/** When a call started at `startedAt` (a `performance.now()` time) must have ended. */
export function callDeadline(startedAt: number, budget: CallBudget): number {
  return startedAt + callBudgetMs(budget);
}

/** The call's deadline as a caller reads it: `400 ms: timeoutMs 400 × 1 attempt`. */
export function deadlineText(budget: CallBudget): string {
  const attempts = budget.maxRetries + 1;
  return `${callBudgetMs(budget)} ms: timeoutMs ${budget.timeoutMs} × ${attempts} attempt${attempts === 1 ? '' : 's'}`;
}

/** Milliseconds left until `deadline` (a `performance.now()` time). */
export function remainingMs(deadline: number): number {
  return deadline - performance.now();
}

/**
 * A signal that aborts with the caller's reason when `caller` aborts, or with
 * {@link DeadlinePassed} at `deadline`. Made only when a call has to wait: a call that goes
 * straight to the wire makes none.
 */
export function waitsUntil(deadline: number, caller: AbortSignal | undefined): CallWaits {
  const controller = new AbortController();
  const left = Math.max(0, remainingMs(deadline));
  const timer = left > MAX_TIMER_MS ? undefined : setTimeout(() => controller.abort(new DeadlinePassed()), left);
  let stopListening = (): void => undefined;
  if (caller?.aborted) controller.abort(caller.reason);
  else if (caller !== undefined) {
    // A signal aborts once, and dispose() removes the listener: no `once` needed.
    const onAbort = (): void => controller.abort(caller.reason);
    caller.addEventListener('abort', onAbort);
    stopListening = () => caller.removeEventListener('abort', onAbort);
  }
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      stopListening();
    },
  };
}

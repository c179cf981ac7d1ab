import { sleep } from './sleep.js';

/**
 * A source of time for waits and windows: what "now" is and how to wait for it to pass. The rate limiters
 * ({@link MemoryRateLimiter}, `RedisRateLimiter`) and the client's token throttle read time only
 * through one, so that a test can drive them with a controllable clock (for example the
 * sandbox simulator's) instead of racing the real one. Production code never needs to pass one:
 * the default is {@link systemClock}.
 *
 * Both methods must agree: after `sleep(ms)` resolves, `now()` must have moved forward by at
 * least `ms` (a clock that jumps further is fine). A callback may run a little early by the
 * real clock's rounding: the limiters check `now()` again when they wake.
 *
 * @example
 * // A manual clock for a test: time moves only when the test says so.
 * let t = Date.parse('2026-01-01T00:00:00Z');
 * const waiters: Array<{ at: number; wake: () => void }> = [];
 * const clock: Clock = {
 *   now: () => t,
 *   sleep: (ms) => new Promise((wake) => waiters.push({ at: t + ms, wake })),
 * };
 * const limiter = new MemoryRateLimiter({ clock, quotas: { orders: 2 } });
 */
export interface Clock {
  /**
   * The current time in milliseconds. Only differences between two readings matter, so a clock
   * for waits must never go back: {@link systemClock} reads a monotonic clock, which a step of
   * the wall clock (NTP, a VM resumed from a snapshot) does not move.
   */
  now(): number;
  /**
   * Resolves once `ms` milliseconds of this clock have passed (at once when `ms <= 0`). Rejects
   * with `signal.reason` as soon as `signal` aborts, and then leaves nothing behind (no timer,
   * no listener).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The real clock, monotonic: `performance.timeOrigin + performance.now()` (milliseconds that read
 * like Unix time but never jump with the wall clock) and `setTimeout` (itself monotonic), both
 * looked up when called (so test fake timers that replace them apply). The default
 * {@link Clock} everywhere.
 */
export const systemClock: Clock = Object.freeze({
  now: (): number => (performance.timeOrigin || 0) + performance.now(),
  sleep: (ms: number, signal?: AbortSignal): Promise<void> => sleep(ms, signal),
});

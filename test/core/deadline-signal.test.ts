/**
 * The signal a call's waits end on (`src/core/time/deadline.ts`): the caller's abort, with its
 * reason, or the deadline, with `DeadlinePassed`; nothing left behind once disposed. On fake
 * timers and a fake `performance`, so the deadline is the test's clock.
 */
import { getEventListeners } from 'node:events';
import { afterEach, expect, it, vi } from 'vitest';
import { DeadlinePassed, remainingMs, waitsUntil } from '../../src/core/time/deadline.js';

afterEach(() => {
  vi.useRealTimers();
});

it('aborts with DeadlinePassed when the deadline comes, not a millisecond before', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const deadline = performance.now() + 400;
  expect(remainingMs(deadline)).toBe(400);
  const waits = waitsUntil(deadline, undefined);
  await vi.advanceTimersByTimeAsync(399);
  expect(waits.signal.aborted).toBe(false);
  expect(remainingMs(deadline)).toBe(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(waits.signal.aborted).toBe(true);
  expect(waits.signal.reason).toBeInstanceOf(DeadlinePassed);
  expect((waits.signal.reason as Error).name).toBe('DeadlinePassed');
  waits.dispose();
});

it("aborts with the caller's reason when the caller aborts first, or had already aborted", () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const caller = new AbortController();
  const waits = waitsUntil(performance.now() + 400, caller.signal);
  expect(waits.signal.aborted).toBe(false);
  caller.abort(new Error('stop'));
  expect(waits.signal.reason).toEqual(new Error('stop'));
  waits.dispose();
  const already = waitsUntil(performance.now() + 400, AbortSignal.abort(new Error('before')));
  expect(already.signal.reason).toEqual(new Error('before'));
  already.dispose();
});

it('a deadline already passed aborts at the next timer turn; dispose leaves no timer and no listener', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const passed = waitsUntil(performance.now() - 5, undefined);
  await vi.advanceTimersByTimeAsync(0);
  expect(passed.signal.reason).toBeInstanceOf(DeadlinePassed);
  passed.dispose();

  const caller = new AbortController();
  const waits = waitsUntil(performance.now() + 400, caller.signal);
  expect(vi.getTimerCount()).toBe(1);
  expect(getEventListeners(caller.signal, 'abort')).toHaveLength(1);
  waits.dispose();
  expect(vi.getTimerCount()).toBe(0);
  expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  // The caller's later abort no longer reaches the disposed waits.
  caller.abort(new Error('late'));
  expect(waits.signal.aborted).toBe(false);
});

it('a deadline beyond what a timer can hold (24.8 days) sets no timer: the caller alone ends the waits', () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const caller = new AbortController();
  const waits = waitsUntil(performance.now() + 2 ** 31, caller.signal);
  expect(vi.getTimerCount()).toBe(0);
  caller.abort(new Error('stop'));
  expect(waits.signal.aborted).toBe(true);
  waits.dispose();
  const atTheLimit = waitsUntil(performance.now() + 2 ** 31 - 1, undefined);
  expect(vi.getTimerCount()).toBe(1);
  atTheLimit.dispose();
});

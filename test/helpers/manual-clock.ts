/**
 * A {@link Clock} that moves only when the test moves it: `now()` is a number the test sets, and
 * `sleep(ms)` resolves when `advance`/`set` carries the time past its end. Nothing here reads
 * the real clock, so what it drives cannot depend on the machine's speed.
 */
import type { Clock } from '../../src/index.js';

interface Sleeper {
  readonly at: number;
  readonly wake: () => void;
}

export interface ManualClock extends Clock {
  /** Moves time forward by `ms` and wakes every sleeper whose end has come (in end order). */
  advance(ms: number): void;
  /** Moves time to `ms` (never backwards) and wakes the sleepers whose end has come. */
  set(ms: number): void;
  /** Sleepers still waiting. */
  readonly sleeping: number;
  /** The earliest end among the sleepers (undefined when none sleeps). */
  readonly nextWake: number | undefined;
  /** Calls `listener` whenever a sleeper starts waiting (for drivers that advance on demand). */
  onSleep(listener: () => void): void;
}

export function manualClock(start = Date.parse('2026-01-01T00:00:00Z')): ManualClock {
  let t = start;
  const sleepers: Sleeper[] = [];
  const listeners: Array<() => void> = [];
  const wakeDue = (): void => {
    const due = sleepers.filter((s) => s.at <= t).sort((a, b) => a.at - b.at);
    for (const s of due) sleepers.splice(sleepers.indexOf(s), 1);
    for (const s of due) s.wake();
  };
  return {
    now: () => t,
    sleep(ms, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as unknown);
      if (ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const i = sleepers.indexOf(sleeper);
          if (i !== -1) sleepers.splice(i, 1);
          reject(signal!.reason as unknown);
        };
        const sleeper: Sleeper = {
          at: t + ms,
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        sleepers.push(sleeper);
        signal?.addEventListener('abort', onAbort, { once: true });
        for (const l of listeners) l();
      });
    },
    advance(ms) {
      t += ms;
      wakeDue();
    },
    set(ms) {
      t = Math.max(t, ms);
      wakeDue();
    },
    get sleeping() {
      return sleepers.length;
    },
    get nextWake() {
      return sleepers.length === 0 ? undefined : Math.min(...sleepers.map((s) => s.at));
    },
    onSleep(listener) {
      listeners.push(listener);
    },
  };
}

/**
 * Moves `clock` to its next wake-up whenever a sleeper waits on it and `idle()` says that
 * nothing else is under way: a discrete-event driver for in-process tests. It checks after each
 * new sleeper and each `poke()` (call it when something the predicate reads has changed, e.g. an
 * attempt settled), once the callbacks already queued have run. Time therefore never moves while
 * work the predicate covers is in flight, however slow the machine.
 */
export function advanceWhenIdle(clock: ManualClock, idle: () => boolean): { poke(): void } {
  let scheduled = false;
  const check = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const next = clock.nextWake;
      if (next !== undefined && idle()) clock.set(next);
    });
  };
  clock.onSleep(check);
  return { poke: check };
}

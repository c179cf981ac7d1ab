/**
 * Time for tests, in one place. Two ways to hold it still, so that no outcome depends on the
 * machine's speed:
 *
 * - Fake globals, for tests that go through real sockets: vitest's fake `setTimeout`,
 *   `clearTimeout`, `Date` and `performance` (the monotonic clock of every wait) replace what the
 *   SDK waits on, while I/O stays real. `freezeClock` pins them at a known epoch (what a wait did
 *   is then read on the wire: each signed request's `x-timestamp`); `useFakeTime`, `stepper` and
 *   `hangDriver` move them on events the test awaits (a request reached the server, the client
 *   logged that it is about to sleep its backoff).
 * - An injected {@link Clock}, for code that takes one (the limiters, the gate, the stores):
 *   `manualClock` moves only when the test moves it, and `advanceWhenIdle` moves it to the next
 *   wake-up once nothing else is under way.
 *
 * Every helper that waits fails loudly instead of hanging: `until` after 30 s of real time, the
 * steppers on a backoff line they cannot read.
 */
import { vi } from 'vitest';
import type { Clock, LogFields, Logger } from '../../src/index.js';
import type { InjectedFault } from '../../src/testing/index.js';
import { RETRYING } from '../../src/core/attempts/retry.js';

// --- fake globals, frozen ------------------------------------------------------------------

/** A whole second on the fake clock (2026-01-01T00:00:00Z). */
export const EPOCH_MS = Date.UTC(2026, 0, 1);
export const EPOCH_S = EPOCH_MS / 1000;

/** Freezes the clock at `EPOCH_MS + offsetMs`. Undo with `vi.useRealTimers()`. */
export function freezeClock(offsetMs = 0): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: EPOCH_MS + offsetMs });
}

/** How long {@link until} lets real I/O run before it fails: a hang guard, never a speed bound. */
const UNTIL_GUARD_MS = 30_000;

/**
 * Lets real I/O run (setImmediate is not faked) until `done()` holds. Fails, naming `what`, when
 * it still does not hold after 30 s of real time (read from vitest's real clock, which fake time
 * does not move): a helper that waited forever would hang the suite instead of failing it.
 */
export async function until(done: () => boolean, what = 'the awaited condition'): Promise<void> {
  const started = vi.getRealSystemTime();
  while (!done()) {
    if (vi.getRealSystemTime() - started > UNTIL_GUARD_MS)
      throw new Error(`until: ${what} did not happen within ${UNTIL_GUARD_MS} ms of real time`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Seconds since `EPOCH_S` of a recorded request's `x-timestamp`. */
export function signedAt(req: { headers: Record<string, string> }): number {
  return Number(req.headers['x-timestamp']) - EPOCH_S;
}

/**
 * Whole seconds since `EPOCH_S` at which the wire server read a request: for requests that carry
 * no `x-timestamp`, such as the token exchange (unsigned).
 */
export function receivedAt(req: { receivedAt: number }): number {
  return Math.floor(req.receivedAt / 1000) - EPOCH_S;
}

// --- fake globals, moved on cue ------------------------------------------------------------

/** Fakes the timers, `Date` and `performance`; undo with `vi.useRealTimers()`. */
export function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
}

/** Moves fake time forward on cue, one step after another (steps never overlap). */
export interface Stepper {
  /** Queues a step of `ms` after the steps already queued. */
  step(ms: number): void;
  /** Resolves when every queued step has been taken. */
  idle(): Promise<void>;
  /**
   * A logger for the client: each `retrying` line (the client is about to sleep its backoff)
   * queues a step of that backoff, so the next attempt starts.
   */
  readonly logger: Logger;
}

/**
 * The backoff a `retrying` line announces. A line without one throws: a helper that moved time by
 * nothing would leave the client asleep, and the test would hang instead of failing.
 */
function backoffOf(fields: LogFields | undefined): number {
  const ms = fields?.['delayMs'];
  if (typeof ms !== 'number')
    throw new Error(`the client's ${RETRYING} line carries no delayMs: the fake-time helpers cannot follow its backoff`);
  return ms;
}

export function stepper(): Stepper {
  let chain: Promise<void> = Promise.resolve();
  const step = (ms: number): void => {
    chain = chain.then(() => vi.advanceTimersByTimeAsync(ms)).then(() => undefined);
  };
  return {
    step,
    idle: () => chain,
    logger: {
      warn(message: string, fields?: LogFields) {
        if (message === RETRYING) step(backoffOf(fields));
      },
    },
  };
}

/** A reply that never comes: the request is held until the test ends. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/** Drives a client through a `hang` fault on fake time (see {@link hangDriver}). */
export interface HangDriver {
  /** The client's logger (forwards every line to the one given to {@link hangDriver}). */
  readonly logger: Logger;
  /** Fakes time and starts driving the call(s) that meet `fault`. */
  start(fault: InjectedFault): void;
  /** Releases what `fault` still holds, waits until it is answered, and restores real time. */
  stop(): Promise<void>;
}

/**
 * Client timeouts without a race: the simulator holds each attempt a `hang` fault applies to,
 * and fake time moves by the client's `timeoutMs` only once that attempt has reached the
 * simulator (`waitForHits`), and by each backoff the client logs (`retrying`). When the client
 * retries after 409 in_progress, the held first run is released: it executes and stores its
 * outcome before the next attempt can arrive, so that attempt gets the stored result.
 */
export function hangDriver(timeoutMs: number, forward?: Logger): HangDriver {
  let run: { fault: InjectedFault; time: Stepper } | undefined;
  const stepOnHit = (current: { fault: InjectedFault; time: Stepper }, hit: number): void => {
    void current.fault.waitForHits(hit).then(() => {
      if (run !== current) return;
      current.time.step(timeoutMs);
      stepOnHit(current, hit + 1);
    });
  };
  const logger: Logger = {
    debug: (message, fields) => forward?.debug?.(message, fields),
    info: (message, fields) => forward?.info?.(message, fields),
    warn(message: string, fields?: LogFields) {
      forward?.warn?.(message, fields);
      if (message !== RETRYING || run === undefined) return;
      if (fields?.['reason'] === 'idempotency_in_progress') void run.fault.release();
      run.time.step(backoffOf(fields));
    },
    error: (message, fields) => forward?.error?.(message, fields),
  };
  return {
    logger,
    start(fault) {
      run = { fault, time: stepper() };
      useFakeTime();
      stepOnHit(run, fault.hits + 1);
    },
    async stop() {
      const current = run;
      if (current === undefined) return;
      run = undefined;
      await current.time.idle();
      await current.fault.release();
      vi.useRealTimers();
    },
  };
}

// --- an injected clock ---------------------------------------------------------------------

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

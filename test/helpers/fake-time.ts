/**
 * Fake time for tests that go through real sockets: vitest's fake `setTimeout`, `clearTimeout`,
 * `Date` and `performance` (the monotonic clock of every wait) replace what the SDK waits on (attempt timeouts, backoff, the 429 pause), while I/O
 * stays real. Time moves only when the test moves it, on events it awaits (a request reached
 * the server, the client logged that it is about to wait), so whether a timeout fires first or
 * a reply arrives first never depends on the machine's speed.
 */
import { vi } from 'vitest';
import type { LogFields, Logger } from '../../src/index.js';
import type { InjectedFault } from '../../src/testing/index.js';

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
        if (message === 'retrying') step(Number(fields?.['delayMs'] ?? 0));
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
      if (message !== 'retrying' || run === undefined) return;
      if (fields?.['reason'] === 'idempotency_in_progress') void run.fault.release();
      run.time.step(Number(fields?.['delayMs'] ?? 0));
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

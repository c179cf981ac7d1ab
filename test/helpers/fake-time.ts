/**
 * Fake time for tests that go through real sockets: vitest's fake `setTimeout`, `clearTimeout`
 * and `Date` replace what the SDK waits on (attempt timeouts, backoff, the 429 pause), while I/O
 * stays real. Time moves only when the test moves it, on events it awaits (a request reached
 * the server, the client logged that it is about to wait), so whether a timeout fires first or
 * a reply arrives first never depends on the machine's speed.
 */
import { vi } from 'vitest';
import type { LogFields, Logger } from '../../src/index.js';

/** Fakes the timers and `Date`; undo with `vi.useRealTimers()`. */
export function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
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

/**
 * A frozen clock for wire tests of waits: `setTimeout`, `Date` and `performance` (the monotonic
 * clock the SDK's waits are measured on) are faked (vitest), so time moves only when the test
 * advances it, while sockets stay real. What a wait did is read on the wire:
 * each signed request carries `x-timestamp`, the client's clock when it signed, so a retry sent
 * after a 60-second wait carries a timestamp 60 seconds after the first attempt's, however slow
 * the machine is.
 */
import { vi } from 'vitest';

/** A whole second on the fake clock (2026-01-01T00:00:00Z). */
export const EPOCH_MS = Date.UTC(2026, 0, 1);
export const EPOCH_S = EPOCH_MS / 1000;

/** Freezes the clock at `EPOCH_MS + offsetMs`. Undo with `vi.useRealTimers()`. */
export function freezeClock(offsetMs = 0): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: EPOCH_MS + offsetMs });
}

/** Lets real I/O run (setImmediate is not faked) until `done()` holds. */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
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

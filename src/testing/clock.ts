/**
 * The sandbox's clock. Every time-based rule of the simulator reads it: token expiry, the
 * ±300 s timestamp window, the 5-minute nonce window, the 24-hour idempotency window, the
 * 4-hour reconfirmation window, rate-limit windows, cursor expiry and the `Date` header.
 */
export interface SandboxClock {
  /** Current sandbox time in Unix milliseconds. */
  now(): number;
  /** Moves sandbox time forward (or back, with a negative value) by `ms`. */
  advance(ms: number): void;
  /** Sets sandbox time to `ms` (Unix milliseconds); it keeps flowing from there unless frozen. */
  set(ms: number): void;
  /** Stops sandbox time at `ms` (default: now) until `advance`, `set` or `unfreeze`. */
  freeze(ms?: number): void;
  /** Lets frozen sandbox time flow again from where it stopped. */
  unfreeze(): void;
}

/** Internal clock with a change hook, so time-driven state (expiries) is swept when moved. */
export interface InternalClock extends SandboxClock {
  onChange(listener: () => void): void;
}

/**
 * Creates a clock that follows `source` (default `Date.now`) plus an offset, so tests can move
 * time without fake timers and without touching the process clock.
 */
export function createClock(source: () => number = Date.now): InternalClock {
  let offset = 0;
  let frozenAt: number | undefined;
  const listeners: Array<() => void> = [];
  const changed = (): void => {
    for (const l of listeners) l();
  };
  const now = (): number => frozenAt ?? source() + offset;
  return {
    now,
    advance(ms) {
      if (frozenAt !== undefined) frozenAt += ms;
      else offset += ms;
      changed();
    },
    set(ms) {
      if (frozenAt !== undefined) frozenAt = ms;
      else offset = ms - source();
      changed();
    },
    freeze(ms) {
      frozenAt = ms ?? now();
      changed();
    },
    unfreeze() {
      if (frozenAt === undefined) return;
      offset = frozenAt - source();
      frozenAt = undefined;
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

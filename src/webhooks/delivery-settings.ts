import type { Logger } from '../core/telemetry/logger.js';
import type { EventStore } from './event-store.js';
import type { WebhookEvent } from './events.js';
import { DELIVERY_TIMEOUT_MS, type WebhookEventContext } from './handler-options.js';

/** The receiver's settings, checked once at creation, as each delivery step reads them. */
export interface Settings {
  readonly onEvent: (event: WebhookEvent, context: WebhookEventContext) => void | Promise<void>;
  readonly store: EventStore;
  readonly timeoutMs: number;
  /**
   * When a delivery is answered at the latest, from its arrival: `timeoutMs` plus the margin of
   * the commit that ends it (see {@link answerMarginMs}).
   */
  readonly answerByMs: number;
  readonly warnAfterMs: number;
  readonly claimTtlMs: number;
  readonly logger: Logger | undefined;
}

/** An error as one log line: name and message, never a stack or a body. */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

/**
 * The time the store's last step (a `COMMIT` after an `onEvent` that ended just in time, a lock
 * wait's answer) may take past `timeoutMs`: 1 second, never past the service's 10 seconds.
 */
export function answerMarginMs(timeoutMs: number): number {
  return Math.max(0, Math.min(1000, DELIVERY_TIMEOUT_MS - timeoutMs));
}

/**
 * One timer per delivery, from its arrival: it aborts when the delivery must be answered, which
 * ends every wait of the store (a connection, each statement, the commit) still in flight.
 */
export function answerTimer(s: Settings, startedAt: number): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const left = Math.max(0, startedAt + s.answerByMs - performance.now());
  const timer = setTimeout(
    () => controller.abort(new Error(`no answer from the event store within the delivery's time (${s.answerByMs} ms)`)),
    left,
  );
  return { signal: controller.signal, dispose: () => clearTimeout(timer) };
}

/**
 * `work`, or a rejection once `signal` aborts first (the delivery must be answered); `late`
 * receives what `work` gives after that (a claim to give back).
 */
export function beforeAnswer<R>(signal: AbortSignal, work: Promise<R>, late?: (value: R) => unknown): Promise<R> {
  let answered = false;
  // A rejection of `work` is the caller's (the race below); a late value is `late`'s, if any.
  void work
    .then(async (value) => {
      if (answered && late !== undefined) await late(value);
    })
    .catch(() => undefined);
  if (signal.aborted) {
    answered = true;
    return Promise.reject(signal.reason as Error);
  }
  let onAbort: (() => void) | undefined;
  const expiry = new Promise<never>((_, reject) => {
    onAbort = () => {
      answered = true;
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([work, expiry]).finally(() => signal.removeEventListener('abort', onAbort!));
}

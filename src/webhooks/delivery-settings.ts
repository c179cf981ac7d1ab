import type { Logger } from '../core/telemetry/logger.js';
import type { EventStore } from './event-store.js';
import type { WebhookEvent } from './events.js';
import type { WebhookEventContext } from './handler-options.js';

/** The receiver's settings, checked once at creation, as each delivery step reads them. */
export interface Settings {
  readonly onEvent: (event: WebhookEvent, context: WebhookEventContext) => void | Promise<void>;
  readonly store: EventStore;
  readonly timeoutMs: number;
  readonly warnAfterMs: number;
  readonly claimTtlMs: number;
  readonly logger: Logger | undefined;
}

/** An error as one log line: name and message, never a stack or a body. */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}

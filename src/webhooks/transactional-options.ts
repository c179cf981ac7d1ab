import type { TransactionalEventStore } from './event-store.js';
import type { WebhookEvent } from './events.js';
import type { WebhookEventContext, WebhookHandlerOptions } from './handler-options.js';

/**
 * What `onEvent` receives with a {@link TransactionalEventStore} (`PostgresEventStore`): the
 * context, and the transaction that marks the event processed.
 */
export interface TransactionalEventContext<T> extends WebhookEventContext {
  /**
   * A database client inside the transaction that holds the event's processed mark: write the
   * event's effects through it, and they commit together with the mark once `onEvent` resolves,
   * or roll back with it when `onEvent` throws or the commit fails (the delivery is then answered
   * non-2xx and processed again on redelivery). Do not commit, roll back or release it yourself,
   * and do not use it after `onEvent` settles.
   */
  readonly transaction: T;
}

/**
 * Settings of {@link createWebhookHandler} with a {@link TransactionalEventStore}: those of
 * {@link WebhookHandlerOptions}, and `onEvent` receives `context.transaction`.
 */
export interface TransactionalWebhookHandlerOptions<T> extends Omit<WebhookHandlerOptions, 'onEvent' | 'store'> {
  /**
   * Processes one event inside the transaction of `context.transaction`: its writes through that
   * transaction commit exactly once per `event_id`, together with the event's processed mark.
   */
  readonly onEvent: (event: WebhookEvent, context: TransactionalEventContext<T>) => void | Promise<void>;
  /** The store that opens the transaction (`PostgresEventStore` of `merchant-stablecoin/postgres`). */
  readonly store: TransactionalEventStore<T>;
}

import { log } from '../core/telemetry/logger.js';
import { type Settings, beforeAnswer, errorText } from './delivery-settings.js';
import { WebhookTimeoutError } from './errors.js';
import { isTransactional, type TransactionalEndOptions } from './event-store.js';
import type { WebhookEvent } from './events.js';
import { respond, type WebhookResponse } from './responses.js';

/**
 * A claim this delivery holds while `onEvent` runs: how to record the event as processed, how to
 * give it up, and the transaction `onEvent` writes through (transactional stores only).
 */
export interface HeldClaim {
  readonly transaction: unknown;
  /**
   * Records the event as processed; `late`: after the delivery was answered 503. False when it is
   * not known to be recorded with its effects (a transaction that did not commit, or whose commit
   * did not answer before `answer` aborted): the delivery is then answered 503, and the redelivery
   * processes it or finds it done. Without `answer` (late), the store's own timeout bounds it.
   */
  complete(late: boolean, answer?: AbortSignal): Promise<boolean>;
  /** Gives the claim up after `onEvent` failed, so that the redelivery is processed; waits no longer than `answer`. */
  release(error: unknown, late: boolean, answer?: AbortSignal): Promise<void>;
}

const NOT_RECORDED = 'The receiver could not record the event; deliver again.';

/**
 * Claims the event in the store: the claim held, or the answer to give without processing (a
 * duplicate 200, in progress 409, a store that cannot answer 503).
 */
export async function claimEvent(
  s: Settings,
  event: WebhookEvent,
  startedAt: number,
  answer: AbortSignal,
): Promise<HeldClaim | WebhookResponse> {
  const fields = { eventId: event.event_id, eventType: event.event_type };
  let claim: unknown;
  let held: HeldClaim | undefined;
  try {
    const store = s.store;
    if (isTransactional(store)) {
      // Waits for another delivery's transaction no longer than this delivery has left; every
      // other wait of the claim ends when the delivery must be answered.
      const waitMs = Math.max(1, Math.floor(startedAt + s.timeoutMs - performance.now()));
      const pending = store.claimInTransaction(event.event_id, { ttlMs: s.claimTtlMs, waitMs, signal: answer });
      // A store that ignores the signal: a claim it gives after the answer is rolled back.
      const tx = await beforeAnswer(answer, pending, (late) => late.result === 'claimed' && late.rollback());
      claim = tx.result;
      if (tx.result === 'claimed') held = transactionClaim(s, event, tx);
    } else {
      const pending = Promise.resolve(store.claim(event.event_id, s.claimTtlMs));
      claim = await beforeAnswer(answer, pending, (late) => late === 'claimed' && store.release(event.event_id));
      if (claim === 'claimed') held = plainClaim(s, event);
    }
  } catch (err) {
    log(
      s.logger,
      'warn',
      `webhooks: the event store could not answer; answered 503 without processing, so that the service delivers the event again: ${errorText(err)}`,
      fields,
    );
    return respond('store_error', NOT_RECORDED, event);
  }
  if (held !== undefined) return held;
  if (claim === 'duplicate') {
    log(s.logger, 'debug', 'webhooks: duplicate delivery acknowledged without processing', fields);
    return respond('duplicate', undefined, event);
  }
  if (claim === 'in_progress') {
    log(s.logger, 'info', 'webhooks: event already being processed; answered 409 so that the service retries later', fields);
    return respond('in_progress', 'The event is being processed; deliver again later.', event);
  }
  log(
    s.logger,
    'error',
    `webhooks: event store claim returned ${JSON.stringify(claim)}, expected 'claimed', 'duplicate' or 'in_progress'`,
    fields,
  );
  return respond('store_error', NOT_RECORDED, event);
}

/** A claim of {@link EventStore.claim}: `complete` after, `release` on failure. */
function plainClaim(s: Settings, event: WebhookEvent): HeldClaim {
  const fields = { eventId: event.event_id, eventType: event.event_type };
  return {
    transaction: undefined,
    async complete(late, answer) {
      try {
        const done = Promise.resolve(s.store.complete(event.event_id));
        await (answer === undefined ? done : beforeAnswer(answer, done));
        log(s.logger, late ? 'warn' : 'debug', late ? `webhooks: ${LATE_DONE}` : 'webhooks: event processed', fields);
      } catch (err) {
        // The work is done; acknowledging is still right. A redelivery may be processed again.
        log(s.logger, 'error', `webhooks: event processed but the store could not record it: ${errorText(err)}`, fields);
      }
      return true;
    },
    async release(error, late, answer) {
      logRelease(s, event, error, late);
      try {
        const done = Promise.resolve(s.store.release(event.event_id));
        await (answer === undefined ? done : beforeAnswer(answer, done));
      } catch (err) {
        log(s.logger, 'error', `webhooks: could not release the claim (it frees when its lease expires): ${errorText(err)}`, fields);
      }
    },
  };
}

/** A transactional claim: the mark and `onEvent`'s writes commit together, or roll back together. */
function transactionClaim(
  s: Settings,
  event: WebhookEvent,
  tx: {
    transaction: unknown;
    commit(options?: TransactionalEndOptions): Promise<void>;
    rollback(options?: TransactionalEndOptions): Promise<void>;
  },
): HeldClaim {
  const fields = { eventId: event.event_id, eventType: event.event_type };
  return {
    transaction: tx.transaction,
    async complete(late, answer) {
      try {
        // Before the answer: no longer than the delivery's time (an unanswered COMMIT is a 503).
        await (answer === undefined ? tx.commit() : beforeAnswer(answer, tx.commit({ signal: answer })));
      } catch (err) {
        log(
          s.logger,
          'warn',
          `webhooks: the transaction of the event did not commit (its effects with it, or, if its answer was lost, both committed); answered 503 so that the service delivers it again, which processes it or finds it done: ${errorText(err)}`,
          fields,
        );
        return false;
      }
      log(s.logger, late ? 'warn' : 'debug', late ? `webhooks: ${LATE_DONE}` : 'webhooks: event processed and committed', fields);
      return true;
    },
    async release(error, late, answer) {
      logRelease(s, event, error, late);
      const done = answer === undefined ? tx.rollback() : tx.rollback({ signal: answer });
      await (answer === undefined ? done : beforeAnswer(answer, done).catch(() => undefined));
    },
  };
}

const LATE_DONE = 'onEvent finished after the delivery was answered 503; recorded as processed';

function logRelease(s: Settings, event: WebhookEvent, error: unknown, late: boolean): void {
  const fields = { eventId: event.event_id, eventType: event.event_type };
  if (error instanceof WebhookTimeoutError)
    log(s.logger, 'info', 'webhooks: onEvent stopped on its abort signal; claim released so that the redelivery is processed', fields);
  else
    log(
      s.logger,
      'error',
      `webhooks: onEvent failed${late ? ' after the delivery timed out' : ''}; claim released so that the redelivery is processed: ${errorText(error)}`,
      fields,
    );
}

import { log } from '../core/telemetry/logger.js';
import type { HeldClaim } from './delivery-claim.js';
import type { Settings } from './delivery-settings.js';
import { WebhookTimeoutError } from './errors.js';
import type { WebhookEvent } from './events.js';
import type { WebhookHeaderMap } from './headers.js';
import { respond, type WebhookResponse } from './responses.js';

/**
 * Runs `onEvent` within the receiver's bound, with the claim held: 200 once the claim is
 * completed, 500 after a failure (claim released), 503 on timeout (the claim then completed or
 * released when `onEvent` settles late) or when a transactional claim did not commit. The commit
 * or rollback before the answer waits no longer than `at.answer` (the delivery's time).
 */
export async function runOnEvent(
  s: Settings,
  event: WebhookEvent,
  headers: WebhookHeaderMap,
  held: HeldClaim,
  at: { readonly startedAt: number; readonly answer: AbortSignal },
): Promise<WebhookResponse> {
  const { startedAt, answer } = at;
  const fields = { eventId: event.event_id, eventType: event.event_type };
  // On the monotonic clock: a wall-clock step (NTP, a resumed VM) never moves the bound.
  const deadline = startedAt + s.timeoutMs;
  const controller = new AbortController();
  // Shown to onEvent as epoch ms (what its own clock reads); nothing here waits on it.
  const wallDeadline = Date.now() + Math.max(0, Math.round(deadline - performance.now()));
  const context = { signal: controller.signal, headers, deadline: wallDeadline };
  // The transaction is shown only when the store gave one: the context stays as it was otherwise.
  if (held.transaction !== undefined) Object.assign(context, { transaction: held.transaction });
  const run = (async () => s.onEvent(event, context))();
  const settled = run.then(
    () => ({ ok: true as const }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expiry = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - performance.now()));
  });
  const result = await Promise.race([settled, expiry]);
  clearTimeout(timer);

  if (result === 'timeout') {
    controller.abort(new WebhookTimeoutError(s.timeoutMs));
    log(
      s.logger,
      'error',
      `webhooks: onEvent did not finish within ${s.timeoutMs} ms (the service times out at 10 s); answered 503 so that the service retries. Move slow work to a queue.`,
      { ...fields, durationMs: Math.round(performance.now() - startedAt) },
    );
    // Settle the claim when onEvent does (never before: a transaction must not end under it).
    void settled.then(async (late) => {
      if (late.ok) await held.complete(true);
      else await held.release(late.error, true);
    });
    return respond('timeout', `Processing exceeded ${s.timeoutMs} ms; deliver again.`, event);
  }
  if (!result.ok) {
    await held.release(result.error, false, answer);
    return respond('failed', 'The receiver failed to process the event; deliver again.', event);
  }
  const durationMs = Math.round(performance.now() - startedAt);
  if (durationMs >= s.warnAfterMs) {
    log(
      s.logger,
      'warn',
      `webhooks: onEvent took ${durationMs} ms, close to the bound of ${s.timeoutMs} ms (the service times out at 10 s). Move slow work to a queue.`,
      { ...fields, durationMs },
    );
  }
  if (!(await held.complete(false, answer)))
    return respond('store_error', 'The receiver could not record the event; deliver again.', event);
  return respond('processed', undefined, event);
}

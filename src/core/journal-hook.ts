import type { EndpointDescriptor } from '../spec/endpoint.js';
import type { RetryClass } from '../spec/error-codes.js';
import type { PreparedCall } from './call.js';
import { deadlineText, stripQuery } from './call-errors.js';
import type { CallBudget } from './attempt-runner.js';
import { DeadlinePassed, waitsUntil } from './deadline.js';
import {
  AbortError,
  AcceptedButUnreadableError,
  ApiError,
  CallInterruptedError,
  MerchantSdkError,
  TimeoutError,
  withCallState,
} from './errors.js';
import type { IntentJournal, JournalIntent } from './journal.js';
import { log, type Logger } from './logger.js';
import { lockoutStopped, type RetryRules } from './retry-policy.js';
import { abortable } from './sleep.js';

/**
 * The calls the journal covers: those the endpoint table flags as taking a key and moving funds,
 * and those {@link neverResent} (a card activation: reported after a crash, never resent). Raw
 * `client.request()` calls are not covered.
 */
export function journaled(endpoint: EndpointDescriptor<unknown>): boolean {
  return endpoint.idempotent && endpoint.id !== 'request' && (endpoint.movesFunds || neverResent(endpoint));
}

/**
 * Whether `recover()` must never send an intent of this endpoint again: the service counts its
 * failures against the customer (`lockout`: a resend could be one more counted failure, which
 * the key cannot stop), or its body holds a secret (`secretFields`: the PIN is never written, so
 * there is nothing to resend). Such an intent keeps no body and is reported for a state check.
 */
export function neverResent(endpoint: EndpointDescriptor<unknown>): boolean {
  return endpoint.lockout !== undefined || endpoint.secretFields !== undefined;
}

/**
 * Wall-clock time in Unix ms, for the journal only: an intent's `createdAt` and the recovering
 * process's "now" are compared across processes and hosts with the service's 24-hour window, and
 * the wall clock is the only clock that survives a process (monotonic clocks start anew in each).
 */
export function wallClockNow(): number {
  return Date.now();
}

/** Classes of answers given before the service looks at the key (authentication, quota). */
const BEFORE_KEY_CLASSES: ReadonlySet<RetryClass> = new Set(['reauth', 'fatal', 'after_wait']);
/** Codes that may come before the key too (permission, route, member lookup). */
const BEFORE_KEY_CODES: ReadonlySet<string> = new Set([
  'insufficient_scope',
  'ip_not_allowed',
  'merchant_disabled',
  'member_not_found',
  'member_context_required',
  'not_found',
]);

/**
 * Whether a failed call's outcome is definitive, so that its intent is settled rather than left
 * for `recover()`: nothing left the client; a 2xx arrived (the money moved, only the body was
 * unreadable); or the service's own answer to this call is final for its key: any answer but a
 * `same_key` one (5xx, 409 in progress, an unknown code). An answer the service may give before
 * it looks at the key (401, 403, 429, route or member lookup) is final only when it answered the
 * call's single attempt: after an earlier, ambiguous attempt it says nothing of that one.
 *
 * Answers that are final without being stored under the key (`service_unavailable` on
 * conversions, a 401) settle too: the caller was told the operation did not run, and may act on
 * that with a new key; a recovery sending it again later would run it behind the caller's back.
 *
 * On an endpoint with a `lockout` (card activation), the answers its rules stop only because a
 * resend could count again (a 500, a 409 in progress, an unknown code: `retryClass` `never` there)
 * leave the outcome unknown, as an `OutcomeUnknownError` does: the intent stays open, and
 * `recover()` reports it for a check of the card without sending it.
 */
export function settles(err: unknown, rules: RetryRules = {}): boolean {
  if (!(err instanceof MerchantSdkError) || err.call === undefined) return false;
  const { call } = err;
  if (call.sent === 'no' || err instanceof AcceptedButUnreadableError) return true;
  // The call's own last answer (same status and X-Request-Id), not a token exchange's after it.
  if (!(err instanceof ApiError) || err.status !== call.status || err.headers['x-request-id'] !== call.requestId) return false;
  if (err.retryClass === 'same_key' || lockoutStopped(err.code as string, err.status, rules)) return false;
  return call.attempts <= 1 || !(BEFORE_KEY_CLASSES.has(err.retryClass) || BEFORE_KEY_CODES.has(err.code as string));
}

/**
 * The journal in the call path (`Pipeline`): records a covered call before its first byte is
 * sent, settles it once its outcome is definitive, and leaves it open otherwise.
 */
export class JournalHook {
  readonly journal: IntentJournal;
  readonly #scope: string | Promise<string>;
  readonly #logger: Logger | undefined;

  constructor(journal: IntentJournal, scope: string | Promise<string>, logger: Logger | undefined) {
    this.journal = journal;
    this.#scope = scope;
    this.#logger = logger;
  }

  /** The client's scope: a digest of its base URL and client id. */
  scope(): string | Promise<string> {
    return this.#scope;
  }

  /**
   * Runs `send` with `call` recorded before and settled after, when its outcome is definitive.
   * The record is one of the call's waits: the call's deadline (from `call.startedAt`, of
   * `budget`) and its signal end it, and the call then fails without sending.
   */
  async track<R>(call: PreparedCall, endpoint: EndpointDescriptor<unknown>, budget: CallBudget, send: () => Promise<R>): Promise<R> {
    const intent = intentOf(call, endpoint, await this.#scope);
    await this.#record(intent, call, budget);
    let result: R;
    try {
      result = await send();
    } catch (err) {
      if (settles(err, endpoint)) await this.settle(intent);
      throw err;
    }
    await this.settle(intent);
    return result;
  }

  /** Records `intent` before the call is sent; on failure the call ends with nothing sent. */
  async #record(intent: JournalIntent, call: PreparedCall, budget: CallBudget): Promise<void> {
    const deadline = (call.startedAt ?? performance.now()) + budget.timeoutMs * (budget.maxRetries + 1);
    const waits = waitsUntil(deadline, call.options?.signal);
    try {
      await abortable(Promise.resolve(this.journal.record(intent)), waits.signal, () => undefined);
    } catch (err) {
      // A record that failed late (a timed-out write that still lands) must not stay open.
      void this.settle(intent);
      log(this.#logger, 'warn', 'journal: the intent could not be recorded; the call was not sent', fieldsOf(intent));
      throw withCallState(recordFailure(err, call, budget, waits.signal), {
        idempotencyKey: intent.key,
        sent: 'no',
        status: undefined,
        requestId: undefined,
        attempts: 0,
      });
    } finally {
      waits.dispose();
    }
  }

  /**
   * Settles `intent`; a failure is logged, not thrown: the outcome is known to the caller, and
   * the intent, left open, is only replayed by a later `recover()` (same key, same answer).
   */
  async settle(intent: JournalIntent): Promise<boolean> {
    try {
      await this.journal.settle(intent.scope, intent.key);
      return true;
    } catch {
      log(this.#logger, 'warn', 'journal: the intent could not be settled; recover() will replay it', fieldsOf(intent));
      return false;
    }
  }
}

/** Why a record did not happen: the call's deadline, its caller's abort, or the journal's own error. */
function recordFailure(err: unknown, call: PreparedCall, budget: CallBudget, waits: AbortSignal): MerchantSdkError {
  if (waits.aborted && waits.reason instanceof DeadlinePassed) {
    return new TimeoutError(
      `The call's deadline (${deadlineText(budget)}) passed while the intent journal recorded it, so nothing was sent (${call.method} ${stripQuery(call.path)}).`,
      call.idempotencyKey,
      0,
    );
  }
  if (waits.aborted) return new AbortError(call.idempotencyKey, { cause: waits.reason });
  return new CallInterruptedError('The intent journal could not record the call, so nothing was sent.', { cause: err });
}

/** The intent of a prepared call: its exact bytes, or none when it is never to be resent. */
function intentOf(call: PreparedCall, endpoint: EndpointDescriptor<unknown>, scope: string): JournalIntent {
  const withheld = neverResent(endpoint);
  return Object.freeze({
    key: call.idempotencyKey!,
    scope,
    endpoint: endpoint.id,
    method: call.method,
    path: call.path,
    body: withheld || call.body === undefined ? null : new TextDecoder().decode(call.body),
    withheld,
    member: call.member ?? null,
    createdAt: wallClockNow(),
  });
}

/** What a log line says of an intent: never its body or member. */
export function fieldsOf(intent: JournalIntent): Record<string, string> {
  return {
    endpoint: intent.endpoint,
    method: intent.method,
    idempotencyKey: intent.key,
    recordedAt: new Date(intent.createdAt).toISOString(),
  };
}

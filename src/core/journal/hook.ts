import type { EndpointDescriptor } from '../../facts/endpoint.js';
import type { PreparedCall } from '../call/call.js';
import { stripQuery } from '../attempts/call-errors.js';
import { deadlineText } from '../time/deadline.js';
import { callDeadline, DeadlinePassed, waitsUntil, type CallBudget } from '../time/deadline.js';
import { AbortError, CallInterruptedError, type MerchantSdkError, OutcomeUnknownError, TimeoutError } from '../errors/errors.js';
import { withCallState, type CallState } from '../errors/call-state.js';
import type { IntentJournal, JournalIntent } from './intent-journal.js';
import { neverResent, settles, storedUnderKey } from './rules.js';
import { log, type Logger } from '../telemetry/logger.js';
import { abortable } from '../time/sleep.js';

/**
 * Wall-clock time in Unix ms, for the journal only: an intent's `createdAt` and the recovering
 * process's "now" are compared across processes and hosts with the service's 24-hour window, and
 * the wall clock is the only clock that survives a process (monotonic clocks start anew in each).
 */
export function wallClockNow(): number {
  return Date.now();
}

/** What a caller does when the journal may still send a call it was told did not run. */
const UNKNOWN_REMEDY =
  ' Treat the outcome as unknown: call again with the same idempotencyKey, which finishes it exactly once whether or not recover() also sends it (the service executes a key once); never make it again with a new key.';

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
   *
   * "Not sent" and every failure that lets the caller make the operation again with a new key are
   * said only once the intent is gone from the journal: when it cannot be removed, a later
   * `recover()` could still send it, and the caller is told the outcome is unknown instead.
   */
  async track<R>(call: PreparedCall, endpoint: EndpointDescriptor<unknown>, budget: CallBudget, send: () => Promise<R>): Promise<R> {
    const intent = intentOf(call, endpoint, await this.#scope);
    await this.#record(intent, call, budget);
    let result: R;
    try {
      result = await send();
    } catch (err) {
      if (!settles(err, endpoint)) throw err;
      // An answer the service keeps under the key is the caller's whatever the settle does, so
      // its settle waits no longer than the call's deadline. Any other waits for the journal's
      // answer (its statement timeout): cut short, a "not sent" would become an unknown outcome.
      const settled = storedUnderKey(err, endpoint) ? await this.#settleInTime(intent, call, budget) : await this.settle(intent);
      if (settled) throw err;
      throw this.#stillOpen(err as MerchantSdkError, intent, endpoint);
    }
    // The result is the caller's: the settle waits no longer than the call's deadline (left open,
    // the intent is resent by a later recover() and the service replays this same result).
    if (!(await this.#settleInTime(intent, call, budget)))
      log(
        this.#logger,
        'warn',
        'journal: the call succeeded but its intent could not be settled; a later recover() sends it again with its key and the service replays this same result',
        fieldsOf(intent),
      );
    return result;
  }

  /**
   * Records `intent` before the call is sent. When that fails, the call ends unsent: as "not sent"
   * once the intent is known to be absent (the journal refused the write, or the clearing settle
   * went through), else as an outcome unknown (the write may have landed, and `recover()` may send it).
   */
  async #record(intent: JournalIntent, call: PreparedCall, budget: CallBudget): Promise<void> {
    const deadline = callDeadline(call.startedAt ?? performance.now(), budget);
    const waits = waitsUntil(deadline, call.options?.signal);
    try {
      await abortable(Promise.resolve(this.journal.record(intent)), waits.signal, () => undefined);
    } catch (err) {
      const failure = recordFailure(err, call, budget, waits.signal);
      const refused = err !== waits.signal.reason && (err as { executed?: unknown } | null)?.executed === false;
      if (refused || (await this.#clear(intent, waits.signal))) {
        log(this.#logger, 'warn', 'journal: the intent could not be recorded; the call was not sent', fieldsOf(intent));
        throw withCallState(failure, unsent(intent, 'no'));
      }
      log(
        this.#logger,
        'warn',
        'journal: the intent could not be recorded, and may have been written all the same (it could not be cleared); the call was not sent by this process, but a later recover() may send it with its key: the outcome is unknown',
        fieldsOf(intent),
      );
      const unknown = new OutcomeUnknownError(
        `The intent journal could not record the call, nor confirm that it holds no record of it (${call.method} ${stripQuery(call.path)}): nothing was sent by this call, but a later recover() may send it with its idempotency key.${UNKNOWN_REMEDY}`,
        { cause: failure, idempotencyKey: intent.key },
      );
      throw withCallState(unknown, unsent(intent, 'maybe'));
    } finally {
      waits.dispose();
    }
  }

  /** Settles `intent` within the call's deadline (not its signal: the service has answered). */
  async #settleInTime(intent: JournalIntent, call: PreparedCall, budget: CallBudget): Promise<boolean> {
    const waits = waitsUntil(callDeadline(call.startedAt ?? performance.now(), budget), undefined);
    try {
      return await this.#clear(intent, waits.signal);
    } finally {
      waits.dispose();
    }
  }

  /**
   * Settles an intent whose record failed. Within the call's deadline and signal; once they are
   * over, a journal that answers at once (in memory) still clears, any other counts as not cleared.
   */
  #clear(intent: JournalIntent, waits: AbortSignal): Promise<boolean> {
    const cleared = this.settle(intent);
    if (waits.aborted) return Promise.race([cleared, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 0))]);
    return abortable(cleared, waits, () => undefined).catch(() => false);
  }

  /**
   * The error of a failed call whose intent could not be settled. An answer the service keeps
   * under the key is the caller's as it is: a later resend only gets it again. Any other (nothing
   * sent, an answer given before the key was read, one the endpoint does not cache) would let the
   * caller make the operation again while `recover()` may still send this one: the outcome is unknown.
   */
  #stillOpen(err: MerchantSdkError, intent: JournalIntent, endpoint: EndpointDescriptor<unknown>): MerchantSdkError {
    if (storedUnderKey(err, endpoint)) {
      log(
        this.#logger,
        'warn',
        'journal: the intent of a failed call could not be settled; a later recover() sends it again with its key and the service answers the same (it keeps the answer under the key)',
        fieldsOf(intent),
      );
      return err;
    }
    log(
      this.#logger,
      'warn',
      'journal: the call did not run, but its intent could not be settled; a later recover() may still send it with its key: the outcome is unknown',
      fieldsOf(intent),
    );
    const unknown = new OutcomeUnknownError(
      `${err.name} ended the call (${intent.method} ${stripQuery(intent.path)}) before it ran, but its intent could not be removed from the intent journal, so a later recover() may still send it with its idempotency key.${UNKNOWN_REMEDY}`,
      { cause: err, idempotencyKey: intent.key },
    );
    return withCallState(unknown, { ...err.call!, sent: 'maybe' });
  }

  /** Settles `intent`: true once the journal confirmed it, false when it failed (the caller says what follows). */
  async settle(intent: JournalIntent): Promise<boolean> {
    try {
      await this.journal.settle(intent.scope, intent.key);
      return true;
    } catch {
      return false;
    }
  }
}

/** The state of a call that ended before its first attempt. */
function unsent(intent: JournalIntent, sent: 'no' | 'maybe'): CallState {
  return { idempotencyKey: intent.key, sent, status: undefined, requestId: undefined, attempts: 0 };
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

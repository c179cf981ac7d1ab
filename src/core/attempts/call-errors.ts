import type { Lockout } from '../../facts/endpoint.js';
import type { PreparedCall } from '../call/call.js';
import { type CallRun, type Failed } from './call-run.js';
import {
  AbortError,
  AcceptedButUnreadableError,
  CallInterruptedError,
  ConnectionError,
  MalformedResponseError,
  MerchantSdkError,
  OutcomeUnknownError,
  RedirectRefusedError,
  TimeoutError,
} from '../errors/errors.js';
import { ApiError } from '../errors/api-error.js';
import type { CallState } from '../errors/call-state.js';
import { printable } from '../text.js';
import { callBudgetMs } from '../time/deadline.js';
import type { Redactor } from '../telemetry/redactor.js';
import { outcomeUnknown, type AttemptFailure } from './retry-policy.js';
import { lockoutStopped, retryClassFor, type RetryRules } from '../errors/retry-class.js';
import { AttemptTimeoutError, RedirectError, ResponseTooLargeError } from '../transport/transport.js';
import { AttemptRefusedError, InterceptorUnsupportedError } from '../transport/transport.js';

/** The SDK error for a transport's rejection of one attempt (server text already redacted). */
export function transportError(err: unknown, p: CallRun, redactor: Redactor): Error {
  const { call, signal } = p;
  const what = `${call.method} ${stripQuery(call.path)}`;
  const cause = sanitize(err, p, redactor);
  if (signal?.aborted) return new AbortError(call.idempotencyKey, { cause: signal.reason });
  // The deadline is the SDK's own: there is no foreign error to keep as a cause. An attempt's
  // limit is timeoutMs, or what is left of the call's deadline when that is less: the message
  // states both, whichever ran out.
  if (err instanceof AttemptTimeoutError) {
    const budget = `timeoutMs ${p.timeoutMs} per attempt, ${callBudgetMs(p)} ms for the call`;
    return new TimeoutError(`No complete response in time (${budget}) (${what}).`, call.idempotencyKey, p.attempt);
  }
  if (err instanceof RedirectError) {
    // A 3xx, even one a dispatcher followed (its status unseen here), is the service's answer.
    p.answered(err.status, undefined);
    return new RedirectRefusedError(err.status, err.locationOrigin, call.idempotencyKey);
  }
  if (err instanceof ResponseTooLargeError) return tooLarge(err, p, redactor, what);
  // A test's interceptor refused it (msw, no handler matched): its error is the cause, as it came.
  if (err instanceof AttemptRefusedError) return refused(err, p, redactor, what);
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new ConnectionError(`Connection to the service failed (${what}): ${printable(reason)}`, call.idempotencyKey, p.attempt, { cause });
}

/**
 * Never retried (it would be refused again, and msw would report it again): raised at once as
 * the error of a step outside the SDK, with msw's error (secrets masked) as the cause.
 */
function refused(err: AttemptRefusedError, p: CallRun, redactor: Redactor, what: string): Error {
  const cause = sanitize(err.cause, p, redactor);
  const reason = printable(cause instanceof Error ? cause.message : String(cause));
  const init = { cause, idempotencyKey: p.call.idempotencyKey };
  // One sentence: the runtime is the fix there, and no request handler would help.
  if (err instanceof InterceptorUnsupportedError) {
    return new CallInterruptedError(
      `The request interceptor in front of fetch (msw) cannot run here, so ${what} was not sent: ${reason}.`,
      init,
    );
  }
  return new CallInterruptedError(
    `The request interceptor in front of fetch (msw) refused ${what} before it was sent: ${sentence(reason)} Add a request handler for it, or let it through (onUnhandledRequest).`,
    init,
  );
}

/** A reason ending as a sentence does, so the advice after it starts a new one. */
function sentence(reason: string): string {
  return /[.!?]$/.test(reason) ? reason : `${reason}.`;
}

/** A body over the cap: accepted when its status was 2xx, malformed otherwise. */
function tooLarge(err: ResponseTooLargeError, p: CallRun, redactor: Redactor, what: string): Error {
  const requestId = err.headers['x-request-id'];
  p.answered(err.status, requestId === undefined ? undefined : redactor.redact(requestId, p.secrets));
  const init = { status: err.status, requestId: p.requestId };
  const message = `Response body exceeds ${err.limit} bytes (${what}).`;
  if (err.status >= 200 && err.status < 300) {
    return new AcceptedButUnreadableError(`HTTP ${err.status}: the call was accepted. ${message}`, { ...init, body: '' });
  }
  return new MalformedResponseError(message, { ...init, snippet: '', idempotencyKey: p.call.idempotencyKey });
}

/** A copy of a foreign error with every secret masked (its message may quote a header value). */
function sanitize(err: unknown, p: CallRun, redactor: Redactor): unknown {
  if (!(err instanceof Error)) return typeof err === 'string' ? redactor.redact(err, p.secrets) : err;
  const copy = new Error(redactor.redact(err.message, p.secrets));
  copy.name = err.name;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') Object.defineProperty(copy, 'code', { value: code, enumerable: true });
  copy.stack = redactor.redact(err.stack ?? '', p.secrets);
  return copy;
}

/**
 * The error the caller gets: this call's own error with its state stamped, or, for an error
 * another step raised (a token renewal shared by many calls, a limiter, a store), a copy that
 * carries this call's state and says whether an earlier attempt may have executed.
 */
export function finalError(err: unknown, p: CallRun, state: CallState, redactor: Redactor): Error {
  if (err instanceof MerchantSdkError && p.owns(err)) return p.stamp(err, state, ownNote(err, p, state));
  const sdkError =
    err instanceof MerchantSdkError
      ? err
      : new CallInterruptedError(
          `A step of the call failed: ${printable(redactor.redact(err instanceof Error ? err.message : String(err), p.secrets))}`,
          { cause: sanitize(err, p, redactor) },
        );
  return p.stamp(sdkError, state, stepNote(p.call, state));
}

/** What the caller of a write should know about an outcome the service may not have given. */
function ownNote(err: MerchantSdkError, p: CallRun, state: CallState): string | undefined {
  const lockout = p.rules.lockout;
  if (lockout !== undefined) {
    // What may have executed there is checked, never resent: the generic "retry with the key" would count again.
    const api: ApiError | undefined = err instanceof ApiError ? (err as ApiError) : undefined;
    if (api !== undefined && lockoutStopped(api.code, api.status, p.rules)) return lockoutAdvice(lockout);
    if (err instanceof AbortError && state.sent !== 'no') return lockoutAdvice(lockout);
  }
  if (!movesState(p.call) || !(err instanceof ConnectionError || err instanceof AbortError)) return undefined;
  return sentAdvice(state);
}

function lockoutAdvice(lockout: Lockout): string {
  return `not resent: the service counts this call's failures against the customer (${lockout.rule}); ${lockout.check}`;
}

/**
 * The error a failed attempt ends the call with: its own, or on an endpoint with a lockout, when
 * what the service did is unknown (sent and unanswered, or a proxy's page), an
 * {@link OutcomeUnknownError} that says what to check instead of resending.
 */
export function endingError(failed: Failed, p: CallRun): Error {
  const lockout = p.rules.lockout;
  if (lockout === undefined || !outcomeUnknown(failed.failure)) return failed.error;
  const { call } = p;
  const message =
    `${call.method} ${stripQuery(call.path)} may have been executed, and was ${lockoutAdvice(lockout)}. ` +
    `The last attempt: ${failed.error.message}`;
  return p.own(new OutcomeUnknownError(message, { cause: failed.error, idempotencyKey: call.idempotencyKey }));
}

/** Writes (signed) can execute; reads and the token exchange (unsigned) cannot move money. */
function movesState(call: PreparedCall): boolean {
  return call.signed;
}

function sentAdvice(state: CallState): string {
  if (state.sent === 'no') return 'nothing reached the service: calling again is safe';
  return state.idempotencyKey === undefined
    ? 'the call may have executed and has no idempotency key: check its effect before calling again'
    : `the call may have executed: retry with idempotency key ${state.idempotencyKey}`;
}

function stepNote(call: PreparedCall, state: CallState): string | undefined {
  return movesState(call) ? `during ${call.method} ${stripQuery(call.path)}: ${sentAdvice(state)}` : undefined;
}

const REDIRECT_FAILURE: AttemptFailure = { kind: 'malformed', status: 300 };

/** What the retry policy sees of a transport failure. */
export function transportFailure(err: Error, sent: boolean): AttemptFailure {
  if (err instanceof TimeoutError) return { kind: 'timeout', sent };
  if (err instanceof MalformedResponseError || err instanceof AcceptedButUnreadableError) return { kind: 'malformed', status: err.status };
  // Never retried, whatever its 3xx: only a 5xx malformed answer is (its status says which code it stands for).
  if (err instanceof RedirectRefusedError) return REDIRECT_FAILURE;
  return { kind: 'connection', sent };
}

/** Whether an attempt that failed may have reached the service: a response of any kind did. */
export function reached(f: AttemptFailure): boolean {
  return f.kind === 'connection' || f.kind === 'timeout' ? f.sent : true;
}

/** The retry class a retried failure belongs to (a transport failure retries like `api_error`). */
export function retryClassOfFailure(f: AttemptFailure, rules: RetryRules): string {
  if (f.kind === 'api') return retryClassFor(f.code, f.status, rules);
  if (f.kind === 'malformed') return f.status === 429 ? 'after_wait' : 'same_key';
  return f.sent ? 'same_key' : 'not_sent';
}

/** A short name of a failure, for the retry log line and trace event. */
export function failureLabel(f: AttemptFailure): string {
  return f.kind === 'api' ? f.code : f.kind === 'malformed' ? `malformed_${f.status}` : f.kind;
}

export function stripQuery(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

import { ApiError } from '../errors/api-error.js';
import type { ResultReader } from './types.js';
import { finalError } from './call-errors.js';
import { type AttemptOutcome, type CallRun } from './call-run.js';
import type { CallState } from '../errors/call-state.js';
import { log, type LogFields, type Logger } from '../telemetry/logger.js';
import { printable } from '../text.js';
import type { Redactor } from '../telemetry/redactor.js';
import { errorFromResponse } from './response.js';
import { parseRetryAfter } from './retry-policy.js';
import { retryClassFor } from '../errors/retry-class.js';
import type { ServiceClock } from '../time/service-clock.js';
import type { TransportResponse } from '../transport/transport.js';

/**
 * What an attempt's answer becomes, and how a call ends: a response classified by `code` into an
 * outcome, a 2xx read into the result, the final error; each end with its span and log line.
 */

/** What classifying and ending a call use of the runner. */
export interface OutcomeContext {
  readonly logger: Logger | undefined;
  readonly redactor: Redactor;
  readonly clock: ServiceClock;
}

/** A response: success, the service's error by `code`, or a malformed body. */
export function classify(
  ctx: OutcomeContext,
  response: TransportResponse,
  p: CallRun,
  token: string | undefined,
  durationMs: number,
): AttemptOutcome {
  const { call, attempt } = p;
  // One line per attempt at debug only: built when debug lines are wanted.
  const fields: LogFields | undefined =
    ctx.logger?.debug === undefined
      ? undefined
      : { method: call.method, path: call.path, status: response.status, attempt, durationMs, requestId: p.requestId };
  if (response.status >= 200 && response.status < 300) {
    if (fields !== undefined) log(ctx.logger, 'debug', 'request succeeded', fields);
    return { ok: true, response };
  }
  const error = errorFromResponse(response, {
    idempotencyKey: call.idempotencyKey,
    attempts: attempt,
    redact: (text) => ctx.redactor.redact(text, p.secrets),
    redactValue: (value) => ctx.redactor.redactValue(value, p.secrets),
    retryClass: (code, status) => retryClassFor(code, status, p.rules),
  });
  p.own(error);
  // An HTTP-date Retry-After is the service's clock: read against the service clock.
  const retryAfterHeader = parseRetryAfter(response.headers['retry-after'], ctx.clock.now());
  if (!(error instanceof ApiError)) {
    if (fields !== undefined) log(ctx.logger, 'debug', 'request failed with a malformed body', fields);
    // A proxy's 429 page still says the bucket is full: its Retry-After is honoured.
    const failure = { kind: 'malformed', status: response.status, retryAfterSeconds: retryAfterHeader } as const;
    return { ok: false, error, failure, response, token };
  }
  if (fields !== undefined)
    log(ctx.logger, 'debug', 'request failed', { ...fields, requestId: error.requestId, code: printable(error.code) });
  const retryAfterSeconds = retryAfterHeader ?? numberOrUndefined((error.extras as { retry_after?: unknown }).retry_after);
  return { ok: false, error, failure: { kind: 'api', code: error.code, status: response.status, retryAfterSeconds }, response, token };
}

/** Reads the 2xx response and ends the call; what reading throws is this call's own error. */
export function succeed<R>(ctx: OutcomeContext, response: TransportResponse, p: CallRun, read: ResultReader<R>): R {
  const state = p.snapshot();
  let result: R;
  try {
    result = read(response, { state, redact: (text) => ctx.redactor.redact(text, p.secrets) });
  } catch (err) {
    // A reader throws only the SDK's errors (validation, an unreadable body): this call's own.
    throw p.own(err as Error);
  }
  const replayed = response.headers['x-idempotent-replay'] === 'true';
  p.trace.end({ state, outcome: 'success', replayed });
  if (ctx.logger?.info !== undefined) log(ctx.logger, 'info', 'call succeeded', { ...callFields(p, state), replayed });
  return result;
}

/** The final error, with the call's state; its span and log line end the call. */
export function fail(ctx: OutcomeContext, err: unknown, p: CallRun): Error {
  const state = p.snapshot();
  const final = finalError(err, p, state, ctx.redactor);
  const api: ApiError | undefined = final instanceof ApiError ? (final as ApiError) : undefined;
  const end = { state, outcome: api?.code ?? final.name, code: api?.code, retryClass: api?.retryClass, replayed: api?.replayed };
  p.trace.end({ ...end, errorType: final.name });
  log(ctx.logger, 'info', 'call failed', {
    ...callFields(p, state),
    code: end.code === undefined ? undefined : printable(end.code),
    retryClass: end.retryClass,
    replayed: end.replayed,
    error: final.name,
  });
  return final;
}

/** The fields a call-level log line carries: those of the call's span. */
function callFields(p: CallRun, state: CallState): LogFields {
  return {
    endpoint: p.call.name,
    method: p.call.method,
    route: p.call.route,
    status: state.status,
    attempts: state.attempts,
    requestId: state.requestId,
    idempotencyKey: state.idempotencyKey,
    sent: state.sent,
    durationMs: Math.round(performance.now() - p.started),
  };
}

/** A body's `retry_after` seconds: a finite number, not negative (JSON reads `1e400` as Infinity). */
function numberOrUndefined(v: unknown): number | undefined {
  return Number.isFinite(v) && (v as number) >= 0 ? (v as number) : undefined;
}

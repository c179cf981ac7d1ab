import { isKnownErrorCode } from '../../facts/error-codes.js';
import { retryClassFor, type RetryRules } from '../errors/retry-class.js';

/** What went wrong in one attempt, as the retry policy sees it. */
export type AttemptFailure =
  | { readonly kind: 'api'; readonly code: string; readonly status: number; readonly retryAfterSeconds: number | undefined }
  /** A body that is not the service's envelope (a proxy's page); a 429 keeps its `Retry-After`. */
  | { readonly kind: 'malformed'; readonly status: number; readonly retryAfterSeconds?: number | undefined }
  /** `sent: false`: the connection failed before any byte of the request left the client. */
  | { readonly kind: 'connection'; readonly sent: boolean }
  | { readonly kind: 'timeout'; readonly sent: boolean };

/** Backoff settings (milliseconds). */
export interface BackoffSettings {
  /** First backoff for server errors and connection failures. */
  readonly baseDelayMs: number;
  /** First backoff for `idempotency_in_progress` (the spec suggests 1 to 2 seconds). */
  readonly inProgressDelayMs: number;
  /** Largest single backoff. */
  readonly maxDelayMs: number;
  /** Largest `Retry-After` honoured; a longer one is raised to the caller instead of waited. */
  readonly maxRetryAfterMs: number;
}

/** Defaults: 0.5 s doubling to 8 s; 1-2 s for in-progress; `Retry-After` up to 60 s. */
export const DEFAULT_BACKOFF: BackoffSettings = {
  baseDelayMs: 500,
  inProgressDelayMs: 1000,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};

/** Per-call state the policy needs. */
export interface RetryContext {
  /** Retries already made for this call. */
  readonly retriesSoFar: number;
  readonly maxRetries: number;
  /** Whether an unknown code was already retried once in this call. */
  readonly unknownRetried: boolean;
  readonly rules: RetryRules;
  readonly backoff: BackoffSettings;
  /** Random source in [0, 1), injectable for tests. */
  readonly random?: () => number;
}

/** The policy's answer. */
export type RetryDecision =
  | { readonly retry: false }
  | { readonly retry: true; readonly delayMs: number; readonly rateLimited: boolean; readonly unknownCode: boolean };

const NO: RetryDecision = { retry: false };

/**
 * Decides from the spec's Retry rules whether a failed attempt is retried with the same
 * idempotency key. The classes come from the code table, never from messages, and endpoint
 * overrides are data on the descriptor.
 */
export function decideRetry(failure: AttemptFailure, ctx: RetryContext): RetryDecision {
  if (ctx.retriesSoFar >= ctx.maxRetries) return NO;
  // Nothing executed on a 429 (whatever its body: a proxy's page too), so even never-retry
  // endpoints may wait and go again.
  const limited = rateLimitOf(failure);
  if (limited !== undefined) return afterRetryAfter(limited, ctx);
  // Nothing left the client: going again cannot execute anything twice, on any endpoint.
  if ((failure.kind === 'connection' || failure.kind === 'timeout') && !failure.sent) return withBackoff(ctx, false);
  if (resendForbidden(failure, ctx.rules)) return NO;
  switch (failure.kind) {
    case 'connection':
    case 'timeout':
      // The write may have executed: only the same key makes the retry safe.
      return withBackoff(ctx, false);
    case 'malformed':
      // A proxy's HTML 5xx page: the situation of its status's code (500 api_error, 502 upstream_error...).
      return failure.status >= 500 ? apiRetry({ code: codeOfStatus(failure.status), status: failure.status }, ctx) : NO;
    case 'api':
      return apiRetry(failure, ctx);
  }
}

/**
 * What a 429 says to wait (whatever its body: a proxy's page too), or the `rate_limited` code
 * under another status: the bucket is full and nothing executed. Undefined for other failures.
 */
export function rateLimitOf(f: AttemptFailure): { readonly retryAfterSeconds: number | undefined } | undefined {
  if (f.kind === 'api' && (f.code === 'rate_limited' || f.status === 429)) return f;
  if (f.kind === 'malformed' && f.status === 429) return { retryAfterSeconds: f.retryAfterSeconds };
  return undefined;
}

/**
 * Whether the endpoint forbids resending a failure that may have reached the service: it never
 * retries, or (lockout) a resend could be one more failure counted against the customer, which the
 * key cannot stop. Its error answers are judged by code (`retryClassFor`).
 */
function resendForbidden(failure: AttemptFailure, rules: RetryRules): boolean {
  return rules.retry === 'never' || (rules.lockout !== undefined && outcomeUnknown(failure));
}

/**
 * Whether a failed attempt leaves unknown what the service did: it was sent and never answered (a
 * reset, a timeout), or answered by something other than the service (a proxy's 5xx page, which
 * may stand for a request it forwarded).
 */
export function outcomeUnknown(failure: AttemptFailure): boolean {
  if (failure.kind === 'connection' || failure.kind === 'timeout') return failure.sent;
  return failure.kind === 'malformed' && failure.status >= 500;
}

/** The catalogue code of a 5xx status without a readable body. */
function codeOfStatus(status: number): string {
  if (status === 502 || status === 503) return 'upstream_error';
  if (status === 504) return 'upstream_timeout';
  return 'api_error';
}

/** Exponential backoff with jitter: half the doubled base, plus up to as much again at random. */
function backoffMs(base: number, ctx: RetryContext): number {
  const exp = Math.min(ctx.backoff.maxDelayMs, base * 2 ** ctx.retriesSoFar);
  return Math.round(exp / 2 + ((ctx.random ?? Math.random)() * exp) / 2);
}

function withBackoff(ctx: RetryContext, unknownCode: boolean): RetryDecision {
  return { retry: true, delayMs: backoffMs(ctx.backoff.baseDelayMs, ctx), rateLimited: false, unknownCode };
}

function afterRetryAfter(failure: { readonly retryAfterSeconds: number | undefined }, ctx: RetryContext): RetryDecision {
  const waitMs = failure.retryAfterSeconds !== undefined ? failure.retryAfterSeconds * 1000 : backoffMs(ctx.backoff.baseDelayMs, ctx);
  if (waitMs > ctx.backoff.maxRetryAfterMs) return NO;
  return { retry: true, delayMs: waitMs, rateLimited: true, unknownCode: false };
}

function apiRetry(failure: { readonly code: string; readonly status: number }, ctx: RetryContext): RetryDecision {
  if (retryClassFor(failure.code, failure.status, ctx.rules) !== 'same_key') return NO;
  if (!isKnownErrorCode(failure.code)) {
    // Spec: an unknown code is treated as api_error: retried once, then reported.
    return ctx.unknownRetried ? NO : withBackoff(ctx, true);
  }
  if (failure.code === 'idempotency_in_progress') {
    // 1 to 2 seconds (spec), doubling: the first request is still running.
    const exp = Math.min(ctx.backoff.maxDelayMs, ctx.backoff.inProgressDelayMs * 2 ** ctx.retriesSoFar);
    const delayMs = Math.round(Math.min(ctx.backoff.maxDelayMs, exp * (1 + (ctx.random ?? Math.random)())));
    return { retry: true, delayMs, rateLimited: false, unknownCode: false };
  }
  return withBackoff(ctx, false);
}

/** Parses `Retry-After` (seconds or an HTTP date) into seconds, or undefined. */
export function parseRetryAfter(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  // An empty header matches neither form below.
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

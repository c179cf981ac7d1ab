import { ERROR_CODES, isKnownErrorCode } from '../spec/error-codes.js';
import type { RetryMode } from '../spec/endpoint.js';

/** What went wrong in one attempt, as the retry policy sees it. */
export type AttemptFailure =
  | { readonly kind: 'api'; readonly code: string; readonly status: number; readonly retryAfterSeconds: number | undefined }
  | { readonly kind: 'malformed'; readonly status: number }
  | { readonly kind: 'connection' }
  | { readonly kind: 'timeout' };

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
  readonly mode: RetryMode;
  readonly noRetryCodes: readonly string[] | undefined;
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
  // Nothing executed on a 429, so even never-retry endpoints may wait and go again.
  if (failure.kind === 'api' && (failure.code === 'rate_limited' || failure.status === 429)) return afterRetryAfter(failure, ctx);
  if (ctx.mode === 'never') return NO;
  switch (failure.kind) {
    case 'connection':
    case 'timeout':
      // The write may have executed: only the same key makes the retry safe.
      return withBackoff(ctx, false);
    case 'malformed':
      // A proxy's HTML 502/503/504 page: the same situation as an upstream error.
      return failure.status >= 500 ? withBackoff(ctx, false) : NO;
    case 'api':
      return apiRetry(failure, ctx);
  }
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
  // Spec: every 404 is final, whatever its code (card_product_not_found is outside the catalogue).
  if (failure.status === 404 || ctx.noRetryCodes?.includes(failure.code)) return NO;
  if (!isKnownErrorCode(failure.code)) {
    // Spec: an unknown code is treated as api_error: retried once, then reported; so an
    // endpoint that never retries api_error never retries an unknown code either.
    if (ctx.unknownRetried || ctx.noRetryCodes?.includes('api_error')) return NO;
    return withBackoff(ctx, true);
  }
  if (ERROR_CODES[failure.code].retry !== 'same_key') return NO;
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
  if (header === undefined || header === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Number(header);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}

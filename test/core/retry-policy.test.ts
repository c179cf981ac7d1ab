/**
 * The retry policy's decisions, with its random source injected: which failures are retried with
 * the same key (spec: Errors > Retry rules), and how long each backoff is.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_BACKOFF,
  decideRetry,
  outcomeUnknown,
  parseRetryAfter,
  type AttemptFailure,
  type RetryContext,
} from '../../src/core/attempts/retry-policy.js';
import { lockoutStopped, retryClassFor, type RetryRules } from '../../src/core/errors/retry-class.js';
import { MERCHANT_CONVERSIONS_CREATE } from '../../src/facts/endpoints.js';

const LOWEST = (): number => 0;
const MIDDLE = (): number => 0.5;
const HIGHEST = (): number => 1 - Number.EPSILON;

function ctx(over: Partial<RetryContext> = {}): RetryContext {
  return {
    retriesSoFar: 0,
    maxRetries: 10,
    unknownRetried: false,
    rules: {},
    backoff: DEFAULT_BACKOFF,
    random: MIDDLE,
    ...over,
  };
}

const api = (code: string, status: number, retryAfterSeconds?: number): AttemptFailure => ({
  kind: 'api',
  code,
  status,
  retryAfterSeconds,
});

/** The delay of each successive retry of one failure, for retries 0..n-1. */
function delays(failure: AttemptFailure, random: () => number, n: number): number[] {
  return Array.from({ length: n }, (_, retriesSoFar) => {
    const d = decideRetry(failure, ctx({ retriesSoFar, random }));
    if (!d.retry) throw new Error(`retry ${retriesSoFar} was refused`);
    return d.delayMs;
  });
}

describe('backoff sizes (defaults: 0.5 s doubling to 8 s)', () => {
  it('a server error waits between half and all of 0.5 s, 1 s, 2 s, 4 s, then 8 s at most', () => {
    const failure = api('upstream_error', 502);
    expect(delays(failure, LOWEST, 6)).toEqual([250, 500, 1000, 2000, 4000, 4000]);
    expect(delays(failure, MIDDLE, 6)).toEqual([375, 750, 1500, 3000, 6000, 6000]);
    expect(delays(failure, HIGHEST, 6)).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it('a connection failure, a client timeout and a proxy 5xx page back off like a server error', () => {
    for (const failure of [
      { kind: 'connection', sent: true },
      { kind: 'timeout', sent: true },
      { kind: 'malformed', status: 503 },
    ] as const) {
      expect(delays(failure, LOWEST, 3)).toEqual([250, 500, 1000]);
      expect(delays(failure, HIGHEST, 3)).toEqual([500, 1000, 2000]);
    }
  });

  it('idempotency_in_progress waits 1 to 2 s first, doubling, never beyond 8 s', () => {
    const failure = api('idempotency_in_progress', 409);
    expect(delays(failure, LOWEST, 5)).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(delays(failure, MIDDLE, 5)).toEqual([1500, 3000, 6000, 8000, 8000]);
    expect(delays(failure, HIGHEST, 2)).toEqual([2000, 4000]);
  });

  it('follows the configured settings', () => {
    const backoff = { baseDelayMs: 100, inProgressDelayMs: 300, maxDelayMs: 1000, maxRetryAfterMs: 5000 };
    const at = (failure: AttemptFailure, retriesSoFar: number) => decideRetry(failure, ctx({ backoff, retriesSoFar, random: HIGHEST }));
    expect(at(api('api_error', 500), 0)).toMatchObject({ delayMs: 100 });
    expect(at(api('api_error', 500), 4)).toMatchObject({ delayMs: 1000 });
    expect(at(api('idempotency_in_progress', 409), 0)).toMatchObject({ delayMs: 600 });
    expect(at(api('idempotency_in_progress', 409), 2)).toMatchObject({ delayMs: 1000 });
  });

  it('uses Math.random when no random source is given: within the same bounds', () => {
    for (let i = 0; i < 50; i++) {
      const d = decideRetry(api('api_error', 500), { ...ctx(), random: undefined });
      expect(d.retry && d.delayMs >= 250 && d.delayMs <= 500).toBe(true);
    }
  });
});

describe('what is retried with the same key', () => {
  it('500, 502, 504 and 409 idempotency_in_progress; the decision carries no other flag', () => {
    for (const [code, status] of [
      ['api_error', 500],
      ['upstream_error', 502],
      ['upstream_timeout', 504],
      ['idempotency_in_progress', 409],
    ] as const) {
      expect(decideRetry(api(code, status), ctx({ random: LOWEST }))).toEqual({
        retry: true,
        delayMs: code === 'idempotency_in_progress' ? 1000 : 250,
        rateLimited: false,
        unknownCode: false,
      });
    }
  });

  it('a connection failure and a client timeout (the write may have executed)', () => {
    for (const failure of [
      { kind: 'connection', sent: true },
      { kind: 'timeout', sent: true },
    ] as const) {
      expect(decideRetry(failure, ctx({ random: LOWEST }))).toEqual({ retry: true, delayMs: 250, rateLimited: false, unknownCode: false });
    }
  });

  it('a non-JSON 5xx page is retried, a non-JSON 4xx never', () => {
    expect(decideRetry({ kind: 'malformed', status: 500 }, ctx({ random: LOWEST }))).toEqual({
      retry: true,
      delayMs: 250,
      rateLimited: false,
      unknownCode: false,
    });
    for (const status of [400, 403, 404, 409, 499]) expect(decideRetry({ kind: 'malformed', status }, ctx())).toEqual({ retry: false });
  });

  it('not the codes a retry cannot fix: business failures, the do-not-retry list, step-up, credentials', () => {
    for (const [code, status] of [
      ['insufficient_balance', 400],
      ['limit_exceeded', 400],
      ['request_rejected', 400],
      ['state_invalid', 400],
      ['order_not_cancellable', 400],
      ['insufficient_scope', 403],
      ['ip_not_allowed', 403],
      ['idempotency_key_reused', 409],
      ['step_up_required', 400],
      ['invalid_credentials', 401],
      ['invalid_signature', 401],
    ] as const) {
      expect(decideRetry(api(code, status), ctx()), code).toEqual({ retry: false });
    }
  });

  it('every 404 is final, whatever its code', () => {
    for (const code of ['not_found', 'member_not_found', 'api_error', 'card_product_not_found']) {
      expect(decideRetry(api(code, 404), ctx()), code).toEqual({ retry: false });
    }
  });

  it('an unknown code is treated as api_error: retried once, flagged, then final', () => {
    expect(decideRetry(api('brand_new_code', 500), ctx({ random: LOWEST }))).toEqual({
      retry: true,
      delayMs: 250,
      rateLimited: false,
      unknownCode: true,
    });
    expect(decideRetry(api('brand_new_code', 500), ctx({ unknownRetried: true }))).toEqual({ retry: false });
    // Whatever its status: the code decides.
    expect(decideRetry(api('brand_new_code', 400), ctx())).toMatchObject({ retry: true, unknownCode: true });
  });

  it("an endpoint's noRetryCodes win over the table, and listing api_error also stops unknown codes", () => {
    const noApiError = ctx({ rules: { noRetryCodes: ['api_error'] } });
    expect(decideRetry(api('api_error', 500), noApiError)).toEqual({ retry: false });
    expect(decideRetry(api('brand_new_code', 500), noApiError)).toEqual({ retry: false });
    expect(decideRetry(api('upstream_error', 502), noApiError)).toMatchObject({ retry: true });
    const noUpstream = ctx({ rules: { noRetryCodes: ['upstream_error'] } });
    expect(decideRetry(api('upstream_error', 502), noUpstream)).toEqual({ retry: false });
    expect(decideRetry(api('brand_new_code', 500), noUpstream)).toMatchObject({ retry: true, unknownCode: true });
  });

  it('an endpoint that never retries: nothing that may have reached the service goes again', () => {
    const never = ctx({ rules: { retry: 'never' } });
    for (const failure of [
      api('api_error', 500),
      api('upstream_timeout', 504),
      api('idempotency_in_progress', 409),
      api('brand_new_code', 500),
      { kind: 'connection', sent: true },
      { kind: 'timeout', sent: true },
      { kind: 'malformed', status: 502 },
    ] as const) {
      expect(decideRetry(failure, never)).toEqual({ retry: false });
    }
  });

  it('stops when the retry budget is spent, 429s included', () => {
    for (const failure of [api('api_error', 500), api('rate_limited', 429, 1), { kind: 'connection', sent: true }] as const) {
      expect(decideRetry(failure, ctx({ retriesSoFar: 1, maxRetries: 2 }))).toMatchObject({ retry: true });
      expect(decideRetry(failure, ctx({ retriesSoFar: 2, maxRetries: 2 }))).toEqual({ retry: false });
      expect(decideRetry(failure, ctx({ retriesSoFar: 3, maxRetries: 2 }))).toEqual({ retry: false });
      expect(decideRetry(failure, ctx({ retriesSoFar: 0, maxRetries: 0 }))).toEqual({ retry: false });
    }
  });
});

describe('what went out, and what a proxy page stands for', () => {
  it('a connection or timeout before anything left the client is retried on any endpoint; after, only where retries are allowed', () => {
    const never = ctx({ rules: { retry: 'never' }, random: LOWEST });
    for (const kind of ['connection', 'timeout'] as const) {
      expect(decideRetry({ kind, sent: false }, never)).toEqual({ retry: true, delayMs: 250, rateLimited: false, unknownCode: false });
      expect(decideRetry({ kind, sent: true }, never)).toEqual({ retry: false });
      expect(decideRetry({ kind, sent: false }, ctx({ retriesSoFar: 2, maxRetries: 2 }))).toEqual({ retry: false });
    }
  });

  it("a proxy's 5xx page is retried as its status's code: 500 api_error, 502 and 503 upstream_error, 504 upstream_timeout", () => {
    const page = (status: number): AttemptFailure => ({ kind: 'malformed', status });
    const without = (code: string) => ctx({ rules: { noRetryCodes: [code] } });
    expect(decideRetry(page(500), without('api_error'))).toEqual({ retry: false });
    expect(decideRetry(page(502), without('api_error'))).toMatchObject({ retry: true });
    expect(decideRetry(page(502), without('upstream_error'))).toEqual({ retry: false });
    expect(decideRetry(page(503), without('upstream_error'))).toEqual({ retry: false });
    expect(decideRetry(page(503), without('api_error'))).toMatchObject({ retry: true });
    expect(decideRetry(page(504), without('upstream_timeout'))).toEqual({ retry: false });
    expect(decideRetry(page(504), without('upstream_error'))).toMatchObject({ retry: true });
    expect(decideRetry(page(501), without('api_error'))).toEqual({ retry: false });
    // A known code's retry stands however the unknown ones are treated.
    expect(decideRetry(page(500), without('upstream_error'))).toEqual({
      retry: true,
      delayMs: 375,
      rateLimited: false,
      unknownCode: false,
    });
  });
});

describe('an endpoint whose failures count against the customer (lockout: card activation)', () => {
  const LOCKOUT: RetryRules = { lockout: { rule: 'three failures lock the card', check: 'read the card' } };
  const counted = ctx({ rules: LOCKOUT, random: LOWEST });

  it('nothing that may have executed is resent: a reset or timeout after sending, a 500, an unknown code, a 409 in progress, a proxy page', () => {
    for (const failure of [
      { kind: 'connection', sent: true },
      { kind: 'timeout', sent: true },
      api('api_error', 500),
      api('brand_new_code', 500),
      api('brand_new_code', 502),
      api('idempotency_in_progress', 409),
      { kind: 'malformed', status: 500 },
      { kind: 'malformed', status: 502 },
      { kind: 'malformed', status: 504 },
    ] as const) {
      expect(decideRetry(failure, counted), JSON.stringify(failure)).toEqual({ retry: false });
      // The same failures are retried on an endpoint without a lockout.
      expect(decideRetry(failure, ctx()), JSON.stringify(failure)).toMatchObject({ retry: true });
    }
  });

  it('what cannot count is retried with the same key: the service’s 502 and 504, a 429, a failure before sending', () => {
    const backoff = { retry: true, delayMs: 250, rateLimited: false, unknownCode: false };
    expect(decideRetry(api('upstream_error', 502), counted)).toEqual(backoff);
    expect(decideRetry(api('upstream_timeout', 504), counted)).toEqual(backoff);
    expect(decideRetry({ kind: 'connection', sent: false }, counted)).toEqual(backoff);
    expect(decideRetry({ kind: 'timeout', sent: false }, counted)).toEqual(backoff);
    expect(decideRetry(api('rate_limited', 429, 2), counted)).toEqual({
      retry: true,
      delayMs: 2000,
      rateLimited: true,
      unknownCode: false,
    });
    // Business answers stay final, as everywhere.
    expect(decideRetry(api('state_invalid', 400), counted)).toEqual({ retry: false });
  });

  it('retryClassFor says never for every same-key code but the upstream ones, and leaves the other classes alone', () => {
    expect(retryClassFor('api_error', 500, LOCKOUT)).toBe('never');
    expect(retryClassFor('idempotency_in_progress', 409, LOCKOUT)).toBe('never');
    expect(retryClassFor('brand_new_code', 500, LOCKOUT)).toBe('never');
    expect(retryClassFor('upstream_error', 502, LOCKOUT)).toBe('same_key');
    expect(retryClassFor('upstream_timeout', 504, LOCKOUT)).toBe('same_key');
    expect(retryClassFor('rate_limited', 429, LOCKOUT)).toBe('after_wait');
    expect(retryClassFor('insufficient_balance', 400, LOCKOUT)).toBe('new_key');
    expect(retryClassFor('step_up_required', 400, LOCKOUT)).toBe('after_step_up');
  });

  it('lockoutStopped: only the same-key answers the lockout made final, and only on a lockout endpoint', () => {
    expect(lockoutStopped('api_error', 500, LOCKOUT)).toBe(true);
    expect(lockoutStopped('idempotency_in_progress', 409, LOCKOUT)).toBe(true);
    expect(lockoutStopped('brand_new_code', 500, LOCKOUT)).toBe(true);
    expect(lockoutStopped('upstream_error', 502, LOCKOUT)).toBe(false);
    expect(lockoutStopped('upstream_timeout', 504, LOCKOUT)).toBe(false);
    expect(lockoutStopped('state_invalid', 400, LOCKOUT)).toBe(false);
    expect(lockoutStopped('brand_new_code', 429, LOCKOUT)).toBe(false);
    expect(lockoutStopped('api_error', 404, LOCKOUT)).toBe(false);
    expect(lockoutStopped('api_error', 500, {})).toBe(false);
    expect(lockoutStopped('api_error', 500, { noRetryCodes: ['api_error'] })).toBe(false);
  });

  it('outcomeUnknown: sent and unanswered, or a 5xx page; never a failure before sending, an envelope or a 4xx page', () => {
    expect(outcomeUnknown({ kind: 'connection', sent: true })).toBe(true);
    expect(outcomeUnknown({ kind: 'timeout', sent: true })).toBe(true);
    expect(outcomeUnknown({ kind: 'connection', sent: false })).toBe(false);
    expect(outcomeUnknown({ kind: 'timeout', sent: false })).toBe(false);
    expect(outcomeUnknown({ kind: 'malformed', status: 500 })).toBe(true);
    expect(outcomeUnknown({ kind: 'malformed', status: 499 })).toBe(false);
    expect(outcomeUnknown({ kind: 'malformed', status: 300 })).toBe(false);
    expect(outcomeUnknown(api('api_error', 500))).toBe(false);
  });
});

describe('retryClassFor: the class a caller reads on ApiError.retryClass', () => {
  const spec: RetryRules = {};
  it('429 or rate_limited: after_wait, whatever the endpoint', () => {
    expect(retryClassFor('rate_limited', 429, { retry: 'never' })).toBe('after_wait');
    expect(retryClassFor('anything', 429, spec)).toBe('after_wait');
    expect(retryClassFor('rate_limited', 400, spec)).toBe('after_wait');
    // The code decides even where the status alone would make the error final.
    expect(retryClassFor('rate_limited', 404, spec)).toBe('after_wait');
    expect(decideRetry(api('rate_limited', 404, 2), ctx())).toMatchObject({ retry: true, delayMs: 2000, rateLimited: true });
  });

  it('every 404 is never; other codes follow the catalogue, unknown ones api_error', () => {
    expect(retryClassFor('api_error', 404, spec)).toBe('never');
    expect(retryClassFor('upstream_error', 502, spec)).toBe('same_key');
    expect(retryClassFor('insufficient_balance', 400, spec)).toBe('new_key');
    expect(retryClassFor('step_up_required', 400, spec)).toBe('after_step_up');
    expect(retryClassFor('invalid_credentials', 401, spec)).toBe('fatal');
    expect(retryClassFor('brand_new_code', 500, spec)).toBe('same_key');
  });

  it("an endpoint's exceptions make same_key never, and only same_key", () => {
    expect(retryClassFor('api_error', 500, { retry: 'never' })).toBe('never');
    expect(retryClassFor('brand_new_code', 500, { retry: 'never' })).toBe('never');
    expect(retryClassFor('api_error', 500, { noRetryCodes: ['api_error'] })).toBe('never');
    expect(retryClassFor('brand_new_code', 500, { noRetryCodes: ['api_error'] })).toBe('never');
    expect(retryClassFor('brand_new_code', 500, { noRetryCodes: ['upstream_error'] })).toBe('same_key');
    expect(retryClassFor('upstream_error', 502, { noRetryCodes: ['api_error'] })).toBe('same_key');
    expect(retryClassFor('insufficient_balance', 400, { retry: 'never', noRetryCodes: ['insufficient_balance'] })).toBe('new_key');
  });

  it('a new_key code the endpoint does not store under the key (unstoredCodes) is same_key_later, and is not retried', () => {
    const conversions: RetryRules = MERCHANT_CONVERSIONS_CREATE;
    expect(conversions.unstoredCodes).toEqual(['service_unavailable']);
    expect(retryClassFor('service_unavailable', 400, conversions)).toBe('same_key_later');
    expect(decideRetry(api('service_unavailable', 400), ctx({ rules: conversions }))).toEqual({ retry: false });
    // Only the listed code, and only there.
    expect(retryClassFor('merchant_insufficient_funds', 400, conversions)).toBe('new_key');
    expect(retryClassFor('service_unavailable', 400, spec)).toBe('new_key');
    // Classes other than new_key are untouched by the list.
    expect(retryClassFor('api_error', 500, { unstoredCodes: ['api_error'] })).toBe('same_key');
    expect(retryClassFor('state_invalid', 400, { unstoredCodes: ['state_invalid'] })).toBe('never');
  });
});

describe('429 rate_limited', () => {
  it('waits Retry-After exactly, up to maxRetryAfterMs inclusive, even where nothing else is retried', () => {
    for (const retry of ['spec', 'never'] as const) {
      const rules: RetryRules = { retry };
      expect(decideRetry(api('rate_limited', 429, 60), ctx({ rules }))).toEqual({
        retry: true,
        delayMs: 60_000,
        rateLimited: true,
        unknownCode: false,
      });
      expect(decideRetry(api('rate_limited', 429, 0), ctx({ rules }))).toMatchObject({ retry: true, delayMs: 0, rateLimited: true });
      expect(decideRetry(api('rate_limited', 429, 1.5), ctx({ rules }))).toMatchObject({ delayMs: 1500 });
    }
  });

  it('a Retry-After beyond maxRetryAfterMs is raised instead of waited', () => {
    expect(decideRetry(api('rate_limited', 429, 61), ctx())).toEqual({ retry: false });
    expect(decideRetry(api('rate_limited', 429, 600), ctx())).toEqual({ retry: false });
    const short = ctx({ backoff: { ...DEFAULT_BACKOFF, maxRetryAfterMs: 5000 } });
    expect(decideRetry(api('rate_limited', 429, 5), short)).toMatchObject({ retry: true, delayMs: 5000 });
    expect(decideRetry(api('rate_limited', 429, 5.001), short)).toEqual({ retry: false });
  });

  it('without Retry-After, backs off like a server error', () => {
    expect(decideRetry(api('rate_limited', 429), ctx({ random: LOWEST, retriesSoFar: 1 }))).toEqual({
      retry: true,
      delayMs: 500,
      rateLimited: true,
      unknownCode: false,
    });
  });

  it('is recognised by its code under any status, and by a 429 status under any code', () => {
    expect(decideRetry(api('rate_limited', 400, 2), ctx({ rules: { retry: 'never' } }))).toMatchObject({
      retry: true,
      delayMs: 2000,
      rateLimited: true,
    });
    expect(decideRetry(api('too_many', 429, 2), ctx({ rules: { retry: 'never' } }))).toMatchObject({
      retry: true,
      delayMs: 2000,
      rateLimited: true,
    });
  });

  it("a 429 whose body is not the envelope (a proxy's page) is waited out too: by its Retry-After, else by backoff", () => {
    expect(decideRetry({ kind: 'malformed', status: 429, retryAfterSeconds: 2 }, ctx({ rules: { retry: 'never' } }))).toEqual({
      retry: true,
      delayMs: 2000,
      rateLimited: true,
      unknownCode: false,
    });
    const withoutHeader = decideRetry({ kind: 'malformed', status: 429 }, ctx({ rules: { retry: 'never' } }));
    expect(withoutHeader).toMatchObject({ retry: true, rateLimited: true, unknownCode: false });
    // Other pages keep their rules: a 4xx page is never retried, a 5xx page as its status's code.
    expect(decideRetry({ kind: 'malformed', status: 400, retryAfterSeconds: 2 }, ctx())).toEqual({ retry: false });
    expect(decideRetry({ kind: 'malformed', status: 503, retryAfterSeconds: 2 }, ctx({ rules: { retry: 'never' } }))).toEqual({
      retry: false,
    });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);

  it('reads delta-seconds as seconds: "60" is 60 s, not the year 1960', () => {
    expect(parseRetryAfter('60', now)).toBe(60);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('1.5', now)).toBe(1.5);
    expect(parseRetryAfter('2.25', now)).toBe(2.25);
    expect(parseRetryAfter(' 7 ', now)).toBe(7);
  });

  it('reads an HTTP date as the seconds until it, never negative', () => {
    expect(parseRetryAfter(new Date(now + 30_000).toUTCString(), now)).toBe(30);
    expect(parseRetryAfter(new Date(now + 1_500).toISOString(), now)).toBe(1.5);
    expect(parseRetryAfter(new Date(now - 30_000).toUTCString(), now)).toBe(0);
  });

  it('anything else is absent, so the body retry_after or the backoff applies', () => {
    for (const header of [undefined, '', 'soon', 'x60', '60s', '1e3', 'NaN']) expect(parseRetryAfter(header, now), header).toBeUndefined();
  });
});

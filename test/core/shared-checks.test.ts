/**
 * The checks written once for the whole SDK: control characters, numeric settings, the member
 * identifier, rate-limit buckets and quotas, path parameters and raw paths. Each refusal is an
 * InvalidArgumentError naming the argument, thrown before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { nonNegativeInt, positiveInt, positiveNumber } from '../../src/core/errors/setting-checks.js';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import { ApiError } from '../../src/core/errors/api-error.js';
import { checkMemberId } from '../../src/core/call/member-id.js';
import { notABucket, resolveQuotas } from '../../src/core/limits/quotas.js';
import { hasControlChars } from '../../src/core/text.js';
import { checkRawPath, fillPath } from '../../src/core/call/url.js';
import { RATE_LIMIT_BUCKETS, RATE_LIMIT_QUOTAS, isRateLimitBucket } from '../../src/facts/rate-limits.js';

/** The InvalidArgumentError `fn` throws. */
function refusal(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgumentError);
    return err as InvalidArgumentError;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('hasControlChars', () => {
  it.each(['\u0000', 'a\rb', 'a\nb', '\t', 'x\u001f', 'del\u007f'])('finds C0 controls and DEL in %j', (text) => {
    expect(hasControlChars(text)).toBe(true);
  });
  it.each(['', 'ext-42', 'mem_1 2', '\u0080', 'é', '用户'])('passes %j (C1 and non-ASCII are not controls here)', (text) => {
    expect(hasControlChars(text)).toBe(false);
  });
});

describe('numeric settings', () => {
  it('take the fallback when absent', () => {
    expect(nonNegativeInt('n', undefined, 7)).toBe(7);
    expect(positiveInt('n', undefined, 8)).toBe(8);
    expect(positiveNumber('n', undefined, 0.5)).toBe(0.5);
  });
  it('accept their range', () => {
    expect(nonNegativeInt('n', 0, 7)).toBe(0);
    expect(positiveInt('n', 1, 8)).toBe(1);
    expect(positiveNumber('n', 0.25, 1)).toBe(0.25);
  });
  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])('nonNegativeInt refuses %s', (value) => {
    const err = refusal(() => nonNegativeInt('marginMs', value, 1));
    expect(err.argument).toBe('marginMs');
    expect(err.message).toBe('marginMs: must be a non-negative integer.');
  });
  it.each([0, -3, 2.5, Number.NaN])('positiveInt refuses %s', (value) => {
    const err = refusal(() => positiveInt('timeoutMs', value, 1));
    expect(err.argument).toBe('timeoutMs');
    expect(err.message).toBe('timeoutMs: must be a positive integer.');
  });
  it.each([0, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number])('positiveNumber refuses %s', (value) => {
    const err = refusal(() => positiveNumber('lockTtlMs', value, 1));
    expect(err.argument).toBe('lockTtlMs');
    expect(err.message).toBe('lockTtlMs: must be a positive number.');
  });
});

describe('checkMemberId', () => {
  it('returns the identifier exactly as given, Latin-1 included', () => {
    expect(checkMemberId(' ext-1 ', 'memberId')).toBe(' ext-1 ');
    expect(checkMemberId('mem_0b2e', 'member')).toBe('mem_0b2e');
    expect(checkMemberId('jos\u00e9', 'member')).toBe('jos\u00e9');
  });
  it.each([
    [undefined, 'not a string'],
    [42, 'not a string'],
    ['', 'blank'],
    ['  ', 'blank after trim'],
    ['a\r\nx-evil: 1', 'CR/LF'],
    ['a\u0000b', 'NUL'],
    ['a\u007fb', 'DEL'],
    ['\u7528\u6237', 'outside Latin-1'],
  ])('refuses %j (%s), naming the argument it was given', (value: unknown, _why: string) => {
    expect(refusal(() => checkMemberId(value, 'memberId')).argument).toBe('memberId');
    expect(refusal(() => checkMemberId(value, 'member')).argument).toBe('member');
  });
  it('says why a control character is refused', () => {
    expect(refusal(() => checkMemberId('a\nb', 'member')).message).toMatch(/control characters such as CR or LF/);
  });
});

describe('rate-limit buckets and quotas', () => {
  it('lists the spec buckets once, in the order of the quota table', () => {
    expect(RATE_LIMIT_BUCKETS).toEqual(['deposits', 'members_write', 'orders', 'reads']);
    expect(RATE_LIMIT_BUCKETS).toEqual(Object.keys(RATE_LIMIT_QUOTAS));
    expect(Object.isFrozen(RATE_LIMIT_BUCKETS)).toBe(true);
  });
  it('recognises a bucket by its own name only', () => {
    for (const bucket of RATE_LIMIT_BUCKETS) expect(isRateLimitBucket(bucket)).toBe(true);
    for (const other of ['token', 'toString', 'hasOwnProperty', 'ORDERS', '', 42, undefined]) expect(isRateLimitBucket(other)).toBe(false);
  });
  it("resolves the spec's quotas, with each override in place of its default", () => {
    expect(resolveQuotas()).toEqual(RATE_LIMIT_QUOTAS);
    expect(resolveQuotas({ orders: 5 })).toEqual({ ...RATE_LIMIT_QUOTAS, orders: 5 });
    expect(resolveQuotas({ orders: 5 })).not.toBe(RATE_LIMIT_QUOTAS);
  });
  it('refuses an unknown bucket and a quota that is not a positive integer', () => {
    const unknown = refusal(() => resolveQuotas({ token: 5 } as never));
    expect(unknown.argument).toBe('quotas.token');
    expect(unknown.message).toBe('quotas.token: is not a bucket (deposits, members_write, orders, reads).');
    expect(refusal(() => resolveQuotas({ reads: 0 })).argument).toBe('quotas.reads');
    expect(refusal(() => resolveQuotas({ deposits: 1.5 })).argument).toBe('quotas.deposits');
  });
  it('names the bucket argument by default', () => {
    expect(notABucket().argument).toBe('bucket');
  });
});

describe('path parameters and raw paths', () => {
  it('percent-encodes a path parameter so that it cannot change the path', () => {
    expect(fillPath('/v1/reports/{id}', { id: "a/../b?x#y é!'()*" })).toBe('/v1/reports/a%2F..%2Fb%3Fx%23y%20%C3%A9%21%27%28%29%2A');
  });
  it.each([
    [{}, 'must be a non-empty string.'],
    [{ id: ' ' }, 'must be a non-empty string.'],
    [{ id: '..' }, 'cannot be "." or "..".'],
    [{ id: 'a\nb' }, 'must not contain control characters.'],
    [{ id: '\ud800' }, 'is not valid Unicode text.'],
  ])('refuses %j', (params, message) => {
    const err = refusal(() => fillPath('/v1/reports/{id}', params));
    expect(err.argument).toBe('id');
    expect(err.message).toBe(`id: ${message}`);
  });
  it('accepts a raw path as given when it is absolute, printable ASCII and has no fragment', () => {
    expect(checkRawPath('/v1/custom/a%20b')).toBe('/v1/custom/a%20b');
    // Dots after a "?" are a query's, which no URL parser resolves.
    expect(checkRawPath('/v1/custom?next=../x/./y')).toBe('/v1/custom?next=../x/./y');
  });
  it.each(['v1/custom', '/v1/a b', '/v1/a#frag', '/v1/\u00e9', '/v1/a\tb', '/v1/..', '/v1/%2E%2e/x', '/v1\\x'])(
    'refuses the raw path %j',
    (path) => {
      expect(refusal(() => checkRawPath(path)).argument).toBe('path');
    },
  );
});

describe('ApiError', () => {
  const init = {
    status: 400,
    type: 'invalid_request_error',
    message: 'm',
    requestId: 'req_1',
    headers: {},
    idempotencyKey: undefined,
    body: {},
    attempts: 1,
  };
  it('knows the catalogue codes and their retry class', () => {
    const err = new ApiError({ ...init, code: 'insufficient_balance' });
    expect(err.known).toBe(true);
    expect(err.retryClass).toBe('new_key');
  });
  it('treats an unknown code as retryable with the same key', () => {
    const err = new ApiError({ ...init, code: 'brand_new_code' });
    expect(err.known).toBe(false);
    expect(err.retryClass).toBe('same_key');
  });
});

/**
 * The spec's rate-limit quotas as a caller overrides them, written once for the in-process and
 * the Redis limiters: unknown bucket names are refused, every quota is a positive integer.
 */
import type { RateLimitBucket } from '../../facts/endpoint.js';
import { isRateLimitBucket, RATE_LIMIT_BUCKETS, RATE_LIMIT_QUOTAS } from '../../facts/rate-limits.js';
import { positiveInt } from '../errors/setting-checks.js';
import { InvalidArgumentError } from '../errors/errors.js';

/** The error for a name that is not one of the spec's buckets. */
export function notABucket(argumentName = 'bucket'): InvalidArgumentError {
  return new InvalidArgumentError(argumentName, `is not a bucket (${RATE_LIMIT_BUCKETS.join(', ')}).`);
}

/** Every bucket's quota: the override when given, else the spec's (Limits > Rate limits). */
export function resolveQuotas(overrides: Partial<Record<RateLimitBucket, number>> = {}): Record<RateLimitBucket, number> {
  for (const name of Object.keys(overrides)) {
    if (!isRateLimitBucket(name)) throw notABucket(`quotas.${name}`);
  }
  const quotas = { ...RATE_LIMIT_QUOTAS };
  for (const bucket of RATE_LIMIT_BUCKETS) quotas[bucket] = positiveInt(`quotas.${bucket}`, overrides[bucket], RATE_LIMIT_QUOTAS[bucket]);
  return quotas;
}

import type { RateLimitBucket } from './endpoint.js';

/** Per-minute quotas of the spec's rate-limit buckets (Limits > Rate limits). */
export const RATE_LIMIT_QUOTAS: Readonly<Record<RateLimitBucket, number>> = {
  deposits: 60,
  members_write: 300,
  orders: 120,
  reads: 1200,
};

/** The spec's four buckets, in the order of {@link RATE_LIMIT_QUOTAS}. */
export const RATE_LIMIT_BUCKETS: readonly RateLimitBucket[] = Object.freeze(Object.keys(RATE_LIMIT_QUOTAS) as RateLimitBucket[]);

/** Whether `name` is one of the spec's buckets (for arguments checked at run time). */
export function isRateLimitBucket(name: unknown): name is RateLimitBucket {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(RATE_LIMIT_QUOTAS, name);
}

/** Token exchanges allowed per minute (Limits > Rate limits). */
export const TOKEN_EXCHANGES_PER_MINUTE = 20;

/**
 * The bucket of a request, chosen by method and path prefix as the spec describes: unrecognised
 * writes fall into `orders`, unrecognised reads into `reads`.
 */
export function bucketOf(method: string, path: string): RateLimitBucket {
  if (method === 'GET' || method === 'HEAD') return 'reads';
  const p = pathOnly(path);
  if (p === '/v1/deposits') return 'deposits';
  if (p === '/v1/members' || p.startsWith('/v1/members/')) return 'members_write';
  return 'orders';
}

/**
 * The spec's limits inside a bucket (Limits > Rate limits, "Other rate limits"), with their own
 * quota per minute: QR quotes 30 per member per 60 seconds, bank directory search 300 per minute
 * per merchant (both in addition to the bucket's quota: both must pass). A 429 on such a call
 * pauses only its own sub-limit. The token exchange has its own quota too, kept apart from the
 * four buckets altogether.
 */
export const SUB_LIMIT_QUOTAS = Object.freeze({ qrpay_quotes: 30, swift_search: 300 });

/**
 * The sub-limit key of a request, or `undefined` when it counts against its bucket only:
 * `qrpay_quotes:<member>` for `POST /v1/qrpay/quotes` (per member), `swift_search` for
 * `GET /v1/remit/swift-search`.
 */
export function subLimitOf(method: string, path: string, member: string | undefined): string | undefined {
  const p = pathOnly(path);
  if (method === 'POST' && p === '/v1/qrpay/quotes') return `qrpay_quotes:${member ?? ''}`;
  if (method === 'GET' && p === '/v1/remit/swift-search') return 'swift_search';
  return undefined;
}

function pathOnly(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

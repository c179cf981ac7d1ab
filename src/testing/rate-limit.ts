/** Quota names: the spec's four buckets plus the other limits it lists. */
export type QuotaName = 'deposits' | 'members_write' | 'orders' | 'reads' | 'token' | 'swift_search' | 'qrpay_quotes_member';

/** Default quotas per 60-second window (spec: Limits > Rate limits). */
export const DEFAULT_QUOTAS: Readonly<Record<QuotaName, number>> = {
  deposits: 60,
  members_write: 300,
  orders: 120,
  reads: 1200,
  token: 20,
  swift_search: 300,
  qrpay_quotes_member: 30,
};

/** The window: 60 seconds; `Retry-After` equals it (spec: "equal to the window duration"). */
const WINDOW_MS = 60_000;

/**
 * Bucket by method and path prefix: POST /v1/deposits is `deposits`; POST /v1/members and
 * writes under /v1/members/* are `members_write`; other writes `orders`; reads `reads`.
 */
export function bucketOf(method: string, path: string): 'deposits' | 'members_write' | 'orders' | 'reads' {
  if (method === 'GET' || method === 'HEAD') return 'reads';
  if (method === 'POST' && path === '/v1/deposits') return 'deposits';
  if (path === '/v1/members' || path.startsWith('/v1/members/')) return 'members_write';
  return 'orders';
}

/** Sliding-window counters on the sandbox clock. Only admitted requests are counted. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(private readonly quotas: Record<QuotaName, number>) {}

  /** Admits one request under `key` (quota `name`), or returns false when the quota is spent. */
  admit(name: QuotaName, key: string, now: number): boolean {
    const quota = this.quotas[name];
    const fullKey = `${name}:${key}`;
    const list = (this.hits.get(fullKey) ?? []).filter((t) => t > now - WINDOW_MS);
    if (list.length >= quota) {
      this.hits.set(fullKey, list);
      return false;
    }
    list.push(now);
    this.hits.set(fullKey, list);
    return true;
  }

  /** Changes a quota at run time (tests tighten them). */
  setQuota(name: QuotaName, value: number): void {
    this.quotas[name] = value;
  }

  /** Forgets all counted requests. */
  reset(): void {
    this.hits.clear();
  }
}

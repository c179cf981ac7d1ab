/** The bank directory behind `GET /v1/remit/swift-search`: its simulated banks and the search in steps (spec: bank directory search). */
import { fail } from '../errors.js';
import { charCount, firstChars } from '../text.js';
import type { RouteContext, RouteResult } from './context.js';

/** Bank directory (simulator data). */
const BANKS = [
  {
    swift_code: 'BARCGB22XXX',
    bank_name: 'Barclays Bank PLC',
    address: '1 Churchill Place',
    city: 'London',
    country_code: 'GB',
    branch: '',
  },
  { swift_code: 'DEUTDEFFXXX', bank_name: 'Deutsche Bank AG', address: null, city: 'Frankfurt am Main', country_code: 'DE', branch: '' },
  {
    swift_code: 'DBSSSGSGXXX',
    bank_name: 'DBS Bank Ltd',
    address: '12 Marina Boulevard',
    city: 'Singapore',
    country_code: 'SG',
    branch: '',
  },
  {
    swift_code: 'CHASUS33XXX',
    bank_name: 'JPMorgan Chase Bank, N.A.',
    address: '383 Madison Avenue',
    city: 'New York',
    country_code: 'US',
    branch: '',
  },
  {
    swift_code: 'HSBCHKHHXXX',
    bank_name: 'The Hongkong and Shanghai Banking Corporation Limited',
    address: "1 Queen's Road Central",
    city: 'Hong Kong',
    country_code: 'HK',
    branch: 'Main',
  },
  {
    swift_code: 'BARCGB22LON',
    bank_name: 'Barclays Bank PLC',
    address: '1 Churchill Place',
    city: 'London',
    country_code: 'GB',
    branch: 'London',
  },
];

/** A BIC's shape: 8 characters, or 11 with a branch code. */
const BIC = /^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/i;

/** A query shorter than this makes no external request (spec: bank directory search). */
const SHORT_QUERY = 6;
/** Name queries are truncated above 64 characters (spec: Other constants). */
const NAME_QUERY_MAX = 64;

/** One (simulated) request to the bank directory: `unavailable` when it is down. */
function directory(ctx: RouteContext, search: () => typeof BANKS): RouteResult {
  ctx.store.stats.directorySearches += 1;
  if (!ctx.store.directoryAvailable) return { status: 200, body: { unavailable: true, banks: [] } };
  return { status: 200, body: { unavailable: false, banks: search() } };
}

/**
 * `GET /v1/remit/swift-search`, in steps:
 * 1. its own quota (300 a minute per merchant), then `q` (missing or blank: `invalid_request`);
 * 2. a query under 6 characters answers `banks: []`, `unavailable: false` with no external
 *    request, even while the directory is down (spec). Nothing that short resembles a BIC, which
 *    has 8 or 11 characters (the sandbox's reading);
 * 3. a BIC-shaped query (8 or 11 characters, any case) is looked up as a BIC. Sandbox's choice,
 *    where the spec is silent: when no bank has that BIC, the same query is searched as a name
 *    (`barclays` is BIC-shaped and finds Barclays by name); both count as one external request;
 * 4. a name query is truncated to 64 characters and matched case-insensitively, filtered by
 *    `country` when given.
 */
export function searchBanks(ctx: RouteContext): RouteResult {
  if (!ctx.admit('swift_search', 'merchant')) {
    fail('rate_limited', 'Bank search limit reached.', { extra: { retry_after: 60 }, headers: { 'retry-after': '60' } });
  }
  const q = (ctx.query.get('q') ?? '').trim();
  if (q === '') fail('invalid_request', 'q is required');
  if (charCount(q) < SHORT_QUERY) return { status: 200, body: { unavailable: false, banks: [] } };
  const country = ctx.query.get('country');
  const byName = (): typeof BANKS => {
    const name = firstChars(q, NAME_QUERY_MAX).toLowerCase();
    return BANKS.filter((b) => b.bank_name.toLowerCase().includes(name) && (country === null || b.country_code === country));
  };
  if (!BIC.test(q)) return directory(ctx, byName);
  const code = q.toUpperCase();
  return directory(ctx, () => {
    const hits = BANKS.filter((b) => (code.length === 8 ? b.swift_code.startsWith(code) : b.swift_code === code));
    return hits.length > 0 ? hits : byName();
  });
}

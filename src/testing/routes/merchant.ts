/**
 * Merchant account. `POST /v1/merchant/topups` and `POST /v1/sandbox/faucet` follow the spec's
 * shapes; the `GET /v1/merchant/*` reads and `POST /v1/merchant/deposit-address` are
 * named-only in the spec and their shapes here are simulator-invented.
 */
import { paginate } from '../cursor.js';
import { fail } from '../errors.js';
import { iso, hex, uuid } from '../ids.js';
import type { StoredResponse } from '../idempotency.js';
import { Decimal, fmt, parsePositive } from '../money.js';
import type { LineName } from '../state-merchant.js';
import { lineOpen, prepaidOf } from '../store-ops.js';
import { charCount, firstChars } from '../text.js';
import type { RouteContext, RouteDef, RouteResult } from './context.js';
import { optString, staticList } from './fields.js';

/** Digits, an optional fraction of 1 to 12 digits; the integer digits are counted without leading zeros. */
const TOPUP_AMOUNT = /^(\d+)(\.\d{1,12})?$/;
/**
 * The fixed Chinese receipt prefix merged into `note` (spec: reference_no). The spec does not
 * show it, nor its length, nor the order of the merge: sandbox's choice, 31 characters, then the
 * reference, one space and the note, the whole cut at 300 characters as the spec says the service
 * does. The client sends every note (the cut is the service's, never a refusal).
 */
const RECEIPT_PREFIX = '【沙盒模拟】预付款充值银行回单号（商户申报，仅供对账与核验）：';

/**
 * A top-up amount (spec: positive, at most 20 integer digits and 12 decimal places). Sandbox's
 * choice where the spec is silent, the client's too: leading zeros are accepted and not counted
 * (`007` is 7, one digit), since a decimal string has one reading; the text is stored unchanged.
 */
function topupAmountValid(amount: unknown): amount is string {
  if (typeof amount !== 'string') return false;
  const m = TOPUP_AMOUNT.exec(amount);
  return m !== null && (m[1] ?? '').replace(/^0+/, '').length <= 20 && new Decimal(amount).gt(0);
}
const FAUCET_DEFAULT = '10000';
const FAUCET_MAX = new Decimal(1_000_000);

function invalidField(key: string, reason: string): never {
  fail('invalid_fields', `${key} is invalid.`, { extra: { fields: [{ key, reason }], reason } });
}

/** Adds `duplicated: true` to a replayed faucet credit (spec: same key, same credit). */
function markDuplicated(stored: StoredResponse): StoredResponse {
  if (stored.status !== 200) return stored;
  const body = JSON.parse(stored.body) as Record<string, unknown>;
  return { ...stored, body: JSON.stringify({ ...body, duplicated: true }) };
}

/** `POST /v1/merchant/topups`. */
function declareTopup(ctx: RouteContext): RouteResult {
  const body = ctx.json();
  const asset = ctx.store.assets.requireEnabled(body['asset']);
  // Only exactly `fiat` selects fiat; anything else silently becomes `chain`.
  const channel: 'fiat' | 'chain' = body['channel'] === 'fiat' ? 'fiat' : 'chain';
  const amount = body['amount'];
  if (!topupAmountValid(amount)) invalidField('amount', 'invalid_amount');
  const ref = body['reference_no'];
  if (ref !== undefined && ref !== null && (typeof ref !== 'string' || charCount(ref) > 64)) invalidField('reference_no', 'too_long');
  const note = optString(body, 'note') ?? '';
  // Prefix and reference first, then one space and the note; an empty reference merges nothing.
  const merged = [typeof ref === 'string' && ref !== '' ? `${RECEIPT_PREFIX}${ref}` : '', note].filter((s) => s !== '').join(' ');
  const rec = {
    id: uuid(),
    asset: asset.code,
    channel,
    amount_text: amount,
    note: firstChars(merged, 300),
    status: 'pending' as const,
    created_at: ctx.now,
  };
  ctx.store.topups.set(rec.id, rec);
  return { status: 201, body: { id: rec.id, asset: rec.asset, channel, amount_text: amount, status: 'pending' } };
}

/** `GET /v1/merchant/balances`. */
function merchantBalances(ctx: RouteContext): RouteResult {
  const { merchant, assets } = ctx.store;
  // Platform-operated entities have no prepaid pool.
  const rows = merchant.custody === 'platform' ? [] : [...merchant.prepaid.entries()];
  const data = rows.map(([code, row]) => {
    const a = assets.get(code);
    return {
      asset: a.code,
      available: fmt(row.available, a.ledger_scale),
      locked: fmt(row.locked, a.ledger_scale),
      queued: fmt(row.queued, a.ledger_scale),
      ledger_scale: a.ledger_scale,
      display_scale: a.display_scale,
    };
  });
  return { status: 200, body: staticList(data) };
}

/** `POST /v1/sandbox/faucet`. */
function creditFaucet(ctx: RouteContext): RouteResult {
  const key = ctx.idempotencyKey ?? '';
  // The journal posts once per key, forever: after the 24 h window it still says duplicated.
  const prior = ctx.store.faucetByKey.get(key);
  if (prior) return { status: 200, body: { ...prior, duplicated: true } };
  const body = ctx.json();
  const asset = ctx.store.assets.requireEnabled(body['asset']);
  const amount = parsePositive(body['amount'] ?? FAUCET_DEFAULT, asset.ledger_scale, 'amount');
  if (amount.gt(FAUCET_MAX)) fail('limit_exceeded', 'At most 1,000,000 units per request.', { extra: { limit_type: 'single' } });
  const row = prepaidOf(ctx.store.merchant, asset.code);
  row.available = row.available.plus(amount);
  const out = {
    ok: true,
    asset: asset.code,
    credited: fmt(amount, asset.ledger_scale),
    ledger_scale: asset.ledger_scale,
    journal_id: `jrn_${uuid()}`,
  };
  ctx.store.faucetByKey.set(key, out);
  ctx.effect('faucet.credit', out.journal_id, { asset: asset.code, amount: amount.toFixed() });
  return { status: 200, body: out };
}

/** Merchant account and faucet routes. */
export const merchantRoutes: RouteDef[] = [
  {
    method: 'POST',
    path: '/v1/merchant/topups',
    scope: 'merchant:write',
    member: 'none',
    idempotency: 'required',
    handler: declareTopup,
  },
  {
    method: 'GET',
    path: '/v1/merchant/topups',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const { page, next_cursor, has_more } = paginate([...ctx.store.topups.values()], ctx.query, {
        now: ctx.now,
        generation: ctx.store.cursorGeneration,
      });
      const data = page.map((t) => ({ ...t, created_at: iso(t.created_at) }));
      return { status: 200, body: { data, next_cursor, has_more } };
    },
  },
  {
    method: 'GET',
    path: '/v1/merchant/balances',
    member: 'none',
    idempotency: 'none',
    handler: merchantBalances,
  },
  {
    method: 'GET',
    path: '/v1/merchant/lines',
    member: 'none',
    idempotency: 'none',
    // Sandbox's own shape (the spec names the endpoint only): one item per line, its switch and
    // its halt apart, since the spec tells the two states apart ("enabled and not halted").
    handler(ctx) {
      const { lines, halted } = ctx.store.merchant;
      const data = (Object.keys(lines) as LineName[]).map((line) => ({ line, enabled: lines[line], halted: halted[line] }));
      return { status: 200, body: staticList(data) };
    },
  },
  {
    method: 'GET',
    path: '/v1/merchant/pending',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const data = [...ctx.store.merchant.prepaid.entries()]
        .filter(([, row]) => row.queued.gt(0))
        .map(([code, row]) => ({
          asset: code,
          amount: fmt(row.queued, ctx.store.assets.get(code).ledger_scale),
          status: 'pending_merchant_funds',
        }));
      return { status: 200, body: staticList(data) };
    },
  },
  {
    method: 'GET',
    path: '/v1/merchant/conversion-pairs',
    member: 'none',
    idempotency: 'none',
    handler(ctx) {
      const data = [...ctx.store.conversionPairs.values()].map((p) => ({
        from_asset: p.from,
        to_asset: p.to,
        enabled: p.enabled,
        fee_rate: p.fee_rate.toFixed(),
        fee_side: p.fee_side,
        min_from_amount: p.min_from_amount?.toFixed() ?? null,
        max_from_amount: p.max_from_amount?.toFixed() ?? null,
      }));
      return { status: 200, body: staticList(data) };
    },
  },
  {
    method: 'POST',
    path: '/v1/merchant/deposit-address',
    member: 'none',
    idempotency: 'optional',
    handler(ctx) {
      const body = ctx.json();
      const asset = ctx.store.assets.requireEnabled(body['asset']);
      const network = optString(body, 'network') ?? 'default';
      if (!lineOpen(ctx.store.merchant, 'deposit_address')) {
        fail('service_unavailable', 'Deposit addresses are temporarily unavailable.', { extra: { retry_after: 30 }, storable: false });
      }
      const key = `deposit-address:${asset.code}:${network}`;
      let rec = ctx.store.objects.get(key);
      if (!rec) {
        rec = { asset: asset.code, network, address: `sbx${hex(20)}`, memo: '', created_at: iso(ctx.now) };
        ctx.store.objects.set(key, rec);
      }
      return { status: 200, body: rec };
    },
  },
  {
    method: 'POST',
    path: '/v1/sandbox/faucet',
    member: 'none',
    idempotency: 'required',
    // Live credentials always get 404 not_found: the token's key decides, not the host (spec).
    sandboxOnly: true,
    replay: markDuplicated,
    handler: creditFaucet,
  },
];

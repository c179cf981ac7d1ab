/** API shapes built from store records, shared by routes and the state facade. */
import type { AssetTable } from './assets.js';
import { iso } from './ids.js';
import { fmt } from './money.js';
import { BUCKETS } from './store-ops.js';
import type { Buckets, CardRecord, ReportRecord, WithdrawalRecord } from './store.js';

/** A balance row: the eight buckets at the asset's ledger scale, plus both scales. */
export function balanceRow(assets: AssetTable, asset: string, row: Buckets): Record<string, string | number> {
  const def = assets.get(asset);
  const out: Record<string, string | number> = { asset: def.code };
  for (const b of BUCKETS) out[b] = fmt(row[b], def.ledger_scale);
  out['ledger_scale'] = def.ledger_scale;
  out['display_scale'] = def.display_scale;
  return out;
}

/** Withdrawal order (spec fields; `created_at` and `status` beyond `locked` are the simulator's). */
export function withdrawalView(assets: AssetTable, w: WithdrawalRecord): Record<string, unknown> {
  const scale = assets.get(w.asset).ledger_scale;
  return {
    id: w.id,
    status: w.status,
    asset: w.asset,
    amount: fmt(w.amount, scale),
    ledger_scale: scale,
    to_address: w.to_address,
    created_at: iso(w.created_at),
  };
}

/** Export report list item (no `download_url` in lists). */
export function reportView(r: ReportRecord): Record<string, unknown> {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status,
    rows: r.rows,
    bytes: r.bytes,
    error: r.error,
    expires_at: iso(r.expires_at),
    created_at: iso(r.created_at),
  };
}

/** Card details (simulator-invented shape for `GET /v1/cards/{id}`). No number fragments. */
export function cardView(c: CardRecord, now: number): Record<string, unknown> {
  return {
    id: c.id,
    status: c.status,
    form: c.form,
    product_id: c.product_id,
    application_id: c.application_id ?? null,
    currency: c.currency,
    balance: fmt(c.balance, c.scale),
    limits: {
      single: fmt(c.limits.single, c.scale),
      daily: fmt(c.limits.daily, c.scale),
      monthly: fmt(c.limits.monthly, c.scale),
    },
    limits_updatable: c.limits_updatable,
    activation_locked_until: c.lockedUntil !== undefined && c.lockedUntil > now ? iso(c.lockedUntil) : null,
    created_at: iso(c.created_at),
  };
}

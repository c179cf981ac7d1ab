/** Card records and derived views shared by card routes and seeding. */
import { iso } from './ids.js';
import { Decimal, ZERO, type Dec } from './money.js';
import type { ClosePhase } from './state-cards.js';
import type { CardForm, CardRecord, ProductRecord, Store } from './store.js';

/** Activation lockout: 3 failures lock the card for 24 hours (spec). */
export const ACTIVATION_MAX_FAILURES = 3;
/** How long an activation lock lasts. */
export const ACTIVATION_LOCK_MS = 24 * 60 * 60 * 1000;

/** Default card products (simulator data). */
export function defaultProducts(): ProductRecord[] {
  const max = { single: new Decimal(5000), daily: new Decimal(10000), monthly: new Decimal(50000) };
  return [
    {
      id: 'cpd_sbx_virtual_usd',
      name: 'Sandbox Virtual USD',
      form: 'virtual',
      currency: 'USD',
      country: 'SG',
      kyc_level: 1,
      issuance_fee: new Decimal(5),
      min_initial_topup: new Decimal(10),
      max,
      enabled: true,
    },
    {
      id: 'cpd_sbx_physical_usd',
      name: 'Sandbox Physical USD',
      form: 'physical',
      currency: 'USD',
      country: 'SG',
      kyc_level: 1,
      issuance_fee: new Decimal(15),
      min_initial_topup: new Decimal(20),
      max,
      enabled: true,
    },
  ];
}

/** Product view for `GET /v1/cards/products` (simulator-invented shape). */
export function productView(p: ProductRecord): Record<string, unknown> {
  return {
    id: p.id,
    name: p.name,
    form: p.form,
    currency: p.currency,
    country: p.country,
    kyc_level: p.kyc_level,
    funding_asset: 'USDT',
    issuance_fee: p.issuance_fee.toFixed(2),
    min_initial_topup: p.min_initial_topup.toFixed(2),
    max_single: p.max.single.toFixed(2),
    max_daily: p.max.daily.toFixed(2),
    max_monthly: p.max.monthly.toFixed(2),
  };
}

/** Fields of a new card; everything not given takes a plain default. */
export interface NewCard {
  id: string;
  memberId: string;
  form: CardForm;
  status: string;
  product: ProductRecord | undefined;
  now: number;
  applicationId?: string;
  expiry?: string;
  pin?: string;
}

/** Builds a card record. */
export function makeCard(c: NewCard): CardRecord {
  const max = c.product?.max ?? { single: new Decimal(5000), daily: new Decimal(10000), monthly: new Decimal(50000) };
  return {
    id: c.id,
    memberId: c.memberId,
    form: c.form,
    status: c.status,
    product_id: c.product?.id ?? (c.form === 'physical' ? 'cpd_sbx_physical_usd' : 'cpd_sbx_virtual_usd'),
    application_id: c.applicationId,
    currency: c.product?.currency ?? 'USD',
    scale: 2,
    funding_asset: 'USDT',
    expiry: c.expiry ?? '12/29',
    pin: c.pin ?? '1234',
    inventory: 'shipped',
    failures: 0,
    lockedUntil: undefined,
    limits: { single: ZERO, daily: ZERO, monthly: ZERO },
    maxLimits: max,
    limits_updatable: true,
    balance: ZERO,
    authHeld: ZERO,
    adminHeld: ZERO,
    minRetained: ZERO,
    feesOutstanding: ZERO,
    pendingWithdraw: false,
    closeRequested: false,
    closePhase: 'idle',
    pendingInitialTopup: ZERO,
    statusChangedAt: c.now,
    created_at: c.now,
  };
}

/** Close phase: a seeded non-idle phase wins, else holds and fees block. */
export function closePhaseOf(c: CardRecord): ClosePhase {
  if (c.closePhase !== 'idle') return c.closePhase;
  if (c.authHeld.gt(0)) return 'blocked_hold';
  if (c.feesOutstanding.gt(0)) return 'blocked_fee';
  return 'idle';
}

/** What may be withdrawn keeping the product's minimum retained balance. */
export function withdrawableOf(c: CardRecord): Dec {
  const w = c.balance.minus(c.authHeld).minus(c.adminHeld).minus(c.minRetained);
  return w.gt(0) ? w : ZERO;
}

const minor = (v: Dec, scale: number): string => v.mul(new Decimal(10).pow(scale)).toFixed(0);

/** `GET /v1/cards/{id}/close-check` body (camelCase; amounts in minor units at `scale`). */
export function closeCheck(c: CardRecord): Record<string, unknown> {
  const withdrawable = withdrawableOf(c);
  const phase = closePhaseOf(c);
  return {
    balance: minor(c.balance, c.scale),
    held: minor(c.balance.minus(withdrawable), c.scale),
    authHeld: minor(c.authHeld, c.scale),
    withdrawable: minor(withdrawable, c.scale),
    // Below the minimum retained amount canClose stays false; POST close is sent directly.
    canClose:
      phase === 'idle' &&
      !c.pendingWithdraw &&
      !c.closeRequested &&
      c.balance.gte(c.minRetained) &&
      !['closed', 'closing', 'expired'].includes(c.status),
    pendingWithdraw: c.pendingWithdraw,
    closeRequested: c.closeRequested,
    closePhase: phase,
    scale: c.scale,
    currency: c.currency,
  };
}

/** External id of a card's member, for event payloads. */
export function externalIdOf(store: Store, memberId: string): string {
  return store.members.get(memberId)?.external_member_id ?? '';
}

/** ISO of a lock end, or null. */
export function lockedUntilIso(c: CardRecord, now: number): string | null {
  return c.lockedUntil !== undefined && c.lockedUntil > now ? iso(c.lockedUntil) : null;
}

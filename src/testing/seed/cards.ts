/** Seeding cards: any status, balance, holds, limits and close state, funded from the `card` bucket. */
import { makeCard } from '../card-logic.js';
import { iso, uuid } from '../ids.js';
import { fmt, type Dec } from '../money.js';
import { rowOf, seedDec } from '../store-ops.js';
import type { CardRecord, MemberRecord, Store } from '../store.js';
import type { CardSnapshot, SeedCardInput } from '../state-cards.js';
import type { SandboxState } from '../state-types.js';
import { mustMember, type SeedContext } from './context.js';

type CardSeeds = Pick<SandboxState, 'seedCard' | 'card'>;
type LimitsInput = SeedCardInput['limits'];

/** A card as tests see it; the activation lock shows only while it lasts. */
function cardSnap(c: CardRecord, now: number): CardSnapshot {
  return {
    id: c.id,
    member_id: c.memberId,
    form: c.form,
    status: c.status,
    inventory: c.inventory,
    failures: c.failures,
    locked_until: c.lockedUntil !== undefined && c.lockedUntil > now ? iso(c.lockedUntil) : null,
    balance: fmt(c.balance, c.scale),
    limits: { single: fmt(c.limits.single, c.scale), daily: fmt(c.limits.daily, c.scale), monthly: fmt(c.limits.monthly, c.scale) },
  };
}

/** Seeded limits, each falling back to `fallback`'s (0 when none). */
function limitsOf(input: NonNullable<LimitsInput>, fallback?: CardRecord['limits']): CardRecord['limits'] {
  return {
    single: seedDec(input.single, fallback?.single),
    daily: seedDec(input.daily, fallback?.daily),
    monthly: seedDec(input.monthly, fallback?.monthly),
  };
}

/** A card record with the identity, product and secrets of the input. */
function newSeededCard(store: Store, m: MemberRecord, input: SeedCardInput, now: number): CardRecord {
  const form = input.form ?? 'virtual';
  return makeCard({
    id: input.id ?? `crd_${uuid()}`,
    memberId: m.id,
    form,
    status: input.status ?? (form === 'physical' ? 'unactivated' : 'active'),
    product: input.product_id ? store.products.get(input.product_id) : undefined,
    now,
    ...(input.application_id !== undefined ? { applicationId: input.application_id } : {}),
    ...(input.expiry !== undefined ? { expiry: input.expiry } : {}),
    ...(input.pin !== undefined ? { pin: input.pin } : {}),
  });
}

/** Applies the money and close-state fields of the input. */
function applyCardState(c: CardRecord, input: SeedCardInput): void {
  if (input.inventory) c.inventory = input.inventory;
  c.balance = seedDec(input.balance);
  c.authHeld = seedDec(input.auth_held);
  c.adminHeld = seedDec(input.admin_held);
  c.minRetained = seedDec(input.min_retained);
  c.feesOutstanding = seedDec(input.fees_outstanding);
  c.pendingWithdraw = input.pending_withdraw ?? false;
  c.closeRequested = input.close_requested ?? false;
  c.closePhase = input.close_phase ?? 'idle';
  c.limits_updatable = input.limits_updatable ?? true;
  c.failures = input.failures ?? 0;
  c.pendingInitialTopup = seedDec(input.pending_initial_topup);
  if (input.limits) c.limits = limitsOf(input.limits);
  if (input.max_limits) c.maxLimits = limitsOf(input.max_limits, c.maxLimits);
}

/** Funds on (or on their way to) the card sit in the member's `card` bucket. */
function holdInCardBucket(m: MemberRecord, c: CardRecord): void {
  const onCard: Dec = c.balance.plus(c.pendingInitialTopup);
  if (onCard.gt(0)) {
    const row = rowOf(m, c.funding_asset);
    row.card = row.card.plus(onCard);
  }
}

/** The card seeders of `sandbox.state`. */
export function cardSeeds({ store, now }: SeedContext): CardSeeds {
  return {
    seedCard(input) {
      const m = mustMember(store, input.member);
      const c = newSeededCard(store, m, input, now());
      applyCardState(c, input);
      holdInCardBucket(m, c);
      store.cards.set(c.id, c);
      return cardSnap(c, now());
    },
    card(id) {
      const c = store.cards.get(id);
      return c ? cardSnap(c, now()) : undefined;
    },
  };
}

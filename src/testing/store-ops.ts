/** What every route does with the store's rows: balance buckets and their moves, prepaid rows, the member lookup, new members. */
import { fail } from './errors.js';
import { Decimal, ZERO, type Dec } from './money.js';
import type { Bucket } from './state-members.js';
import type { LineName } from './state-merchant.js';
import type { Buckets, MemberRecord, MerchantRecord, PrepaidRow, Store } from './store.js';

// Keyed by Bucket, so that a bucket missing here fails to compile; in the spec's order.
const BUCKET_SET: Readonly<Record<Bucket, true>> = {
  available: true,
  pending: true,
  frozen: true,
  isolated: true,
  locked: true,
  card: true,
  earn: true,
  withdrawing: true,
};

/** The eight member balance buckets (spec: Balance row). */
export const BUCKETS = Object.keys(BUCKET_SET) as readonly Bucket[];

/**
 * Whether a line takes orders: enabled and not halted (spec: "the merchant's withdraw line is
 * enabled and not halted"; disabled or halted, the call answers `service_unavailable` at once).
 */
export function lineOpen(merchant: Pick<MerchantRecord, 'lines' | 'halted'>, line: LineName): boolean {
  return merchant.lines[line] && !merchant.halted[line];
}

/** New empty buckets. */
export function emptyBuckets(): Buckets {
  return {
    available: ZERO,
    pending: ZERO,
    frozen: ZERO,
    isolated: ZERO,
    locked: ZERO,
    card: ZERO,
    earn: ZERO,
    withdrawing: ZERO,
  };
}

/** The member's buckets for `asset`, creating the account row (it then appears in balances). */
export function rowOf(member: MemberRecord, asset: string): Buckets {
  let row = member.balances.get(asset);
  if (!row) {
    row = emptyBuckets();
    member.balances.set(asset, row);
  }
  return row;
}

/** Adds `amount` to a bucket (negative to remove, unchecked: callers check first). */
export function adjust(member: MemberRecord, asset: string, bucket: Bucket, amount: Dec): void {
  const row = rowOf(member, asset);
  row[bucket] = row[bucket].plus(amount);
}

/** An amount of one asset moving between two of a member's buckets. */
export interface Transfer {
  asset: string;
  from: Bucket;
  to: Bucket;
  amount: Dec;
}

/**
 * Fails with `code` unless the member's `bucket` holds at least `amount`. Reads without creating
 * the account row: a refused debit leaves a member who never received funds with no rows
 * (spec: `GET /v1/balances` returns only assets with account rows).
 */
function requireHeld(member: MemberRecord, asset: string, bucket: Bucket, amount: Dec, code: string): void {
  const held = member.balances.get(asset)?.[bucket] ?? ZERO;
  if (held.lt(amount)) fail(code, `${bucket} ${asset} balance is too low.`);
}

/** Moves an amount between buckets, failing with `code` when `from` holds less. */
export function move(member: MemberRecord, { asset, from, to, amount }: Transfer, code = 'insufficient_balance'): void {
  requireHeld(member, asset, from, amount, code);
  const row = rowOf(member, asset);
  row[from] = row[from].minus(amount);
  row[to] = row[to].plus(amount);
}

/** Takes `amount` out of a bucket (funds leave the member), failing with `code` if short. */
export function debit(member: MemberRecord, asset: string, bucket: Bucket, amount: Dec, code = 'insufficient_balance'): void {
  requireHeld(member, asset, bucket, amount, code);
  const row = rowOf(member, asset);
  row[bucket] = row[bucket].minus(amount);
}

/** The merchant prepaid row for `asset`, created on first use. */
export function prepaidOf(merchant: MerchantRecord, asset: string): PrepaidRow {
  let row = merchant.prepaid.get(asset);
  if (!row) {
    row = { available: ZERO, locked: ZERO, queued: ZERO };
    merchant.prepaid.set(asset, row);
  }
  return row;
}

/** Parses seed amounts (tests pass plain strings or numbers). */
export function seedDec(value: string | number | undefined, fallback: Dec = ZERO): Dec {
  return value === undefined ? fallback : new Decimal(value);
}

/**
 * The member a reference names: the `mem_` id or the external id, in any status. The one lookup
 * of the simulator; the member context, the member routes and the seeders add their own rules.
 */
export function memberByRef(store: Store, ref: string): MemberRecord | undefined {
  return store.members.get(ref) ?? [...store.members.values()].find((m) => m.external_member_id === ref);
}

/** A fresh active member with no balances and no KYC. */
export function newMember(id: string, externalId: string, now: number): MemberRecord {
  return {
    id,
    external_member_id: externalId,
    status: 'active',
    created_at: now,
    kyc: { l1: 'none', l2: 'none', kyc_id: '' },
    restricted: false,
    balances: new Map(),
    quickKyc: [],
    kycApplications: [],
    vpApplication: undefined,
    vpAccountOpened: false,
    paymentPriorities: ['USDT', 'USDC'],
    withdrawLimits: new Map(),
  };
}

/** KYC level from the standard statuses: 2 when L2 approved, 1 when L1 approved, else 0. */
export function kycLevel(m: MemberRecord): number {
  if (m.kyc.l1 === 'approved' && m.kyc.l2 === 'approved') return 2;
  return m.kyc.l1 === 'approved' ? 1 : 0;
}

/** Seeding members: creation, balances, KYC statuses, the personal account, suspension. */
import { iso, uuid } from '../ids.js';
import { ZERO, fmt, type Dec } from '../money.js';
import { BUCKETS, emptyBuckets, kycLevel, memberByRef, newMember, rowOf, seedDec } from '../store-ops.js';
import type { MemberRecord, Store } from '../store.js';
import type { AmountInput, BalanceSnapshot, BucketsInput, SandboxMember, SeedMemberInput } from '../state-members.js';
import type { SandboxState } from '../state-types.js';
import { mustMember, type SeedContext } from './context.js';

type MemberSeeds = Pick<
  SandboxState,
  'seedMember' | 'member' | 'balance' | 'setBalance' | 'setKyc' | 'setKycResult' | 'openVpAccount' | 'suspendMember' | 'setWithdrawalLimits'
>;

/** A member as tests see it. */
export function memberSnap(m: MemberRecord): SandboxMember {
  return { id: m.id, external_member_id: m.external_member_id, status: m.status, kyc_level: kycLevel(m), created_at: iso(m.created_at) };
}

/** Overwrites the given buckets of one asset, creating the account row. */
function setBuckets(store: Store, m: MemberRecord, asset: string, buckets: BucketsInput): void {
  const row = rowOf(m, store.assets.get(asset).code);
  for (const b of BUCKETS) if (buckets[b] !== undefined) row[b] = seedDec(buckets[b]);
}

/** A seeded amount, or undefined when not given. */
function seedDecOrUndefined(v: AmountInput | undefined): Dec | undefined {
  return v === undefined ? undefined : seedDec(v);
}

/** The KYC id of a member, given on first use. */
function ensureKycId(store: Store, m: MemberRecord): void {
  if (m.kyc.kyc_id === '') m.kyc.kyc_id = `kyc_${++store.seq.kyc}`;
}

/** A new member from seeding input (not yet stored). */
function seededMember(store: Store, input: SeedMemberInput, now: number): MemberRecord {
  const m = newMember(input.id ?? `mem_${uuid()}`, input.external_member_id ?? `ext_${uuid().slice(0, 8)}`, now);
  if (input.kyc_level !== undefined && input.kyc_level >= 1) {
    m.kyc = { l1: 'approved', l2: input.kyc_level >= 2 ? 'approved' : 'none', kyc_id: `kyc_${++store.seq.kyc}` };
  }
  m.status = input.status ?? 'active';
  m.restricted = input.restricted ?? false;
  if (input.payment_priorities) m.paymentPriorities = input.payment_priorities.map((a) => a.toUpperCase());
  return m;
}

/** All eight buckets of one asset with their total (zeros when the member has no row). */
function balanceOf(store: Store, m: MemberRecord, asset: string): BalanceSnapshot {
  const def = store.assets.get(asset);
  const row = m.balances.get(def.code) ?? emptyBuckets();
  const out = { asset: def.code, ledger_scale: def.ledger_scale, display_scale: def.display_scale } as BalanceSnapshot;
  let total: Dec = ZERO;
  for (const b of BUCKETS) {
    out[b] = fmt(row[b], def.ledger_scale);
    total = total.plus(row[b]);
  }
  out.total = fmt(total, def.ledger_scale);
  return out;
}

/** The member seeders of `sandbox.state`. */
export function memberSeeds({ store, now, emit }: SeedContext): MemberSeeds {
  return {
    seedMember(input = {}) {
      const m = seededMember(store, input, now());
      store.members.set(m.id, m);
      for (const [asset, buckets] of Object.entries(input.balances ?? {})) setBuckets(store, m, asset, buckets);
      return memberSnap(m);
    },
    member(ref) {
      const m = memberByRef(store, ref);
      return m ? memberSnap(m) : undefined;
    },
    balance: (ref, asset) => balanceOf(store, mustMember(store, ref), asset),
    setBalance(ref, asset, buckets) {
      setBuckets(store, mustMember(store, ref), asset, buckets);
    },
    setKyc(ref, kyc) {
      const m = mustMember(store, ref);
      if (kyc.l1) m.kyc.l1 = kyc.l1;
      if (kyc.l2) m.kyc.l2 = kyc.l2;
      ensureKycId(store, m);
    },
    setKycResult(ref, result, level = 1) {
      const m = mustMember(store, ref);
      for (const a of m.kycApplications) if (a.status === 'pending') a.status = result;
      if (level === 1) m.kyc.l1 = result;
      else m.kyc.l2 = result;
      ensureKycId(store, m);
      emit({
        event_type: 'kyc.result.updated',
        data: { object: 'kyc', id: m.kyc.kyc_id, external_member_id: m.external_member_id, status: result },
      });
    },
    openVpAccount(ref) {
      const m = mustMember(store, ref);
      m.vpAccountOpened = true;
      if (m.vpApplication) m.vpApplication.status = 'approved';
    },
    suspendMember(ref) {
      mustMember(store, ref).status = 'suspended';
    },
    setWithdrawalLimits(ref, asset, limits) {
      const m = mustMember(store, ref);
      const code = store.assets.get(asset).code;
      if (limits === null) m.withdrawLimits.delete(code);
      else m.withdrawLimits.set(code, { single: seedDecOrUndefined(limits.single), daily: seedDecOrUndefined(limits.daily) });
    },
  };
}

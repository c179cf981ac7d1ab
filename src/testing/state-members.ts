/** Public types of `sandbox.state` for members: their balance buckets, KYC statuses, seeding input and snapshots. */
// The vocabulary of the seeding API (buckets, KYC statuses, amounts) is also the store's: defined
// here, with the public types, so that the store and the facade cannot drift apart.

/** One of the eight member balance buckets (spec: Balance row). */
export type Bucket = 'available' | 'pending' | 'frozen' | 'isolated' | 'locked' | 'card' | 'earn' | 'withdrawing';

/** Standard KYC level status. */
export type KycStatus = 'none' | 'pending' | 'approved' | 'rejected';

/** A decimal amount in seeding input. */
export type AmountInput = string | number;

/** Bucket amounts to seed for one asset, e.g. `{ available: '100', locked: '5' }`. */
export type BucketsInput = Partial<Record<Bucket, AmountInput>>;

/** Input of {@link SandboxState.seedMember}. */
export interface SeedMemberInput {
  /** Default: `ext_<random>`. */
  external_member_id?: string;
  /** Default: `mem_<uuid>`. */
  id?: string;
  /** Per asset, e.g. `{ USDT: { available: '100' } }`. */
  balances?: Record<string, BucketsInput>;
  /** 1: L1 approved; 2: L1 and L2 approved. Default 0. */
  kyc_level?: 0 | 1 | 2;
  /** Suspended members read as `member_not_found`. */
  status?: 'active' | 'suspended';
  /** Banned/blocklisted/frozen: withdrawals answer `request_rejected`. */
  restricted?: boolean;
  /** QR payment asset priorities (default USDT then USDC). */
  payment_priorities?: string[];
}

/** A member as seen by tests. */
export interface SandboxMember {
  /** `mem_<uuid>`. */
  id: string;
  /** The merchant's member id. */
  external_member_id: string;
  /** `suspended` members answer `member_not_found`. */
  status: 'active' | 'suspended';
  /** 0, 1 (L1 approved) or 2 (L1 and L2 approved). */
  kyc_level: number;
  /** ISO 8601. */
  created_at: string;
}

/** All eight buckets of one asset, plus their sum (`total`) and the scales. */
export type BalanceSnapshot = Record<Bucket, string> & {
  /** Asset code. */
  asset: string;
  /** Sum of the eight buckets. */
  total: string;
  /** Decimal places of the ledger. */
  ledger_scale: number;
  /** Decimal places for display. */
  display_scale: number;
};

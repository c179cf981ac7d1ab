/** Public types of `sandbox.state`: seeding inputs, snapshots and the facade interface. */
import type { SandboxAsset } from './assets.js';

// ---------------------------------------------------------------------------------------------
// The vocabulary of the seeding API, also the store's: defined here, with the public types.
// ---------------------------------------------------------------------------------------------

/** One of the eight member balance buckets (spec: Balance row). */
export type Bucket = 'available' | 'pending' | 'frozen' | 'isolated' | 'locked' | 'card' | 'earn' | 'withdrawing';

/** Standard KYC level status. */
export type KycStatus = 'none' | 'pending' | 'approved' | 'rejected';

/** The merchant's switchable lines (`GET /v1/merchant/lines`, `state.setLine`). */
export type LineName = 'withdraw' | 'deposit' | 'conversion' | 'exchange' | 'qrpay' | 'remit' | 'card' | 'deposit_address';

/** Card close phase as the close precheck reports it. */
export type ClosePhase = 'idle' | 'sweeping' | 'freezing' | 'closing' | 'blocked_hold' | 'blocked_fee';

/** Seeded or computed pending action of a remittance. */
export type ActionSeed =
  | 'auto'
  | null
  | {
      /** Action kind, known (`slippage`, `supplement`) or not. */
      kind: string;
      /** Other fields, returned unchanged. */
      [field: string]: unknown;
    };

/** One money-moving effect that actually executed (replays add none). */
export interface EffectRecord {
  /** What happened, e.g. `withdrawal.create`, `faucet.credit`, `conversion.execute`. */
  kind: string;
  /** Id of the object created or acted on. */
  id: string;
  /** The request's idempotency key, or null for time-driven effects. */
  idempotencyKey: string | null;
  /** Sandbox time in ms. */
  at: number;
  /** Member whose funds moved, when any. */
  memberId?: string;
  /** Asset moved, when one. */
  asset?: string;
  /** Amount moved as a plain decimal string, when one. */
  amount?: string;
}

/** A remittance corridor (spec: Corridor), with the lines it is offered on. */
export interface CorridorRecord {
  /** Payee country. */
  country: string;
  /** Payout currency. */
  currency: string;
  /** Payment method. */
  payment_method: string;
  /** Clearing systems (sent back exactly as listed). */
  clearing_systems: string[];
  /** Lines the corridor is offered on. */
  lines: Array<'express' | 'pobo'>;
}

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

/** The merchant as seen by tests. */
export interface MerchantSnapshot {
  /** Merchant id. */
  id: string;
  /** `merchant_hosted` (prepaid pool) or `platform`. */
  custody: 'merchant_hosted' | 'platform';
  /** `suspended` allows reads and rejects writes; `disabled` rejects everything (`merchant_disabled`). */
  status: 'active' | 'suspended' | 'disabled';
  /** Prepaid account columns per asset. */
  prepaid: Record<
    string,
    {
      /** Spendable prepaid balance. */
      available: string;
      /** Held by asynchronous orders. */
      locked: string;
      /** Queued amounts (count against conversions). */
      queued: string;
    }
  >;
  /** Each line's switch (`setLine`): a disabled line answers `service_unavailable`. */
  lines: Record<LineName, boolean>;
  /** Each line's halt (`setLineHalted`): a halted line answers `service_unavailable`, whatever its switch. */
  halted: Record<LineName, boolean>;
}

/** Input of {@link SandboxState.seedCard}. Card amounts are in card-currency units (USD). */
export interface SeedCardInput {
  /** Owner (id or external id). */
  member: string;
  /** Default `crd_<uuid>`. */
  id?: string;
  /** Default `virtual`. */
  form?: 'physical' | 'virtual';
  /** Default `unactivated` for physical, `active` for virtual. */
  status?: string;
  /** Printed expiry `MM/YY` checked by activation (default `12/29`). */
  expiry?: string;
  /** PIN checked by activation (default `1234`). */
  pin?: string;
  /** `in_stock` makes activation answer 500 (not shipped). Default `shipped`. */
  inventory?: 'in_stock' | 'shipped' | 'binding' | 'bound';
  /** Card balance; also placed in the member's `card` bucket (USDT). */
  balance?: AmountInput;
  /** Unsettled authorizations (`authHeld` of the close precheck). */
  auth_held?: AmountInput;
  /** Administrative freezes (part of `held`). */
  admin_held?: AmountInput;
  /** Minimum retained balance of the product. */
  min_retained?: AmountInput;
  /** Outstanding card fees (`blocked_fee`). */
  fees_outstanding?: AmountInput;
  /** A balance return is in progress. */
  pending_withdraw?: boolean;
  /** A close was already requested. */
  close_requested?: boolean;
  /** Close phase reported by the precheck. */
  close_phase?: ClosePhase;
  /** False: limit updates answer `product_not_available`. */
  limits_updatable?: boolean;
  /** Current spending limits (default all 0). */
  limits?: {
    /** Per-transaction limit (0: none at this layer). */
    single?: AmountInput;
    /** Daily limit. */
    daily?: AmountInput;
    /** Monthly limit. */
    monthly?: AmountInput;
  };
  /** Product-level maximums. */
  max_limits?: {
    /** Per-transaction limit (0: none at this layer). */
    single?: AmountInput;
    /** Daily limit. */
    daily?: AmountInput;
    /** Monthly limit. */
    monthly?: AmountInput;
  };
  /** Physical cards: funds credited on activation (also placed in the `card` bucket). */
  pending_initial_topup?: AmountInput;
  /** `cap_<id>` of the originating application. */
  application_id?: string;
  /** `cpd_<id>` of the card product. */
  product_id?: string;
  /** Failures already counted toward the activation lock. */
  failures?: number;
}

/** A card as seen by tests. */
export interface CardSnapshot {
  /** `crd_<uuid>`. */
  id: string;
  /** Owner, `mem_<uuid>`. */
  member_id: string;
  /** `physical` or `virtual`. */
  form: 'physical' | 'virtual';
  /** Card status. */
  status: string;
  /** Inventory state of a physical card. */
  inventory: string;
  /** Activation failures counted toward the 24-hour lock. */
  failures: number;
  /** ISO 8601 end of the activation lock, or null. */
  locked_until: string | null;
  /** Card balance. */
  balance: string;
  /** Recorded spending limits. */
  limits: {
    /** Per-transaction limit. */
    single: string;
    /** Daily limit. */
    daily: string;
    /** Monthly limit. */
    monthly: string;
  };
}

/** Input of {@link SandboxState.seedCardProduct}; every field is optional. */
export interface SeedCardProductInput {
  /** Id with or without `cpd_` (default `cpd_sbx_<n>`). */
  id?: string;
  /** Display name. */
  name?: string;
  /** `virtual` (default) or `physical`. */
  form?: 'virtual' | 'physical';
  /** Card currency (default `USD`). */
  currency?: string;
  /** Issuing country (default `SG`); quick KYC bindings for the product use it. */
  country?: string;
  /** KYC level the product requires (default 1). */
  kyc_level?: number;
  /** Issuance fee in USDT (default 5). */
  issuance_fee?: AmountInput;
  /** Minimum initial top-up (default 10). */
  min_initial_topup?: AmountInput;
  /** Product-level spending limit maximums. */
  max?: {
    /** Per-transaction maximum (default 5000). */
    single?: AmountInput;
    /** Daily maximum (default 10000). */
    daily?: AmountInput;
    /** Monthly maximum (default 50000). */
    monthly?: AmountInput;
  };
  /** False: withdrawn from sale (`product_not_available`). Default true. */
  enabled?: boolean;
}

/** Input of {@link SandboxState.seedRemittance}. */
export interface SeedRemittanceInput {
  /** Owner (id or external id). */
  member: string;
  /** Default `rmt_<uuid>`. */
  id?: string;
  /** Default `needs_reconfirm`. */
  status?: string;
  /** `express` (default) or `pobo`. */
  line?: 'express' | 'pobo';
  /** Default USDT. */
  asset?: string;
  /** Order total; default 100. */
  amount?: AmountInput;
  /** Locked by the order; default `amount`. Added to the member's `locked` bucket. */
  locked?: AmountInput;
  /** Additional holds of earlier rounds; also added to `locked`. */
  extra_holds?: AmountInput[];
  /** Merchant prepaid hold, moved from nothing into the prepaid `locked` column. */
  prepaid_hold?: AmountInput;
  /** Asset of `prepaid_hold` (default the order asset). */
  prepaid_asset?: string;
  /**
   * Pending action: `auto` (default) computes slippage for `needs_reconfirm` and supplement
   * rounds; null forces none; an object (any `kind`, known or not) is returned unchanged.
   */
  action?: ActionSeed;
  /** Override of `waiting_on`. */
  waiting_on?: 'member' | 'review' | 'none';
  /** A supplement round in this state. */
  supplement?: 'PENDING' | 'SUBMITTED';
  /** Slippage figures; defaults: 150/100 bps, new_total = amount × 1.015, extra_locked = extra_charge × 1.1. */
  slippage?: {
    /** How far the price moved (bps). */
    moved_bps?: number;
    /** Tolerance (bps). */
    slippage_bps?: number;
    /** New total the member must accept. */
    new_total?: AmountInput;
    /** Extra charge to show. */
    extra_charge?: AmountInput;
    /** Extra hold for the balance check. */
    extra_locked?: AmountInput;
  };
  /**
   * The order is in `needs_reconfirm` but cannot be canceled (a settlement journal exists, the
   * locking journal is missing, or its status changed meanwhile): cancel answers 400
   * `state_invalid`. Without it, cancel outside `needs_reconfirm` answers as `cancel_answer` says.
   */
  cancel_blocked?: boolean;
  /**
   * What cancel answers once the order is outside `needs_reconfirm` (seeded so, canceled,
   * refunded): `api_error` (default), the 500 the spec says the current implementation answers;
   * or `state_invalid`, the spec's primary answer (400, "a non-cancellable state"). Either way
   * nothing moves, and only the 400 is kept under the idempotency key.
   */
  cancel_answer?: 'api_error' | 'state_invalid';
  /** Reconfirmation rounds already used (3 or more: `too_many_rounds`). */
  rounds?: number;
  /** When the order entered `needs_reconfirm` (ms); the 4-hour window counts from it. Default now. */
  needs_reconfirm_since?: number;
  /** Creation time (sandbox ms). */
  created_at?: number;
}

/** A remittance as seen by tests. */
export interface RemittanceSnapshot {
  /** `rmt_<uuid>`. */
  id: string;
  /** Owner, `mem_<uuid>`. */
  member_id: string;
  /** Order status. */
  status: string;
  /** Asset of the order. */
  asset: string;
  /** Order total. */
  amount: string;
  /** Amount locked by the order. */
  locked: string;
  /** Additional holds of earlier rounds. */
  extra_holds: string[];
  /** Everything held: `locked` plus `extra_holds`. */
  total_held: string;
}

/** Options of {@link SandboxState.seedReports}. */
export interface SeedReportsOptions {
  /** All reports in this status (default: mostly `ready`, some `building` and `failed`). */
  status?: string;
  /** Report kind (default `statements`). */
  kind?: string;
  /** Gap between consecutive timestamps (default 60 s). Reports come in pairs sharing one. */
  spacingMs?: number;
}

/** A report as the list endpoint shows it. */
export interface ReportSnapshot {
  /** `rep_<uuid>`. */
  id: string;
  /** Report kind. */
  kind: string;
  /** Report status. */
  status: string;
  /** Rows (0 before `ready`). */
  rows: number;
  /** Bytes (0 before `ready`). */
  bytes: number;
  /** Failure reason, empty unless failed. */
  error: string;
  /** ISO 8601. */
  expires_at: string;
  /** ISO 8601. */
  created_at: string;
}

/** Input of {@link SandboxState.seedQrCode}: a QR code the sandbox decodes and quotes. */
export interface SeedQrCodeInput {
  /** The payload to scan (default `sbxqr-seeded:<hex>`); pass it as `code_value`. */
  code_value?: string;
  /** Payee name (default `Sandbox Shop`). */
  payee?: string;
  /** Fiat currency of the code (default `SGD`); one the sandbox prices (USD, EUR, GBP, SGD, HKD, JPY, THB, PHP, CNY, VND). */
  currency?: string;
  /** Fixed amount in the code's currency; omitted makes a custom-amount code. */
  amount?: AmountInput;
  /** `true`: the payer enters the amount (`currency` and `amount` in the quote). Default: no `amount` given. */
  amount_editable?: boolean;
  /** Smallest custom amount accepted, in the code's currency (`amount_out_of_range` below it). */
  min_amount?: AmountInput;
  /** Largest custom amount accepted, in the code's currency (`amount_out_of_range` above it). */
  max_amount?: AmountInput;
  /** Non-empty: the code cannot proceed through this API (quotes answer `product_not_available`). */
  required_payer_fields?: string[];
  /** QR standard reported by decode (default `SANDBOX`). */
  scheme?: string;
}

/** Seed-and-inspect API of the sandbox (`sandbox.state`). */
export interface SandboxState {
  /** The merchant: custody, status, prepaid balances, lines. */
  readonly merchant: MerchantSnapshot;
  /** All members. */
  readonly members: SandboxMember[];
  /** Withdrawal orders (API shape). */
  readonly withdrawals: Array<Record<string, unknown>>;
  /** Reports, newest first. */
  readonly reports: ReportSnapshot[];
  /** Money-moving effects that actually executed, oldest first (replays add nothing). */
  readonly effects: readonly EffectRecord[];
  /** Number of effects, optionally of one kind (`withdrawal.create`, `faucet.credit`, ...). */
  countEffects(kind?: string): number;

  /** Creates a member (balances, KYC level, status) and returns it. */
  seedMember(input?: SeedMemberInput): SandboxMember;
  /** Finds a member by id or external id. */
  member(ref: string): SandboxMember | undefined;
  /** All eight buckets for an asset (zeros when the member has no row for it). */
  balance(member: string, asset: string): BalanceSnapshot;
  /** Overwrites the given buckets of one asset (others unchanged). */
  setBalance(member: string, asset: string, buckets: BucketsInput): void;
  /** Sets the L1 and L2 KYC statuses of a member. */
  setKyc(member: string, kyc: { l1?: KycStatus; l2?: KycStatus }): void;
  /** Resolves pending KYC applications and emits `kyc.result.updated`. */
  setKycResult(member: string, result: 'approved' | 'rejected', level?: 1 | 2): void;
  /** Marks the member's personal remittance account as opened. */
  openVpAccount(member: string): void;
  /** Suspends a member: it then reads as `member_not_found`. */
  suspendMember(member: string): void;
  /**
   * Sets (or clears, with null) a member's own withdrawal limits in one asset. A withdrawal above
   * `single`, or that would take the member's withdrawals of the UTC day (failed ones excepted)
   * above `daily`, answers 400 `limit_exceeded` with `limit_scope: member` and `limit_type`.
   */
  setWithdrawalLimits(member: string, asset: string, limits: { single?: AmountInput; daily?: AmountInput } | null): void;

  /** Sets the merchant custody model. */
  setCustody(custody: 'merchant_hosted' | 'platform'): void;
  /** Sets the merchant status (`suspended`, `disabled` answer `merchant_disabled`). */
  setMerchantStatus(status: 'active' | 'suspended' | 'disabled'): void;
  /** Overwrites merchant prepaid columns for an asset. */
  setPrepaid(asset: string, columns: { available?: AmountInput; locked?: AmountInput; queued?: AmountInput }): void;
  /** Sets (or clears) the custody declaration that withdrawal confirms draw down. */
  setCustodyDeclaration(asset: string, amount: AmountInput | undefined): void;
  /**
   * Enables or disables a line (`withdraw`, `deposit`, `conversion`, `exchange`, `qrpay`, `remit`,
   * `card`, `deposit_address`): its switch. A disabled line answers `service_unavailable`.
   */
  setLine(line: LineName, enabled: boolean): void;
  /**
   * Halts a line (true) or lifts the halt (false), apart from its switch: the spec tells the two
   * states apart ("enabled and not halted"), and `GET /v1/merchant/lines` shows both. A halted
   * line answers `service_unavailable` at once.
   */
  setLineHalted(line: LineName, halted: boolean): void;
  /** Changes a conversion direction of the price list. */
  setConversionPair(
    from: string,
    to: string,
    patch: {
      enabled?: boolean;
      fee_rate?: AmountInput;
      fee_side?: 'from' | 'to';
      min_from_amount?: AmountInput;
      max_from_amount?: AmountInput;
      rate?: AmountInput;
    },
  ): void;
  /** Adds or replaces an asset of the catalogue (disable with `enabled: false`). */
  setAsset(asset: SandboxAsset): void;
  /** Sets agreement texts per language (null: not configured). */
  setAgreement(
    agreement: Record<string, { title: string; body: string }> | null,
    intro?: Record<string, { title: string; body: string }> | null,
  ): void;
  /** Configures quick KYC: enabled, pool size, first-allocation fee. */
  setQuickKyc(config: { enabled?: boolean; pool?: number; fee?: AmountInput }): void;
  /** Merchant-funded QR fee rate (e.g. `0.005`; 0 means no fee). */
  setQrFeeRate(rate: AmountInput): void;
  /** Replaces the corridor list. */
  setCorridors(corridors: CorridorRecord[]): void;
  /** False: bank search answers `unavailable: true`. */
  setDirectoryAvailable(available: boolean): void;

  /**
   * Adds (or replaces, by id) a card product of `GET /v1/cards/products`, returning its `cpd_` id.
   * KYC submissions name it as `card_product_id`; a disabled one answers `product_not_available`.
   */
  seedCardProduct(input?: SeedCardProductInput): string;
  /** Creates a card and returns its snapshot. */
  seedCard(input: SeedCardInput): CardSnapshot;
  /** A card snapshot by id. */
  card(id: string): CardSnapshot | undefined;
  /** Creates a remittance order with its holds and pending action. */
  seedRemittance(input: SeedRemittanceInput): RemittanceSnapshot;
  /** A remittance snapshot by id. */
  remittance(id: string): RemittanceSnapshot | undefined;
  /** Seeds `n` reports with spread `created_at` (pairs share a timestamp); newest first. */
  seedReports(n: number, options?: SeedReportsOptions): ReportSnapshot[];
  /** Seeds one report with any status (unknown ones included). */
  seedReport(report: Partial<ReportSnapshot> & { created_at_ms?: number }): ReportSnapshot;
  /** Makes every cursor issued so far expired: the next page request restarts at page one. */
  expireCursors(): void;
  /** Registers a withdrawal address for `GET /v1/withdraw-addresses`. */
  seedWithdrawAddress(input: {
    member?: string;
    asset: string;
    network?: string;
    address: string;
    label?: string;
    usable?: boolean;
  }): string;
  /** Seeds a shipping address; returns its id. */
  seedAddress(member: string, fields: Record<string, string>, isDefault?: boolean): string;
  /** Registers a QR code (fixed or custom amount, bounds, payer fields); returns its payload. */
  seedQrCode(input?: SeedQrCodeInput): string;
  /**
   * Sets (or clears, with null) the `blocked_reason` of an asset: quotes whose chosen asset it is
   * carry it, and payments with it answer that code at once (e.g. `limit_exceeded`, `kyc_required`).
   * With `member`, for that member only; otherwise for every member.
   */
  setQrBlockedReason(asset: string, reason: string | null, member?: string): void;
  /** Applies expiries due at the current sandbox time (normally automatic). */
  sweep(): void;
}

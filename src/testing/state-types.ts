/** The public interface of `sandbox.state`: seed and inspect; its inputs and snapshots are in the `state-*.ts` files by domain. */
import type { SandboxAsset } from './assets.js';
import type { CardSnapshot, SeedCardInput, SeedCardProductInput } from './state-cards.js';
import type { AmountInput, BalanceSnapshot, BucketsInput, KycStatus, SandboxMember, SeedMemberInput } from './state-members.js';
import type { EffectRecord, LineName, MerchantSnapshot, ReportSnapshot, SeedQrCodeInput, SeedReportsOptions } from './state-merchant.js';
import type { CorridorRecord, RemittanceSnapshot, SeedRemittanceInput } from './state-remittances.js';

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

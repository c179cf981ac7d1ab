/**
 * The simulator's in-memory data model: the rows it remembers. Routes mutate it through
 * `store-ops.ts`; `state.ts` is the public facade that seeds and inspects it. Amounts are
 * Decimal; formatting happens at the edges.
 */
import type { AssetTable } from './assets.js';
import type { Dec } from './money.js';
import type { ConversionPair } from './pricing.js';
import type { QrCode } from './qr-codes.js';
import type { ActionSeed, CorridorRecord } from './state-remittances.js';
import type { Bucket, KycStatus } from './state-members.js';
import type { ClosePhase } from './state-cards.js';
import type { EffectRecord, LineName } from './state-merchant.js';

/** A member's buckets for one asset. */
export type Buckets = Record<Bucket, Dec>;

/** A quick KYC profile bound to a member. */
export interface QuickKycBindingRecord {
  id: string;
  identity_type: string;
  identity_issue_country: string;
  nationality: string;
  address_country: string;
  created_at: number;
  email: string;
}

/** A standard KYC application or product snapshot. */
export interface KycApplicationRecord {
  id: string;
  kyc_id: string;
  card_product_id: string;
  status: 'pending' | 'approved' | 'rejected';
  level: number;
  created_at: number;
}

/** A member with its eight-bucket balances per asset and KYC state. */
export interface MemberRecord {
  id: string;
  external_member_id: string;
  status: 'active' | 'suspended';
  created_at: number;
  kyc: { l1: KycStatus; l2: KycStatus; kyc_id: string };
  /** Banned, blocklisted or frozen: withdrawals answer `request_rejected`. */
  restricted: boolean;
  balances: Map<string, Buckets>;
  quickKyc: QuickKycBindingRecord[];
  kycApplications: KycApplicationRecord[];
  vpApplication: { id: string; status: string; agreed_at: number } | undefined;
  vpAccountOpened: boolean;
  paymentPriorities: string[];
  /** Per-asset withdrawal limits of this member (`limit_exceeded`, `limit_scope: member`). */
  withdrawLimits: Map<string, MemberWithdrawLimit>;
}

/** A member's withdrawal limits in one asset; undefined means no limit of that type. */
interface MemberWithdrawLimit {
  single: Dec | undefined;
  daily: Dec | undefined;
}

/** A withdrawal order; `confirmed` and `failed` are simulator names (the spec shows none). */
export interface WithdrawalRecord {
  id: string;
  memberId: string;
  status: 'locked' | 'confirmed' | 'failed';
  asset: string;
  amount: Dec;
  to_address: string;
  created_at: number;
  updated_at: number;
}

/** A declared deposit (simulator-invented record). */
interface DepositRecord {
  id: string;
  memberId: string;
  asset: string;
  amount: Dec;
  tx_hash: string;
  status: 'credited';
  created_at: number;
}

/** Physical or virtual card. */
export type CardForm = 'physical' | 'virtual';

/** A card with the inputs of activation, limits and the close precheck. Amounts in card currency. */
export interface CardRecord {
  id: string;
  memberId: string;
  form: CardForm;
  status: string;
  product_id: string;
  application_id: string | undefined;
  currency: string;
  scale: number;
  /** Asset moved into the member's `card` bucket when the card is funded (1 unit = 1 currency unit). */
  funding_asset: string;
  expiry: string;
  pin: string;
  inventory: 'in_stock' | 'shipped' | 'binding' | 'bound';
  failures: number;
  lockedUntil: number | undefined;
  limits: { single: Dec; daily: Dec; monthly: Dec };
  maxLimits: { single: Dec; daily: Dec; monthly: Dec };
  limits_updatable: boolean;
  balance: Dec;
  authHeld: Dec;
  adminHeld: Dec;
  minRetained: Dec;
  feesOutstanding: Dec;
  pendingWithdraw: boolean;
  closeRequested: boolean;
  closePhase: ClosePhase;
  /** Initial top-up waiting for activation (physical cards are funded after activation). */
  pendingInitialTopup: Dec;
  statusChangedAt: number;
  created_at: number;
}

/** A remittance order with its holds (locked plus each reconfirmation round). */
export interface RemittanceRecord {
  id: string;
  memberId: string;
  status: string;
  line: string;
  asset: string;
  amount: Dec;
  locked: Dec;
  extraHolds: Dec[];
  prepaidHold: Dec;
  prepaidAsset: string;
  action: ActionSeed;
  waitingOn: 'member' | 'review' | 'none' | undefined;
  supplement: { round: number; status: 'PENDING' | 'SUBMITTED'; created_at: number; submitted_at: number | undefined } | undefined;
  slippage: { moved_bps: number; slippage_bps: number; new_total: Dec; extra_charge: Dec; extra_locked: Dec };
  needsReconfirmSince: number;
  /** Cancel answers 400 `state_invalid` although the order is in `needs_reconfirm`. */
  cancelBlocked: boolean;
  /** What cancel answers outside `needs_reconfirm`: the current 500 `api_error`, or the spec's primary 400 `state_invalid`. */
  cancelAnswer: 'api_error' | 'state_invalid';
  rounds: number;
  created_at: number;
}

/** An export report. */
export interface ReportRecord {
  id: string;
  kind: string;
  status: string;
  rows: number;
  bytes: number;
  error: string;
  created_at: number;
  expires_at: number;
}

/** A prepaid top-up declaration; `note` holds the merged reference number. */
interface TopupRecord {
  id: string;
  asset: string;
  channel: 'chain' | 'fiat';
  amount_text: string;
  note: string;
  status: 'pending';
  created_at: number;
}

/** A member shipping address. */
export interface AddressRecord {
  id: string;
  memberId: string;
  fields: Record<string, string>;
  is_default: boolean;
  created_at: number;
}

/** A registered withdrawal address. */
interface WithdrawAddressRecord {
  id: string;
  memberId: string | undefined;
  asset: string;
  network: string;
  address: string;
  label: string;
  usable: boolean;
  created_at: number;
}

/** A card product. */
export interface ProductRecord {
  id: string;
  name: string;
  form: CardForm;
  currency: string;
  country: string;
  kyc_level: number;
  issuance_fee: Dec;
  min_initial_topup: Dec;
  max: { single: Dec; daily: Dec; monthly: Dec };
  enabled: boolean;
}

/** The merchant prepaid account per asset. */
export interface PrepaidRow {
  available: Dec;
  /** Held for member orders funded by prepayment (remittances). */
  locked: Dec;
  /** Orders in `pending_merchant_funds` waiting for funds; they reduce what conversions may use. */
  queued: Dec;
}

/** The sandbox merchant: custody, prepaid account, lines and configuration. */
export interface MerchantRecord {
  id: string;
  custody: 'merchant_hosted' | 'platform';
  status: 'active' | 'suspended' | 'disabled';
  prepaid: Map<string, PrepaidRow>;
  /** Custody declaration per asset; when set, confirming withdrawals draws it down. */
  custodyDeclared: Map<string, Dec>;
  /** Each line's switch: disabled by the merchant's configuration when false. */
  lines: Record<LineName, boolean>;
  /** Each line's halt: stopped for now (funding, upstream) when true, whatever its switch. */
  halted: Record<LineName, boolean>;
  quickKyc: { enabled: boolean; pool: number; fee: Dec; feeAsset: string };
  qrFeeRate: Dec;
  agreement: Record<string, { title: string; body: string }> | null;
  intro: Record<string, { title: string; body: string }> | null;
}

/** Everything the simulator remembers. */
export interface Store {
  assets: AssetTable;
  corridors: CorridorRecord[];
  /** False makes `GET /v1/remit/swift-search` answer `unavailable: true`. */
  directoryAvailable: boolean;
  merchant: MerchantRecord;
  members: Map<string, MemberRecord>;
  withdrawals: Map<string, WithdrawalRecord>;
  deposits: Map<string, DepositRecord>;
  cards: Map<string, CardRecord>;
  remittances: Map<string, RemittanceRecord>;
  reports: Map<string, ReportRecord>;
  topups: Map<string, TopupRecord>;
  addresses: Map<string, AddressRecord>;
  withdrawAddresses: Map<string, WithdrawAddressRecord>;
  products: Map<string, ProductRecord>;
  conversionPairs: Map<string, ConversionPair>;
  /** Funds-layer unique constraint of conversions: idempotency key -> stored conversion body. */
  conversionsByKey: Map<string, Record<string, unknown>>;
  /** Faucet journal by idempotency key: posts once per key, forever. */
  faucetByKey: Map<string, Record<string, unknown>>;
  /** Other created objects of name-only endpoints, by id (exchange orders, QR payments...). */
  objects: Map<string, Record<string, unknown>>;
  /** QR codes seeded with `state.seedQrCode()`, by payload. */
  qrCodes: Map<string, QrCode>;
  /** Seeded `blocked_reason` per asset (`USDT`) or per asset and member (`USDT|mem_...`). */
  qrBlocked: Map<string, string>;
  /** QR quote memo: member|code|currency|amount -> quote and when it was made. */
  qrMemo: Map<string, { at: number; quote: Record<string, unknown> }>;
  effects: EffectRecord[];
  seq: { kyc: number; cpkyc: number; vpa: number };
  cursorGeneration: number;
  stats: { tokenExchanges: number; tokenExchangeAttempts: number; upstreamQrQuotes: number; directorySearches: number };
}

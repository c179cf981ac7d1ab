/** Public types of `sandbox.state` for the merchant account: its lines, snapshot, effects, reports and QR codes. */
import type { AmountInput } from './state-members.js';

/** The merchant's switchable lines (`GET /v1/merchant/lines`, `state.setLine`). */
export type LineName = 'withdraw' | 'deposit' | 'conversion' | 'exchange' | 'qrpay' | 'remit' | 'card' | 'deposit_address';

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

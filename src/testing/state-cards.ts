/** Public types of `sandbox.state` for cards: the close phase, seeding input of cards and card products, snapshots. */
import type { AmountInput } from './state-members.js';

/** Card close phase as the close precheck reports it. */
export type ClosePhase = 'idle' | 'sweeping' | 'freezing' | 'closing' | 'blocked_hold' | 'blocked_fee';

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

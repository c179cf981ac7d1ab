/** Public types of `sandbox.state` for remittances: corridors, seeded pending actions, seeding input and snapshots. */
import type { AmountInput } from './state-members.js';

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

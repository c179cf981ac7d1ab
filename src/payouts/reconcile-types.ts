import type { MerchantClient } from '../client.js';
import type { Clock } from '../core/time/clock.js';
import type { Logger } from '../core/telemetry/logger.js';
import type { PayoutExposure } from './exposure.js';
import type { PayoutState } from './record.js';
import type { PayoutStore } from './store.js';

/** Options of `reconcilePayouts`. */
export interface ReconcileOptions {
  /** The client whose members' `withdrawing` buckets are read (`GET /v1/balances`, one call per member and read). */
  readonly client: MerchantClient;
  /** The store the payout workflow writes. */
  readonly store: PayoutStore;
  /**
   * Start of the reconciled period (Unix ms, wall clock, compared with `createdAt`): every member
   * with a payout created since then is read. Default: 7 days before the run.
   */
  readonly since?: number;
  /** Members the merchant names (`mem_…` or `external_member_id`), read as well. */
  readonly members?: readonly string[];
  /**
   * How long to wait between the two reads of a member whose bucket fell outside its bounds (ms,
   * default 90 000: the client's default call deadline, `timeoutMs` 30 s × (`maxRetries` 2 + 1)),
   * so that a step in flight at the first read has ended by the second. Raise it when the
   * workflow's client has a longer deadline.
   */
  readonly gapMs?: number;
  /** A payout in a non-final state created longer ago than this is listed as stale (ms, default 24 h). */
  readonly staleAfterMs?: number;
  /** At most this many balance reads at once (default 4). */
  readonly concurrency?: number;
  /** Store page size (default 200). */
  readonly pageSize?: number;
  /** Aborts the run, its waits included: the promise rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** The monotonic clock the wait between reads runs on (default `systemClock`); a test passes one that never really waits. */
  readonly clock?: Clock;
  /** The wall clock (Unix ms) records' ages and the period are read on (default `Date.now`): `createdAt` is wall clock. Never used for a wait. */
  readonly now?: () => number;
  /** Where the summary (info) and each discrepancy (warn) go; none by default. Lines carry members, assets, amounts and references, never a secret. */
  readonly logger?: Logger;
}

/** Which side of its bounds a member's `withdrawing` bucket fell. */
export type ReconcileDirection =
  /** More in `withdrawing` than every open payout explains: a debit made outside the workflow, or a payout the store ended whose confirm or fail never executed. */
  | 'above'
  /** Less in `withdrawing` than the payouts the store holds as certainly debited: the service ended (or never made) debits the store still holds open. */
  | 'below';

/** One read of a member and asset: the bucket and the bounds the store gave at that read. */
export interface ReconcileFigures {
  /** The `withdrawing` bucket as the service answered it (`0` when the member has no row for the asset). */
  readonly withdrawing: string;
  /** Sum of the open payouts certainly in `withdrawing` (exposure `certain`). */
  readonly lower: string;
  /** `lower` plus the open payouts whose outcome is unknown (exposure `uncertain`). */
  readonly upper: string;
}

/** A payout that may explain a discrepancy. */
export interface ReconcileCandidate {
  /** The payout's reference. */
  readonly reference: string;
  /** Its state at the second read. */
  readonly state: PayoutState;
  /** Its amount, as recorded. */
  readonly amount: string;
  /** Its withdrawal id (`wdr_…`), or null when the debit never answered. */
  readonly withdrawalId: string | null;
  /** When it was recorded (Unix ms, wall clock). */
  readonly createdAt: number;
  /** When it ended (Unix ms, wall clock), or null when open. */
  readonly endedAt: number | null;
  /** Who ended it (`service` or `person`), or null when open. */
  readonly endedBy: 'service' | 'person' | null;
  /** What it holds in `withdrawing` as far as the store knows. */
  readonly exposure: PayoutExposure;
  /** Whether its amount equals the discrepancy's `difference`: the likeliest explanation. */
  readonly amountMatches: boolean;
}

/** A member and asset whose `withdrawing` fell outside its bounds on both reads. */
export interface ReconcileDiscrepancy {
  /** The member, as the store (or the merchant) names it. */
  readonly member: string;
  /** Asset code, uppercase. */
  readonly asset: string;
  /** Which side of the bounds, at the second read. */
  readonly direction: ReconcileDirection;
  /** `withdrawing` at the second read. */
  readonly withdrawing: string;
  /** Lower bound at the second read. */
  readonly lower: string;
  /** Upper bound at the second read. */
  readonly upper: string;
  /** How far outside, positive: `withdrawing - upper` when `above`, `lower - withdrawing` when `below`. */
  readonly difference: string;
  /** The first read's figures (bounds from the store as it was then). */
  readonly firstRead: ReconcileFigures;
  /**
   * Payouts that may explain it. `above`: payouts of this member and asset in a final state that a
   * person ended in the period, or whose amount equals `difference`. `below`: the open payouts
   * certainly in `withdrawing`. Those whose amount equals `difference` come first.
   */
  readonly candidates: readonly ReconcileCandidate[];
}

/** A payout, in a few fields. */
export interface ReconcilePayoutSummary {
  /** The payout's reference. */
  readonly reference: string;
  /** The member. */
  readonly member: string;
  /** Asset code. */
  readonly asset: string;
  /** Amount, as recorded. */
  readonly amount: string;
  /** Its state. */
  readonly state: PayoutState;
  /** Its withdrawal id, or null when the debit never answered. */
  readonly withdrawalId: string | null;
  /** When it was recorded (Unix ms, wall clock). */
  readonly createdAt: number;
}

/** A member that answered 404 `member_not_found` (suspended, or a wrong identifier). */
export interface ReconcileMemberNotFound {
  /** The member. */
  readonly member: string;
  /** Its open payouts: their funds wait in a bucket nobody can read; the workflow ends them with the merchant-level confirm or fail. */
  readonly openPayouts: readonly ReconcilePayoutSummary[];
}

/** A payout open for longer than `staleAfterMs`. */
export interface ReconcileStalePayout extends ReconcilePayoutSummary {
  /** Its age at the run (ms, wall clock). */
  readonly ageMs: number;
}

/** A member whose balances could not be read for another reason than 404 (not judged). */
export interface ReconcileReadFailure {
  /** The member. */
  readonly member: string;
  /** The service's error code, or null when no answer arrived (timeout, connection). */
  readonly code: string | null;
  /** The HTTP status, or null. */
  readonly status: number | null;
  /** The error's name and message (never a secret). */
  readonly message: string;
}

/** Why a member was read. */
export type ReconcileMemberSource =
  /** It has a payout created in the period, or an open payout. */
  | 'store'
  /** The merchant named it. */
  | 'named'
  /** Both. */
  | 'store_and_named';

/** A member whose balances were read. */
export interface ReconcileMemberRead {
  /** The member. */
  readonly member: string;
  /** Why it was read. */
  readonly source: ReconcileMemberSource;
  /** How many times it was read: 2 when a discrepancy at the first read was read again. */
  readonly reads: 1 | 2;
  /** The assets judged (those with a balance row or an open payout), sorted. */
  readonly assets: readonly string[];
}

/** What `reconcilePayouts` found. */
export interface PayoutReconciliation {
  /** The period: payouts created from `from` (the `since` option) until the run started (`until`), Unix ms. */
  readonly period: {
    /** Start (the `since` option), Unix ms. */
    readonly from: number;
    /** When the run started, Unix ms. */
    readonly until: number;
  };
  /** Members and assets outside their bounds on both reads. Empty on a clean ledger. */
  readonly discrepancies: readonly ReconcileDiscrepancy[];
  /** Members that answered 404 `member_not_found`, with their open payouts. */
  readonly membersNotFound: readonly ReconcileMemberNotFound[];
  /** Payouts in a non-final state older than `staleAfterMs`, oldest first. */
  readonly stalePayouts: readonly ReconcileStalePayout[];
  /** Members whose balances could not be read (not judged); run again. */
  readonly readFailures: readonly ReconcileReadFailure[];
  /** Members whose balances were read, in the order they were first listed. */
  readonly membersRead: readonly ReconcileMemberRead[];
  /** The statement of what was never read: the service lists no members, so only the members above (read, not found or failed) were asked. */
  readonly notRead: string;
  /** True when nothing is reported: no discrepancy, no member not found, no stale payout, no read failure. */
  readonly clean: boolean;
}

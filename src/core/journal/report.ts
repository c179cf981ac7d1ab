import { MerchantSdkError } from '../errors/errors.js';
import type { JournalIntent, UnreadableJournalRecord } from './intent-journal.js';
import type { ResponseMeta } from '../types.js';

/** Options of `client.recover()`. */
export interface RecoverOptions {
  /**
   * Leave intents younger than this alone (ms; default 300 000, five minutes): they may belong to
   * a call still in flight in a live instance. No call outlives its deadline,
   * `timeoutMs × (maxRetries + 1)` from the moment it is made (90 s with the defaults; its record
   * in the journal, its waits and its attempts all fit in it: docs/going-to-production.md, "The
   * deadline of a call"). Keep `minAgeMs` above the longest deadline your calls are given (per-call
   * `timeoutMs` and `maxRetries` included), plus the largest difference between your hosts' wall
   * clocks (`createdAt` is the recording host's). Pass 0 only when nothing can be sending: no
   * other instance, and no call of this process yet. A recovery run in the background beside live
   * calls keeps the default. The report's `leftForLater` says what this left alone.
   */
  readonly minAgeMs?: number;
  /**
   * Resend only intents recorded less than 24 hours (the spec's idempotency window) minus this
   * margin ago (ms; default 3 600 000, one hour). After the window the same key is a new request,
   * so an intent near its end is reported instead of resent. The margin covers the clocks
   * involved (the recording host's, this host's, the service's: the SDK itself signs with an
   * offset of up to `maxClockSkewMs`, one hour by default) and the time the resend itself takes.
   */
  readonly windowMarginMs?: number;
  /**
   * How long (ms) an intent this instance claimed is reserved for it (default 300 000): another
   * instance recovering at the same time never sends it meanwhile. An intent left open (its
   * resend had no definitive answer, or it was skipped) is claimable again after this:
   * `reclaimableAt` in its entry. Keep it above the longest call deadline: a lease that ends
   * during this same recovery lets an intent it left open come back, and one that comes back
   * twice in a row ends the recovery (a journal ignoring leases would otherwise loop for ever).
   */
  readonly leaseMs?: number;
  /** Stops the recovery: the resend in flight is aborted (its intent stays open), no further intent is claimed. */
  readonly signal?: AbortSignal;
  /**
   * Receives each outcome before its intent is settled, and the intent is settled only once it
   * resolves: store the order in your own database here, and a crash anywhere in between leaves
   * the intent open, so the next `recover()` hands you the same order again (a replay). When it
   * throws or rejects, the intent stays open and the recovery goes on with the next one. In the
   * entry it receives, `settled` says whether the SDK will settle the intent once it resolves.
   */
  readonly onIntent?: (recovered: RecoveredIntent) => void | Promise<void>;
}

/** Fields every recovered intent has. */
export interface RecoveredIntentBase {
  /**
   * The intent as the journal held it; a row written under an endpoint's former name
   * (`withdrawals.create`) shows its one name (`member.withdrawals.create`).
   */
  readonly intent: JournalIntent;
  /** Whether the intent was settled (removed from the journal). When false it stays open. */
  readonly settled: boolean;
  /**
   * For an intent left open: from when (Unix ms, this host's clock) another `recover()` may claim
   * it again, the end of this instance's lease. Undefined once settled.
   */
  readonly reclaimableAt: number | undefined;
}

/** An intent sent again: its result is the original operation's (a replay, or its first execution). */
export interface IntentResent extends RecoveredIntentBase {
  /** Sent again with its key and bytes, and answered 2xx. */
  readonly outcome: 'resent';
  /** The validated result: the order the intent created (e.g. a `WithdrawalOrder`). */
  readonly result: unknown;
  /** Response metadata; `replayed` is true when the service had executed it before the crash. */
  readonly response: ResponseMeta;
}

/** An intent sent again whose resend failed. */
export interface IntentFailed extends RecoveredIntentBase {
  /** Sent again (or tried), and the resend failed. */
  readonly outcome: 'failed';
  /**
   * The resend's error. Only an answer the service keeps under the key (a 400 business failure
   * such as `insufficient_balance`: the operation did not happen, and the same key only replays
   * it) settles the intent. Anything else leaves it open: a resend that never left this client
   * (the API unreachable, the token exchange refused, an abort), an answer the service may give
   * before it reads the key (401, 403 such as `merchant_disabled`, 404 such as
   * `member_not_found`, 429), a 409, a 5xx or a timeout. The dead process's own attempt may have
   * executed, and none of these says it did not.
   */
  readonly error: unknown;
  /** What happens next, in words: why it was settled, or why it stays open and when it is tried again. */
  readonly next: string;
}

/** An intent reported for a check instead of being sent again. */
export interface IntentToCheck extends RecoveredIntentBase {
  /**
   * - `expired`: recorded too long ago (past the window minus `windowMarginMs`): the same key would
   *   be a new request. Settled.
   * - `withheld`: never sent again: the service counts the endpoint's failures against the
   *   customer (a card activation; its body, with the PIN, was never kept). `check` says what to
   *   read (the card) and what its status means. Settled.
   * - `skipped`: this client cannot send it: an endpoint this SDK version does not know, an intent
   *   of another scope returned by a faulty journal, or a record whose method, path, member, key
   *   or body does not agree with its endpoint (`check` says which). Left open, never sent.
   */
  readonly outcome: 'expired' | 'withheld' | 'skipped';
  /** What to check to learn whether the operation happened. */
  readonly check: string;
}

/** What `recover()` did with one intent. */
export type RecoveredIntent = IntentResent | IntentFailed | IntentToCheck;

/** The open intents `recover()` left alone because they were younger than `minAgeMs`. */
export interface IntentsLeftForLater {
  /** How many. */
  readonly count: number;
  /** The idempotency keys of the oldest of them (at most 20). */
  readonly keys: readonly string[];
  /** When (Unix ms, this host's clock) the oldest of them becomes old enough for `recover()`. */
  readonly eligibleAt: number;
}

/** One open intent `recover()` left because another recoverer's claim on it has not ended. */
export interface IntentUnderLease {
  /** Its idempotency key. */
  readonly key: string;
  /**
   * From when (Unix ms, this host's clock) a `recover()` may claim it: now plus what the journal
   * says is left of the lease on its own clock (so a skew between hosts does not move it).
   */
  readonly reclaimableAt: number;
}

/**
 * The open intents `recover()` left because another recoverer holds them (its lease, `leaseMs`,
 * has not ended): a restart inside that lease sees them here, not in `intents`. The recoverer
 * holding them finishes them, or, when it died, the first `recover()` after their lease ends.
 */
export interface IntentsUnderLease {
  /** How many. */
  readonly count: number;
  /** Those whose lease ends first (at most 20), soonest first. */
  readonly intents: readonly IntentUnderLease[];
  /** When (Unix ms, this host's clock) the first of them can be claimed again; undefined when `count` is 0. */
  readonly reclaimableAt: number | undefined;
}

/** What `client.recover()` found and did. */
export interface RecoveryReport {
  /** One entry per intent claimed, in the order they were handled (oldest first). */
  readonly intents: readonly RecoveredIntent[];
  /**
   * Records the journal could not read back as intents (corrupt, or of a newer SDK version): never
   * sent, left open for a person to read, and reported again by each `recover()`.
   */
  readonly unreadable: readonly UnreadableJournalRecord[];
  /**
   * Open intents younger than `minAgeMs`, left alone (they may be in flight in a live instance).
   * `undefined` when the journal cannot list them (it has no `openAfter`) or listing failed;
   * `count` 0 when there are none.
   */
  readonly leftForLater: IntentsLeftForLater | undefined;
  /**
   * Open intents old enough for recovery that another recoverer had claimed and still holds (a
   * recovery running elsewhere, or one that died inside its lease), left to it. `undefined` when
   * the journal cannot list them (it has no `leased`) or listing failed; `count` 0 when there are
   * none. Intents this recovery left open itself are in `intents`, with their `reclaimableAt`.
   */
  readonly leased: IntentsUnderLease | undefined;
}

/**
 * `recover()` stopped because the journal failed (it could not claim the next intent). Nothing is
 * lost: `report` holds every outcome it had (what was resent and what the service answered; the
 * same lines were logged at `warn`), and the intents it did not reach stay open for the next
 * `recover()`. `cause` is the journal's error (a `RedisStoreError`, for example).
 */
export class RecoveryInterruptedError extends MerchantSdkError {
  /** Class name, `RecoveryInterruptedError` (survives minification, unlike `constructor.name`). */
  override name = 'RecoveryInterruptedError';
  /** What the recovery did before it stopped. */
  readonly report: RecoveryReport;

  /** @internal Raised by `recover()` only. */
  constructor(message: string, report: RecoveryReport, cause: unknown) {
    super(message, { cause });
    this.report = report;
  }
}

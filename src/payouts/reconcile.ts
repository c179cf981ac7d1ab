import { InvalidArgumentError } from '../core/errors/errors.js';
import { log } from '../core/telemetry/logger.js';
import { systemClock, type Clock } from '../core/time/clock.js';
import { assembleReport, type MemberPass } from './reconcile-assemble.js';
import { judgeMember } from './reconcile-judge.js';
import { membersToRead, openOf, readLedger, type Ledger } from './reconcile-ledger.js';
import { mapBounded, readMember } from './reconcile-members.js';
import type { PayoutReconciliation, ReconcileOptions } from './reconcile-types.js';

const DAY_MS = 86_400_000;

/** The options with their defaults, checked. */
interface Settings {
  readonly options: ReconcileOptions;
  readonly named: readonly string[];
  readonly gapMs: number;
  readonly staleAfterMs: number;
  readonly concurrency: number;
  readonly pageSize: number;
  readonly clock: Clock;
  readonly now: () => number;
}

/**
 * Reconciles the payout store against the members' `withdrawing` buckets (`GET /v1/balances`).
 *
 * For each member and asset, `withdrawing` is bounded by the payouts the store holds open
 * (`payoutExposure`): below by those certainly debited and not ended, above by those plus
 * the ones whose outcome is unknown (a debit unanswered, a confirm or fail sent). A total cannot
 * name single debits and steps in flight move it, so a member outside its bounds is read again,
 * with the store, `gapMs` later (one call deadline: a step in flight at the first read has ended),
 * and reported only when outside at both reads. Also reported: members answering 404
 * `member_not_found` with their open payouts, payouts open for longer than `staleAfterMs`, and
 * reads that failed.
 *
 * The service lists no members: the members read are those with a payout created since `since`
 * or an open payout, and those named in `members`; the report says that no other was read.
 * Runs on a schedule: it only reads (the store and `GET /v1/balances`), `concurrency` balance
 * reads at once, within the client's rate limiting.
 *
 * @returns The report (`formatReconciliation` prints it); rejects with the signal's
 * reason when `signal` aborts, or with an `InvalidArgumentError` for a bad option, or with the
 * store's error.
 */
export async function reconcilePayouts(options: ReconcileOptions): Promise<PayoutReconciliation> {
  const s = settle(options);
  const { store, signal } = options;
  signal?.throwIfAborted();
  const until = s.now();
  const since = options.since ?? until - 7 * DAY_MS;
  const firstLedger = await readLedger(store, since, s.pageSize, signal);
  const members = membersToRead(firstLedger, s.named);
  const first = await readPass(s, [...members.keys()], firstLedger);
  const suspects = [...first].filter(([, pass]) => pass.judgements.some((j) => j.direction !== null)).map(([m]) => m);
  let ledger = firstLedger;
  let second = new Map<string, MemberPass>();
  if (suspects.length > 0) {
    // Measured from the end of the first reads: every suspect's two reads are at least gapMs apart.
    await waitOn(s.clock, s.gapMs, signal);
    ledger = await readLedger(store, since, s.pageSize, signal);
    second = await readPass(s, suspects, ledger);
  }
  const report = assembleReport({ members, first, second, ledger, since, until, staleAfterMs: s.staleAfterMs });
  logReport(options, report, suspects.length);
  return report;
}

/** Reads the balances of `members` (bounded) and judges each against `ledger`. */
async function readPass(s: Settings, members: readonly string[], ledger: Ledger): Promise<Map<string, MemberPass>> {
  const passes = await mapBounded(members, s.concurrency, async (member): Promise<MemberPass> => {
    const read = await readMember(s.options.client, member, s.options.signal);
    return { read, judgements: read.kind === 'rows' ? judgeMember(read.rows, openOf(ledger, member)) : [] };
  });
  return new Map(members.map((m, i) => [m, passes[i] as MemberPass]));
}

/** Waits `ms` of the monotonic `clock`, again for what is left if it woke early; the signal ends it. */
async function waitOn(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void> {
  const end = clock.now() + ms;
  for (let left = ms; left > 0; left = end - clock.now()) await clock.sleep(left, signal);
  signal?.throwIfAborted();
}

function logReport(options: ReconcileOptions, report: PayoutReconciliation, secondReads: number): void {
  const { logger } = options;
  for (const d of report.discrepancies) {
    log(logger, 'warn', 'payout reconciliation: withdrawing outside its bounds at both reads', {
      member: d.member,
      asset: d.asset,
      direction: d.direction,
      withdrawing: d.withdrawing,
      lower: d.lower,
      upper: d.upper,
      difference: d.difference,
      candidates: d.candidates.map((c) => c.reference).join(',') || 'none',
    });
  }
  log(logger, 'info', 'payout reconciliation done', {
    membersRead: report.membersRead.length,
    secondReads,
    discrepancies: report.discrepancies.length,
    membersNotFound: report.membersNotFound.length,
    stalePayouts: report.stalePayouts.length,
    readFailures: report.readFailures.length,
  });
}

function settle(options: ReconcileOptions): Settings {
  const named = options.members ?? [];
  if (!Array.isArray(named) || named.some((m) => typeof m !== 'string' || m.trim() === '')) {
    throw new InvalidArgumentError('members', 'must be an array of non-empty member identifiers.');
  }
  if (options.since !== undefined && !Number.isFinite(options.since))
    throw new InvalidArgumentError('since', 'must be a finite Unix time in ms.');
  return {
    options,
    named,
    gapMs: atLeast('gapMs', options.gapMs ?? 90_000, 0),
    staleAfterMs: atLeast('staleAfterMs', options.staleAfterMs ?? DAY_MS, 1),
    concurrency: Math.floor(atLeast('concurrency', options.concurrency ?? 4, 1)),
    pageSize: Math.floor(atLeast('pageSize', options.pageSize ?? 200, 1)),
    clock: options.clock ?? systemClock,
    now: options.now ?? (() => Date.now()),
  };
}

function atLeast(name: string, value: number, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new InvalidArgumentError(name, `must be a finite number of at least ${min}.`);
  }
  return value;
}

import type { PayoutRecord } from './record.js';
import { candidatesFor, figure, figuresOf, type Judgement } from './reconcile-judge.js';
import { openOf, type Ledger } from './reconcile-ledger.js';
import type { MemberRead } from './reconcile-members.js';
import type {
  PayoutReconciliation,
  ReconcileDiscrepancy,
  ReconcileMemberNotFound,
  ReconcileMemberRead,
  ReconcileMemberSource,
  ReconcilePayoutSummary,
  ReconcileReadFailure,
  ReconcileStalePayout,
} from './reconcile-types.js';

/** One read of one member: the answer, and the judgement of each asset when rows came. */
export interface MemberPass {
  /** The balance read's answer. */
  readonly read: MemberRead;
  /** Each asset judged against the ledger of the same read (empty unless rows came). */
  readonly judgements: readonly Judgement[];
}

/** Everything a run saw, for `assembleReport`. */
export interface RunFacts {
  /** The members read, with why. */
  readonly members: ReadonlyMap<string, ReconcileMemberSource>;
  /** First reads, by member. */
  readonly first: ReadonlyMap<string, MemberPass>;
  /** Second reads of the members outside their bounds at the first, by member. */
  readonly second: ReadonlyMap<string, MemberPass>;
  /** The store at the last read. */
  readonly ledger: Ledger;
  /** The period. */
  readonly since: number;
  /** When the run started (Unix ms, wall clock). */
  readonly until: number;
  /** `staleAfterMs`. */
  readonly staleAfterMs: number;
}

/** The report of a run. */
export function assembleReport(facts: RunFacts): PayoutReconciliation {
  const discrepancies = [...facts.second].flatMap(([member, pass]) => confirmed(member, pass, facts));
  const membersNotFound = notFound(facts);
  const stalePayouts = facts.ledger.open
    .filter((r) => facts.until - r.createdAt > facts.staleAfterMs)
    .map((r): ReconcileStalePayout => ({ ...summary(r), ageMs: facts.until - r.createdAt }));
  const readFailures = [...facts.members.keys()].flatMap((m) => failures(m, facts));
  const membersRead = [...facts.members].flatMap(([member, source]) => readOf(member, source, facts));
  const clean = discrepancies.length + membersNotFound.length + stalePayouts.length + readFailures.length === 0;
  return {
    period: { from: facts.since, until: facts.until },
    discrepancies,
    membersNotFound,
    stalePayouts,
    readFailures,
    membersRead,
    notRead: notReadStatement(facts.members.size, facts.since),
    clean,
  };
}

/** The member's assets outside their bounds at both reads, with the second read's figures. */
function confirmed(member: string, pass: MemberPass, facts: RunFacts): ReconcileDiscrepancy[] {
  const before = facts.first.get(member)?.judgements ?? [];
  return pass.judgements.flatMap((j) => {
    const earlier = before.find((b) => b.asset === j.asset);
    if (j.direction === null || earlier === undefined || earlier.direction === null) return [];
    return [
      {
        member,
        asset: j.asset,
        direction: j.direction,
        ...figuresOf(j),
        difference: figure(j.difference, j.scale),
        firstRead: figuresOf(earlier),
        candidates: candidatesFor(member, j, facts.ledger, facts.since),
      },
    ];
  });
}

function notFound(facts: RunFacts): ReconcileMemberNotFound[] {
  return [...facts.members.keys()]
    .filter((m) => facts.first.get(m)?.read.kind === 'not_found' || facts.second.get(m)?.read.kind === 'not_found')
    .map((member) => ({ member, openPayouts: openOf(facts.ledger, member).map(summary) }));
}

/** The failed reads of a member (the first, or the second that would have confirmed a discrepancy). */
function failures(member: string, facts: RunFacts): ReconcileReadFailure[] {
  return [facts.first.get(member)?.read, facts.second.get(member)?.read].flatMap((read) => (read?.kind === 'failed' ? [read.failure] : []));
}

function readOf(member: string, source: ReconcileMemberSource, facts: RunFacts): ReconcileMemberRead[] {
  const first = facts.first.get(member);
  if (first?.read.kind !== 'rows') return [];
  const second = facts.second.get(member);
  const assets = new Set([...first.judgements, ...(second?.judgements ?? [])].map((j) => j.asset));
  return [{ member, source, reads: second === undefined ? 1 : 2, assets: [...assets].sort() }];
}

function summary(r: PayoutRecord): ReconcilePayoutSummary {
  return {
    reference: r.reference,
    member: r.member,
    asset: r.asset,
    amount: r.amount,
    state: r.state,
    withdrawalId: r.withdrawalId,
    createdAt: r.createdAt,
  };
}

/** What the report cannot say: the service lists no members, so only the ones known here were read. */
function notReadStatement(count: number, since: number): string {
  return (
    `Only the ${count} member(s) above were asked for their balances: those with a payout created since ${new Date(since).toISOString()} ` +
    'or an open payout in the store, and those the merchant named. The service lists no members, so any other member ' +
    '(one the store does not know and the merchant did not name) was never read: a debit made outside the workflow ' +
    'for such a member cannot be found here.'
  );
}

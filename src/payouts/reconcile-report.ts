import type { PayoutReconciliation, ReconcileCandidate, ReconcileDiscrepancy, ReconcilePayoutSummary } from './reconcile-types.js';

const HOUR_MS = 3_600_000;

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The report as lines of text, one fact per line, for a log, a ticket or a person on the payout
 * desk (the payouts guide reads it line by line):
 *
 * ```text
 * payout reconciliation, period 2026-12-01T00:00:00.000Z to 2026-12-08T00:00:00.000Z: 1 discrepancy, 0 members not found, 0 stale payouts, 0 read failures, 3 members read
 * DISCREPANCY mem_1 USDT above by 25.500000: withdrawing 25.500000 outside [0.000000, 0.000000] (first read: withdrawing 25.500000, bounds [0.000000, 0.000000])
 *   candidate po-7 confirmed, amount 25.5 = difference, wdr_…, ended by person at 2026-12-07T10:00:00.000Z
 * NOT FOUND mem_2: 1 open payout
 *   open po-9 debited USDT 10 wdr_…, created 2026-12-05T08:00:00.000Z
 * STALE po-3 mem_3 USDT 5 debited, created 2026-12-06T09:00:00.000Z (39.0 h ago)
 * READ FAILED mem_4: 503 service_unavailable (ApiError: …)
 * READ mem_1 (store, 2 reads): USDT
 * NOT READ Only the 4 member(s) above were asked for their balances: …
 * ```
 */
export function formatReconciliation(report: PayoutReconciliation): string {
  return reconciliationLines(report).join('\n');
}

/** The lines of {@link formatReconciliation}, as an array. */
export function reconciliationLines(report: PayoutReconciliation): string[] {
  const lines = [headline(report)];
  for (const d of report.discrepancies) lines.push(...discrepancyLines(d));
  for (const n of report.membersNotFound) {
    lines.push(`NOT FOUND ${n.member}: ${count(n.openPayouts.length, 'open payout')}`);
    for (const p of n.openPayouts) lines.push(`  open ${payoutText(p)}`);
  }
  for (const p of report.stalePayouts) {
    lines.push(
      `STALE ${p.reference} ${p.member} ${p.asset} ${p.amount} ${p.state}, created ${iso(p.createdAt)} (${(p.ageMs / HOUR_MS).toFixed(1)} h ago)`,
    );
  }
  for (const f of report.readFailures) {
    const answer = f.status === null ? 'no answer' : `${f.status} ${f.code ?? ''}`.trim();
    lines.push(`READ FAILED ${f.member}: ${answer} (${f.message})`);
  }
  for (const m of report.membersRead) {
    lines.push(`READ ${m.member} (${m.source.replaceAll('_', ' ')}, ${count(m.reads, 'read')}): ${m.assets.join(', ') || 'no asset'}`);
  }
  lines.push(`NOT READ ${report.notRead}`);
  return lines;
}

function headline(r: PayoutReconciliation): string {
  return (
    `payout reconciliation, period ${iso(r.period.from)} to ${iso(r.period.until)}: ` +
    [
      count(r.discrepancies.length, 'discrepancy', 'discrepancies'),
      count(r.membersNotFound.length, 'member not found', 'members not found'),
      count(r.stalePayouts.length, 'stale payout'),
      count(r.readFailures.length, 'read failure'),
      count(r.membersRead.length, 'member read', 'members read'),
    ].join(', ')
  );
}

function discrepancyLines(d: ReconcileDiscrepancy): string[] {
  const first = `first read: withdrawing ${d.firstRead.withdrawing}, bounds [${d.firstRead.lower}, ${d.firstRead.upper}]`;
  const head = `DISCREPANCY ${d.member} ${d.asset} ${d.direction} by ${d.difference}: withdrawing ${d.withdrawing} outside [${d.lower}, ${d.upper}] (${first})`;
  if (d.candidates.length === 0) return [head, '  no candidate payout in the store'];
  return [head, ...d.candidates.map((c) => `  candidate ${candidateText(c)}`)];
}

function candidateText(c: ReconcileCandidate): string {
  const parts = [
    `${c.reference} ${c.state}`,
    `amount ${c.amount}${c.amountMatches ? ' = difference' : ''}`,
    c.withdrawalId ?? 'no withdrawal id',
  ];
  if (c.endedAt !== null) parts.push(`ended by ${c.endedBy ?? 'unknown'} at ${iso(c.endedAt)}`);
  else parts.push(`open (${c.exposure})`);
  return parts.join(', ');
}

function payoutText(p: ReconcilePayoutSummary): string {
  return `${p.reference} ${p.state} ${p.asset} ${p.amount} ${p.withdrawalId ?? 'no withdrawal id'}, created ${iso(p.createdAt)}`;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

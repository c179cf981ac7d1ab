/**
 * What `recover()` leaves open without handling it, each in the report and in one `info` line:
 * the intents too young to claim (`leftForLater`), and those another recoverer holds (`leased`).
 */
import type { IntentJournal } from './intent-journal.js';
import { wallClockNow } from './hook.js';
import type { IntentsLeftForLater, IntentsUnderLease } from './report.js';
import { log, type Logger } from '../telemetry/logger.js';

/** How many keys of each list the report names. */
const LISTED = 20;

/** Where one recovery looks. */
export interface Accounting {
  readonly journal: IntentJournal;
  readonly scope: string;
  readonly logger: Logger | undefined;
  readonly minAgeMs: number;
}

/** The young intents left alone, with an `info` line; undefined when the journal cannot list them. */
export async function leftForLater(a: Accounting, cutoff: number): Promise<IntentsLeftForLater | undefined> {
  if (typeof a.journal.openAfter !== 'function') return undefined;
  let found;
  try {
    found = await a.journal.openAfter({ scope: a.scope, createdAfter: cutoff, limit: LISTED });
  } catch {
    log(a.logger, 'warn', 'recovery: the journal could not list the intents younger than minAgeMs; the report says nothing of them');
    return undefined;
  }
  const oldest = found.intents[0];
  const report = {
    count: found.total,
    keys: found.intents.map((i) => i.key),
    eligibleAt: oldest === undefined ? cutoff + a.minAgeMs : oldest.createdAt + a.minAgeMs,
  };
  if (report.count > 0)
    log(a.logger, 'info', `recovery: ${report.count} open intent(s) younger than minAgeMs left for a later recover()`, {
      minAgeMs: a.minAgeMs,
      keys: report.keys.join(' '),
      eligibleAt: new Date(report.eligibleAt).toISOString(),
    });
  return report;
}

/**
 * The intents old enough to claim that another recoverer holds, with an `info` line; undefined
 * when the journal cannot list them. `own` are the keys this recovery left open itself (reported
 * in its `intents`, not here).
 */
export async function leased(a: Accounting, cutoff: number, own: readonly string[]): Promise<IntentsUnderLease | undefined> {
  if (typeof a.journal.leased !== 'function') return undefined;
  let found;
  try {
    found = await a.journal.leased({ scope: a.scope, createdBefore: cutoff, exceptKeys: own, limit: LISTED });
  } catch {
    log(
      a.logger,
      'warn',
      "recovery: the journal could not list the intents under another recoverer's lease; the report says nothing of them",
    );
    return undefined;
  }
  // The journal counts the lease on its own clock; the report puts its end on this host's.
  const now = wallClockNow();
  const intents = found.leases.map((l) => Object.freeze({ key: l.key, reclaimableAt: now + Math.max(0, l.endsInMs) }));
  const report = { count: found.total, intents, reclaimableAt: intents[0]?.reclaimableAt };
  if (report.count > 0)
    log(a.logger, 'info', `recovery: ${report.count} open intent(s) under another recoverer's lease left to it`, {
      keys: intents.map((i) => i.key).join(' '),
      reclaimableAt: new Date(report.reclaimableAt ?? now).toISOString(),
      next: 'the recoverer holding them finishes them; if it died, a recover() from reclaimableAt sends them again with their keys',
    });
  return report;
}

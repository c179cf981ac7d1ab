import type { EndpointDescriptor } from '../../facts/endpoint.js';
import type { PreparedCall } from '../call/call.js';
import { nonNegativeInt, positiveInt } from '../errors/setting-checks.js';
import { InvalidArgumentError } from '../errors/errors.js';
import { readIntent, type ClaimedRecord, type JournalIntent, type UnreadableJournalRecord } from './intent-journal.js';
import { fieldsOf, wallClockNow, type JournalHook } from './hook.js';
import { RecoveryInterruptedError, type RecoveredIntent, type RecoverOptions, type RecoveryReport } from './report.js';
import { neverResent, storedUnderKey, templateMismatch } from './rules.js';
import { checkFor, preparedOf, withParams } from './resend.js';
import { endpointNamed, underOneName } from './endpoint-names.js';
import { leased, leftForLater, type Accounting } from './left-open.js';
import { log, type Logger } from '../telemetry/logger.js';
import { printable } from '../text.js';
import type { WithResponse } from '../types.js';

/** What recovery needs from the client. */
export interface RecoveryDeps {
  readonly hook: JournalHook;
  readonly basePath: string;
  readonly logger: Logger | undefined;
  /** Runs one prepared call through the attempt loop and reads its result. */
  send<T>(call: PreparedCall, endpoint: EndpointDescriptor<T>): Promise<WithResponse<T>>;
}

/** The spec's idempotency window (Limits > Other constants): 24 hours. */
const WINDOW_MS = 24 * 60 * 60 * 1000;

/** One recovery's settings and scope. */
interface Run {
  readonly deps: RecoveryDeps;
  readonly scope: string;
  readonly minAgeMs: number;
  readonly marginMs: number;
  readonly leaseMs: number;
  readonly signal: AbortSignal | undefined;
  readonly onIntent: RecoverOptions['onIntent'];
  readonly intents: RecoveredIntent[];
  readonly unreadable: UnreadableJournalRecord[];
}

/**
 * Claims the scope's open intents one at a time and finishes each: sent again with its key and
 * bytes (fresh nonce and timestamp: every attempt is signed anew) when inside the window and
 * agreeing with its endpoint, else reported for a check. One claim at a time spreads the work
 * over instances recovering together, and keeps each lease no longer than one resend. An
 * unreadable record is reported and passed over, never hiding the records behind it.
 */
export async function recoverIntents(deps: RecoveryDeps, options: RecoverOptions = {}): Promise<RecoveryReport> {
  const onIntent = options.onIntent;
  if (onIntent !== undefined && typeof onIntent !== 'function') throw new InvalidArgumentError('onIntent', 'must be a function.');
  const run: Run = {
    deps,
    scope: await deps.hook.scope(),
    minAgeMs: nonNegativeInt('minAgeMs', options.minAgeMs, 300_000),
    marginMs: nonNegativeInt('windowMarginMs', options.windowMarginMs, 3_600_000),
    leaseMs: positiveInt('leaseMs', options.leaseMs, 300_000),
    signal: options.signal,
    onIntent,
    intents: [],
    unreadable: [],
  };
  const seen = new Set<string>();
  let cutoff = wallClockNow() - run.minAgeMs;
  let cameBack = 0;
  while (run.signal?.aborted !== true) {
    cutoff = wallClockNow() - run.minAgeMs;
    const record = await claimOne(run, cutoff);
    if (record === undefined) break;
    if (seen.has(identity(record))) {
      // Handled in this run and back once its lease ended: this claim leased it again, so the
      // next one reaches past it. Back twice in a row: the journal ignores leases; stop there.
      if (++cameBack > 1) break;
      continue;
    }
    cameBack = 0;
    seen.add(identity(record));
    await handle(run, record);
  }
  return accounted(run, cutoff);
}

/** The report: what this recovery handled, and every open intent it left without handling. */
async function accounted(run: Run, cutoff: number): Promise<RecoveryReport> {
  const a: Accounting = { journal: run.deps.hook.journal, scope: run.scope, logger: run.deps.logger, minAgeMs: run.minAgeMs };
  const own = [...run.intents.filter((r) => !r.settled).map((r) => r.intent.key), ...run.unreadable.flatMap((u) => u.key ?? [])];
  return {
    intents: run.intents,
    unreadable: run.unreadable,
    leftForLater: await leftForLater(a, cutoff),
    leased: await leased(a, cutoff, own),
  };
}

/** The next claimable record, or undefined when there is none; a journal failure ends the recovery with what it did. */
async function claimOne(run: Run, cutoff: number): Promise<ClaimedRecord | undefined> {
  let claimed: unknown;
  try {
    claimed = await run.deps.hook.journal.claim({ scope: run.scope, createdBefore: cutoff, leaseMs: run.leaseMs, limit: 1 });
  } catch (err) {
    throw interrupted(run, err);
  }
  return Array.isArray(claimed) ? (claimed[0] as ClaimedRecord | undefined) : undefined;
}

/** One claimed record: recovered when it reads as an intent, else set aside. */
async function handle(run: Run, record: ClaimedRecord): Promise<void> {
  const intent = readIntent(record);
  if (typeof intent === 'string' || 'unreadable' in record) setAside(run, record, intent);
  // A row written under the endpoint's former name is recovered, and logged, under its one name.
  else run.intents.push(await recoverOne(run, underOneName(intent)));
}

/** What tells one claimed record from another. */
function identity(record: ClaimedRecord): string {
  const key = (record as { key?: unknown } | null)?.key;
  return typeof key === 'string' ? key : `unkeyed ${JSON.stringify(record) ?? typeof record}`;
}

/** Reports a record that cannot be read as an intent; it stays in the journal for a person. */
function setAside(run: Run, record: ClaimedRecord, problem: JournalIntent | string): void {
  const key = (record as { key?: unknown } | null)?.key;
  const entry: UnreadableJournalRecord =
    typeof record === 'object' && record !== null && 'unreadable' in record
      ? record
      : Object.freeze({
          unreadable: true,
          key: typeof key === 'string' ? key : undefined,
          scope: run.scope,
          problem: typeof problem === 'string' ? problem : 'unreadable',
        });
  run.unreadable.push(entry);
  log(run.deps.logger, 'warn', 'recovery: an unreadable journal record was set aside (not sent, left open for a person to read)', {
    idempotencyKey: entry.key === undefined ? undefined : printable(entry.key),
    problem: printable(entry.problem),
  });
}

/** The verdict on one intent, before its settle. */
type Verdict = { readonly entry: RecoveredIntent; readonly settle: boolean };

/** One claimed intent: resent, or reported; then handed to `onIntent`, then settled when its outcome is definitive. */
async function recoverOne(run: Run, intent: JournalIntent): Promise<RecoveredIntent> {
  const claimedAt = wallClockNow();
  const verdict = await judge(run, intent, claimedAt);
  const open = { ...verdict.entry, settled: false, reclaimableAt: claimedAt + run.leaseMs } as RecoveredIntent;
  logOutcome(run.deps.logger, verdict.entry, verdict.settle);
  if (!(await handedOver(run, verdict.settle ? verdict.entry : open)) || !verdict.settle) return open;
  if (await run.deps.hook.settle(intent)) return verdict.entry;
  log(
    run.deps.logger,
    'warn',
    'recovery: the intent could not be settled; the next recover() handles it again (a resend gets the same answer)',
    fieldsOf(intent),
  );
  return open;
}

/** Gives the outcome to `onIntent`: false when it failed (the intent then stays open). */
async function handedOver(run: Run, entry: RecoveredIntent): Promise<boolean> {
  if (run.onIntent === undefined) return true;
  try {
    await run.onIntent(entry);
    return true;
  } catch (err) {
    log(run.deps.logger, 'warn', 'recovery: onIntent failed; the intent stays open and the next recover() hands it over again', {
      ...fieldsOf(entry.intent),
      error: err instanceof Error ? err.name : typeof err,
    });
    return false;
  }
}

/** What to do with one intent: resend it, or report it for a check; and whether that settles it. */
async function judge(run: Run, intent: JournalIntent, claimedAt: number): Promise<Verdict> {
  const endpoint = endpointNamed(intent.endpoint);
  const reclaimableAt = undefined;
  const why =
    endpoint === undefined
      ? 'endpoint unknown to this SDK version'
      : intent.scope === run.scope
        ? templateMismatch(intent, endpoint, run.deps.basePath)
        : 'another scope';
  if (endpoint === undefined || why !== undefined) {
    const check = `not sent by this client (${why ?? 'endpoint unknown to this SDK version'}): ${checkFor(intent)}`;
    return { entry: { intent, outcome: 'skipped', settled: false, reclaimableAt, check }, settle: false };
  }
  // A lockout endpoint's intent is never resent, whatever its record says (one written by an older version).
  const withheld = intent.withheld || neverResent(endpoint);
  const expired = claimedAt - intent.createdAt >= WINDOW_MS - run.marginMs;
  if (withheld || expired) {
    const check = endpoint.lockout === undefined ? checkFor(intent) : withParams(endpoint.lockout.check, endpoint.path, intent.path);
    return { entry: { intent, outcome: withheld ? 'withheld' : 'expired', check, settled: true, reclaimableAt }, settle: true };
  }
  try {
    const { data, response } = await run.deps.send(preparedOf(intent, endpoint, run.deps.basePath, run.signal), endpoint);
    return { entry: { intent, outcome: 'resent', result: data, response, settled: true, reclaimableAt }, settle: true };
  } catch (error) {
    const settle = storedUnderKey(error, endpoint);
    const next = settle
      ? 'settled: the service keeps this answer under the key (the operation did not happen; the same key only replays it)'
      : `left open: this answer does not show whether the first attempt executed; recover() again from ${new Date(claimedAt + run.leaseMs).toISOString()} (the end of this lease) sends it again with its key`;
    return { entry: { intent, outcome: 'failed', error, next, settled: settle, reclaimableAt }, settle };
  }
}

/** One line per outcome, before its settle: a crash after the settle still leaves the order in the log. */
function logOutcome(logger: Logger | undefined, entry: RecoveredIntent, settles: boolean): void {
  const { error } = entry as { error?: { code?: unknown; name?: unknown } };
  const result = (entry as { result?: { id?: unknown } }).result;
  log(logger, entry.outcome === 'resent' ? 'info' : 'warn', `recovery: intent ${entry.outcome}`, {
    ...fieldsOf(entry.intent),
    settles,
    replayed: entry.outcome === 'resent' ? entry.response.replayed : undefined,
    requestId: entry.outcome === 'resent' ? entry.response.requestId : undefined,
    // The order's id (the server's text, escaped): the one thing a person needs if the report is lost.
    orderId: typeof result?.id === 'string' ? printable(result.id) : undefined,
    error: typeof error?.name === 'string' ? error.name : undefined,
    code: typeof error?.code === 'string' ? printable(error.code) : undefined,
    next: entry.outcome === 'failed' ? entry.next : undefined,
    check: entry.outcome === 'resent' || entry.outcome === 'failed' ? undefined : entry.check,
  });
}

/** The error that ends a recovery whose journal failed: every outcome so far, in the error and at `warn`. */
function interrupted(run: Run, cause: unknown): RecoveryInterruptedError {
  const report: RecoveryReport = { intents: [...run.intents], unreadable: [...run.unreadable], leftForLater: undefined, leased: undefined };
  const done = run.intents.map((r) => {
    const id = (r as { result?: { id?: unknown } }).result?.id;
    return `${r.intent.key} ${r.outcome}${typeof id === 'string' ? ` ${printable(id)}` : ''}${r.settled ? '' : ' (open)'}`;
  });
  log(
    run.deps.logger,
    'warn',
    'recovery: interrupted, the journal could not claim the next intent; the rest stay open for the next recover()',
    {
      handled: done.length === 0 ? 'none' : done.join('; '),
      error: cause instanceof Error ? cause.name : typeof cause,
    },
  );
  return new RecoveryInterruptedError(
    `recover() stopped: the journal could not claim the next intent (${cause instanceof Error ? cause.name : 'error'}). The ${run.intents.length} outcome(s) before are in this error's report; the intents not reached stay open.`,
    report,
    cause,
  );
}

import { MerchantSdkError } from '../core/errors/errors.js';

/**
 * Why a statement of a PostgreSQL store failed:
 * - `unreachable`: no answer (connection refused, closed or killed, or no reply within
 *   `statementTimeoutMs`);
 * - `unavailable`: the server answered that it cannot do it now, and will again without anyone's
 *   help: shutting down or starting up (`57P01`, `57P03`), a statement or lock timeout (`57014`,
 *   `55P03`), a serialization failure or a deadlock (`40001`, `40P01`), too many connections
 *   (`53300`), a read-only standby (`25006`);
 * - `misconfigured`: the server refused the statement and will refuse it again until someone
 *   changes the database: a missing table (`42P01`: run `ensureSchema()` or the migration), a
 *   missing grant (`42501`), a failed login (`28P01`), a full disk (`53100`), any other error.
 */
export type PostgresFailureKind = 'unreachable' | 'unavailable' | 'misconfigured';

// Each error's detail, to name it again for another operation (unsentAs).
const details = new WeakMap<PostgresStoreError, string>();

/**
 * A statement of a PostgreSQL store failed. It names the operation and the SQLSTATE, never a
 * parameter value (a body, an event id), and keeps no reference to the driver's error (which
 * may quote values in its `detail`).
 *
 * `PostgresJournal` rejects with it from `record`, `settle` and `claim` (a money-moving call then
 * fails before sending, with it as `cause`); `PostgresEventStore` from `claim` and the
 * transactional claim (the receiver answers 503 and the service delivers again).
 */
export class PostgresStoreError extends MerchantSdkError {
  /** Class name, `PostgresStoreError`. */
  override name = 'PostgresStoreError';
  /** What kind of failure: an outage (`unreachable`, `unavailable`) or a configuration mistake. */
  readonly kind: PostgresFailureKind;
  /** The SQLSTATE the server answered (`42501`, `40001`, ...), when it answered one. */
  readonly code: string | undefined;
  /** What the store was doing (`record an intent`, `claim an event`, ...). */
  readonly operation: string;
  /**
   * `false` when the statement certainly did not take effect: the server answered it with an
   * error (its transaction was rolled back), or no connection could be had (it was never sent).
   * `undefined` when it was sent and no answer came: it may have committed. The intent journal's
   * contract reads it: a `record` that did not run stored nothing.
   */
  readonly executed: false | undefined;

  /** @internal */
  constructor(kind: PostgresFailureKind, detail: string, at: { code: string | undefined; operation: string; unsent: boolean }) {
    super(messageOf(kind, detail, at.operation, at.code));
    this.kind = kind;
    this.code = at.code;
    this.operation = at.operation;
    this.executed = at.code === undefined && !at.unsent ? undefined : false;
    details.set(this, detail);
  }
}

/**
 * `failure` as the failure of `operation`, which was never sent (`executed: false`) because a
 * step before it (the schema's verify) failed so.
 */
export function unsentAs(failure: PostgresStoreError, operation: string): PostgresStoreError {
  if (failure.operation === operation && failure.executed === false) return failure;
  return new PostgresStoreError(failure.kind, details.get(failure)!, { code: failure.code, operation, unsent: true });
}

function messageOf(kind: PostgresFailureKind, detail: string, operation: string, code: string | undefined): string {
  switch (kind) {
    case 'misconfigured':
      // Without a SQLSTATE, the store refused (a table that does not fit), not the server.
      return `${code === undefined ? 'Cannot' : 'PostgreSQL refused to'} ${operation}: ${detail}. A configuration mistake, not an outage: see "PostgreSQL" in docs/postgres.md (ensureSchema, verifySchema and the grants).`;
    case 'unavailable':
      return `PostgreSQL cannot ${operation} now: ${detail}.`;
    case 'unreachable':
      return `PostgreSQL unreachable (${operation}): ${detail}.`;
  }
}

// SQLSTATEs of a server that cannot serve now and will again on its own.
const UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '57P05', '57014', '55P03', '53300', '25006', '58000']);
// SQLSTATE classes of the same: connection exceptions, transaction rollbacks (40001, 40P01, ...).
const UNAVAILABLE_CLASSES = ['08', '40'];

/** The kind of a failure with SQLSTATE `code` (undefined: no answer). */
function classify(code: string | undefined): PostgresFailureKind {
  if (code === undefined) return 'unreachable';
  if (UNAVAILABLE.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return 'unavailable';
  return 'misconfigured';
}

/**
 * The driver's failure as a {@link PostgresStoreError}: its first line, at most 300 characters,
 * with the statement's values masked. `unsent`: the statement never left this process.
 */
export function storeErrorOf(err: unknown, operation: string, values: readonly unknown[], unsent = false): PostgresStoreError {
  if (err instanceof PostgresStoreError) return err;
  const raw = (err as { code?: unknown } | null)?.code;
  // The server's SQLSTATE is five characters; Node's socket codes (ECONNREFUSED) mean no answer.
  const code = typeof raw === 'string' && /^[0-9A-Z]{5}$/.test(raw) ? raw : undefined;
  let detail = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();
  for (const v of values) if (typeof v === 'string' && v.length >= 4) detail = detail.split(v).join('***');
  if (detail.length > 300) detail = `${detail.slice(0, 300)}...`;
  if (detail === '') detail = 'no answer';
  return new PostgresStoreError(classify(code), code === undefined ? detail : `${detail} (SQLSTATE ${code})`, {
    code,
    operation,
    unsent,
  });
}

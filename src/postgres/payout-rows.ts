/**
 * The rows of the payout table, both ways: a record's column values for an insert or update, a
 * row read back as its record (or why it cannot be), and the `list()` query as SQL text with its
 * parameters.
 */
import { InvalidArgumentError } from '../core/errors/errors.js';
import type { PayoutRecord } from '../payouts/record.js';
import type { PayoutCursor, PayoutListQuery } from '../payouts/store.js';
import { PostgresStoreError } from './failures.js';

/** The columns a write sets, in this order after `reference`: version, state, member, asset, created_at, updated_at, record. */
export function columnsOf(record: PayoutRecord): unknown[] {
  if (typeof record?.reference !== 'string') throw new InvalidArgumentError('record', 'must be a payout record (with a reference).');
  if (!Number.isSafeInteger(record.version)) throw new InvalidArgumentError('record.version', 'must be an integer.');
  if (!Number.isSafeInteger(record.createdAt) || !Number.isSafeInteger(record.updatedAt))
    throw new InvalidArgumentError('record.createdAt', 'createdAt and updatedAt must be integers (Unix ms).');
  return [
    record.reference,
    record.version,
    record.state,
    record.member,
    record.asset,
    record.createdAt,
    record.updatedAt,
    JSON.stringify(record),
  ];
}

/**
 * The record of a row, or what keeps it from being one: the text is not JSON, or not an object
 * whose reference, version, state and createdAt are the row's own (someone edited one of them).
 */
export function recordOf(row: Readonly<Record<string, unknown>>): PayoutRecord | string {
  const text = row['record'];
  if (typeof text !== 'string') return 'no record';
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not a JSON object';
  const record = parsed as PayoutRecord;
  const differs = [
    record.reference !== row['reference'] && 'reference',
    record.version !== Number(row['version']) && 'version',
    record.state !== row['state'] && 'state',
    record.createdAt !== Number(row['created_at']) && 'createdAt',
  ].filter((f): f is string => f !== false);
  if (differs.length > 0) return `its ${differs.join(', ')} differ${differs.length === 1 ? 's' : ''} from the row's columns`;
  return record;
}

/**
 * The failure of a row that does not read back as its record: `misconfigured`, naming the
 * reference (a person repairs the row), with no SQLSTATE (PostgreSQL refused nothing).
 */
export function unreadable(reference: string, problem: string, operation: string): PostgresStoreError {
  return new PostgresStoreError('misconfigured', `the stored record of payout ${JSON.stringify(reference)} cannot be read (${problem})`, {
    code: undefined,
    operation,
    unsent: true,
  });
}

/** A bound of `created_at` (an integer column): `>= x` and `< x` both hold for whole ms from `ceil(x)`. */
function wholeBound(name: string, value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) throw new InvalidArgumentError(name, 'must be a number (Unix ms).');
  return Math.min(Number.MAX_SAFE_INTEGER, Math.max(Number.MIN_SAFE_INTEGER, Math.ceil(value)));
}

/** Rows after the cursor in list order; after a cursor at a fraction of a ms (never one of ours), every row of the next whole ms. */
function afterClause(after: PayoutCursor, param: (value: unknown) => string): string {
  const at = wholeBound('after.createdAt', after.createdAt);
  if (at !== after.createdAt) return `created_at >= ${param(at)}`;
  return `(created_at, reference COLLATE "C") > (${param(at)}, ${param(String(after.reference))}::text COLLATE "C")`;
}

/**
 * The `list()` statement over `table`: filters, then the keyset cursor `(created_at, reference) >
 * (after)`, oldest first, one row more than `limit` (whether a next page exists). `reference` is
 * `COLLATE "C"` in the table; the `COLLATE "C"` here keeps the order bytewise on a table that
 * lacks it, and matches the index where it has it.
 */
export function listStatement(table: string, query: PayoutListQuery): { text: string; values: unknown[]; limit: number } {
  const limit = Math.max(1, Math.floor(query.limit));
  if (!Number.isFinite(limit)) throw new InvalidArgumentError('limit', 'must be a number, at least 1.');
  const values: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown): string => `$${values.push(value)}`;
  // One state as an equality: the (state, created_at, reference) index then reads in list order.
  if (query.states?.length === 1) where.push(`state = ${param(query.states[0])}`);
  else if (query.states !== undefined) where.push(`state = ANY(${param([...query.states])}::text[])`);
  if (query.createdFrom !== undefined) where.push(`created_at >= ${param(wholeBound('createdFrom', query.createdFrom))}`);
  if (query.createdBefore !== undefined) where.push(`created_at < ${param(wholeBound('createdBefore', query.createdBefore))}`);
  if (query.after !== undefined) where.push(afterClause(query.after, param));
  const text = `SELECT reference, version, state, created_at, record FROM ${table}
${where.length === 0 ? '' : `WHERE ${where.join(' AND ')}\n`}ORDER BY created_at, reference COLLATE "C" LIMIT ${param(limit + 1)}`;
  return { text, values, limit };
}

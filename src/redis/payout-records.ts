/**
 * Payout records in and out of {@link RedisPayoutStore}: what a record must hold to be indexed,
 * and the reading of what Redis hands back, whose failure names the reference, never the content
 * (a record holds addresses and amounts).
 */
import { InvalidArgumentError, MerchantSdkError } from '../core/errors/errors.js';
import { PAYOUT_STATES, type PayoutRecord } from '../payouts/record.js';

/**
 * A stored payout record does not read back as one (not JSON, or JSON without a reference,
 * version or state of its own): corrupt, edited by hand, or written by a newer version. It stays
 * in Redis, untouched, for a person; `get` and `create` of its reference reject with this error,
 * `replace` rejects with it and stores nothing, and `list` leaves it out with a `warn` line and
 * goes on with the records behind it.
 */
export class UnreadablePayoutRecordError extends MerchantSdkError {
  /** Class name, `UnreadablePayoutRecordError`. */
  override name = 'UnreadablePayoutRecordError';
  /** The reference the record is stored under. */
  readonly reference: string;
  /** What is wrong with it, in words (never its content). */
  readonly problem: string;

  /** @internal */
  constructor(reference: string, problem: string, key: string) {
    super(`The payout record of reference ${JSON.stringify(reference)} in ${key} cannot be read: ${problem}. It was left as it is.`);
    this.reference = reference;
    this.problem = problem;
  }
}

/** Lone UTF-16 surrogates: they have no UTF-8 form, so two references would share a Redis field. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The checks a record passes before it is written: the fields the store indexes (a reference, a
 * known state, a finite `createdAt`, a finite version). The rest is the workflow's.
 *
 * @throws InvalidArgumentError naming the field.
 */
export function checkWritable(record: PayoutRecord): void {
  if (record === null || typeof record !== 'object') throw new InvalidArgumentError('record', 'must be a payout record.');
  if (typeof record.reference !== 'string' || record.reference === '' || LONE_SURROGATE.test(record.reference))
    throw new InvalidArgumentError('reference', 'must be a non-empty string of well-formed UTF-16 (no lone surrogate).');
  if (!PAYOUT_STATES.includes(record.state)) throw new InvalidArgumentError('state', `must be one of ${PAYOUT_STATES.join(', ')}.`);
  if (typeof record.createdAt !== 'number' || !Number.isFinite(record.createdAt))
    throw new InvalidArgumentError('createdAt', 'must be a finite number (Unix ms).');
  if (typeof record.version !== 'number' || !Number.isFinite(record.version))
    throw new InvalidArgumentError('version', 'must be a finite number.');
}

/**
 * The record stored as `json` under `reference`.
 *
 * @throws UnreadablePayoutRecordError when it does not read as a record of that reference.
 */
export function readRecord(json: unknown, reference: string, key: string): PayoutRecord {
  if (typeof json !== 'string') throw new UnreadablePayoutRecordError(reference, 'the stored value is not text', key);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    // The parser's message quotes the text: it is not repeated.
    throw new UnreadablePayoutRecordError(reference, 'it is not valid JSON', key);
  }
  const record = value as Partial<PayoutRecord> | null;
  if (record === null || typeof record !== 'object' || Array.isArray(record))
    throw new UnreadablePayoutRecordError(reference, 'it is JSON but not an object', key);
  if (record.reference !== reference)
    throw new UnreadablePayoutRecordError(reference, 'its reference differs from the one it is stored under', key);
  if (typeof record.version !== 'number' || !PAYOUT_STATES.includes(record.state as PayoutRecord['state']))
    throw new UnreadablePayoutRecordError(reference, 'it has no numeric version or no known state', key);
  return record as PayoutRecord;
}

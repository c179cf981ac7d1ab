import { Decimal } from 'decimal.js';
import { InvalidArgumentError } from './core/errors.js';

/**
 * An amount argument: a decimal string (`"25.50"`) or a `Decimal`. JavaScript numbers are not
 * accepted (binary floats lose money); the types and the run-time check both reject them.
 */
export type AmountInput = string | Decimal;

/** The eight balance buckets of a balance row (Resources > Balance row). */
export const BALANCE_BUCKETS = ['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing'] as const;

/** Name of one of the eight balance buckets. */
export type BalanceBucket = (typeof BALANCE_BUCKETS)[number];

const PLAIN_DECIMAL = /^(0|[1-9]\d*|0\d+)(\.\d+)?$/;

/** Limits an amount argument must respect, checked before sending. */
export interface AmountRules {
  /** Reject zero (amounts that move funds are positive). Default true. */
  readonly positive?: boolean;
  /** Allow `0` even when `positive` (card limits use `0` for "no limit"). */
  readonly allowZero?: boolean;
  /** Maximum digits before the decimal point. */
  readonly maxIntegerDigits?: number;
  /** Maximum digits after the decimal point. */
  readonly maxDecimals?: number;
}

/**
 * Turns an amount argument into the plain fixed-point string sent on the wire (never exponent
 * notation), or throws {@link InvalidArgumentError} naming `field`.
 */
export function toAmountString(value: unknown, field: string, rules: AmountRules = {}): string {
  const text = amountText(value, field);
  if (!PLAIN_DECIMAL.test(text)) {
    throw new InvalidArgumentError(
      field,
      `must be a plain non-negative decimal string such as "25.50" (got ${JSON.stringify(text.slice(0, 40))}).`,
    );
  }
  checkRules(text, field, rules);
  return text;
}

/** The text of an amount argument: a string as given, a finite Decimal in fixed notation. */
function amountText(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (Decimal.isDecimal(value)) {
    if (!value.isFinite()) throw new InvalidArgumentError(field, 'must be a finite amount.');
    return value.toFixed();
  }
  if (typeof value === 'number' || typeof value === 'bigint') {
    throw new InvalidArgumentError(field, 'must be a decimal string or a Decimal, not a number (binary floats lose money).');
  }
  throw new InvalidArgumentError(field, 'must be a decimal string such as "25.50".');
}

/** Applies `rules` to a plain decimal string. */
function checkRules(text: string, field: string, rules: AmountRules): void {
  // A plain decimal: one integer part, and at most one decimal part.
  const [intPart, decPart = ''] = text.split('.') as [string, string?];
  if (intPart.replace(/^0+(?=\d)/, '').length > (rules.maxIntegerDigits ?? Infinity)) {
    throw new InvalidArgumentError(field, `has more than ${rules.maxIntegerDigits} integer digits.`);
  }
  if (decPart.length > (rules.maxDecimals ?? Infinity)) {
    throw new InvalidArgumentError(field, `has more than ${rules.maxDecimals} decimal places.`);
  }
  const isZero = /^[0.]+$/.test(text);
  if ((rules.positive ?? true) && isZero && !rules.allowZero) {
    throw new InvalidArgumentError(field, 'must be greater than 0.');
  }
}

/** Parses a decimal string of a response into a `Decimal` (exact; no float on the way). */
export function toDecimal(amount: string): Decimal {
  return new Decimal(amount);
}

/** A balance row's bucket fields, as the service sends them. */
export type BalanceBuckets = Readonly<Record<BalanceBucket, string>>;

/** The member's total for the asset: the sum of the eight buckets (Resources > Balance row). */
export function balanceTotal(row: BalanceBuckets): Decimal {
  let total = new Decimal(0);
  for (const bucket of BALANCE_BUCKETS) total = total.plus(row[bucket]);
  return total;
}

/**
 * Formats an amount for display at `display_scale` (rounding half up). Never parse the result:
 * `display_scale` only controls display precision.
 */
export function formatAmount(amount: string, displayScale: number): string {
  return new Decimal(amount).toFixed(displayScale, Decimal.ROUND_HALF_UP);
}

export { Decimal };

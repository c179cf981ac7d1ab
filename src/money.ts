import { Decimal as DecimalJs } from 'decimal.js';
import { InvalidArgumentError } from './core/errors/errors.js';

/**
 * An amount argument: a decimal string (`"25.50"`) or a `Decimal`. JavaScript numbers are not
 * accepted (binary floats lose money); the types and the run-time check both reject them.
 */
export type AmountInput = string | Decimal;

/** The eight balance buckets of a balance row (Resources > Balance row). */
export const BALANCE_BUCKETS = ['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing'] as const;

/** Name of one of the eight balance buckets. */
export type BalanceBucket = (typeof BALANCE_BUCKETS)[number];

/**
 * `Decimal` (decimal.js) configured for money: 1,000 significant digits, so that sums, differences
 * and products of the service's amounts are exact (the library's default of 20 significant
 * digits rounds an 18-decimal amount of 100 or more), and plain fixed notation from `toString()`
 * at any size (never `1e-7`). Instances mix freely with other decimal.js instances.
 */
export const Decimal: typeof DecimalJs = DecimalJs.clone({ precision: 1000, toExpNeg: -9e15, toExpPos: 9e15 });

/** An instance of {@link Decimal}. */
export type Decimal = DecimalJs;

const PLAIN_DECIMAL = /^(0|[1-9]\d*|0\d+)(\.\d+)?$/;
/**
 * A plain fixed-point decimal as the service writes amounts, with an optional sign (the spec
 * states no sign rule for any response amount), and no exponent or radix prefix.
 */
const RESPONSE_DECIMAL = /^[+-]?\d+(\.\d+)?$/;

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

/**
 * Parses a decimal string of a response into a {@link Decimal}, exactly (no float on the way, no
 * rounding). Only plain fixed-point text is accepted, with an optional sign (`"25.50"`, `"-0.1"`,
 * `"+3"`): exponent notation, hexadecimal, `"NaN"`, `"Infinity"` and blanks throw instead of
 * becoming a wrong amount.
 *
 * @throws InvalidArgumentError when `amount` is not a plain decimal string.
 */
export function toDecimal(amount: string): Decimal {
  return new Decimal(checkDecimal(amount, 'amount', RESPONSE_DECIMAL));
}

/** A balance row's bucket fields, as the service sends them. */
export type BalanceBuckets = Readonly<Record<BalanceBucket, string>>;

/**
 * The member's total for the asset: the sum of the eight buckets (Resources > Balance row),
 * exact (the sum keeps up to {@link Decimal}'s 1,000 significant digits, far beyond any amount).
 * A bucket may be negative (`frozen: "-1.00"`): the spec states no sign rule for balances, so it
 * is summed as sent.
 *
 * @throws InvalidArgumentError naming the bucket when one is not a plain decimal string (an
 *   exponent, a number, `"NaN"`, a blank).
 */
export function balanceTotal(row: BalanceBuckets): Decimal {
  return BALANCE_BUCKETS.reduce((sum, bucket) => sum.plus(checkDecimal(row[bucket], bucket, RESPONSE_DECIMAL)), new Decimal(0));
}

/**
 * Formats an amount for display at `display_scale` (rounding half up). Never parse the result:
 * `display_scale` only controls display precision.
 *
 * @throws InvalidArgumentError when `amount` is not a plain decimal string.
 */
export function formatAmount(amount: string, displayScale: number): string {
  return toDecimal(amount).toFixed(displayScale, Decimal.ROUND_HALF_UP);
}

function checkDecimal(value: unknown, field: string, shape: RegExp): string {
  if (typeof value !== 'string' || !shape.test(value)) {
    const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value;
    throw new InvalidArgumentError(field, `must be a plain decimal string such as "25.50" (got ${shown}).`);
  }
  return value;
}

import DecimalDefault from 'decimal.js';
import type { Decimal as DecimalClass } from 'decimal.js';
import { fail } from './errors.js';

type DecimalCtor = typeof DecimalClass;
// decimal.js ships CommonJS typings: under NodeNext its default import is typed as the module
// object, while at run time (ESM, or CJS interop) it is the constructor. Accept both.
const DecimalJs = ((DecimalDefault as unknown as { default?: DecimalCtor }).default ?? DecimalDefault) as unknown as DecimalCtor;

/**
 * Decimal constructor for ledger arithmetic: enough precision for 20 integer digits at scale
 * 18, no exponent notation in output, and truncation as the default rounding (ledger amounts
 * are never rounded up in the member's favour unless a rule says so).
 */
export const Decimal = DecimalJs.clone({
  precision: 80,
  rounding: DecimalJs.ROUND_DOWN,
  toExpNeg: -80,
  toExpPos: 80,
});

/** A decimal value (decimal.js instance). */
export type Dec = InstanceType<typeof Decimal>;

/** Zero, shared. */
export const ZERO: Dec = new Decimal(0);

const DECIMAL_TEXT = /^\d+(\.\d+)?$/;

/**
 * Parses a request amount per the spec's Conventions: a decimal string (numbers are refused),
 * plain fixed-point, with more decimals than `scale` only when every excess digit is 0.
 * Failures are 400 `invalid_request`.
 */
export function parseAmount(raw: unknown, scale: number, field: string): Dec {
  if (typeof raw !== 'string') fail('invalid_request', `${field} must be a decimal string`);
  if (!DECIMAL_TEXT.test(raw)) fail('invalid_request', `${field} is not a plain decimal string`);
  const dot = raw.indexOf('.');
  if (dot >= 0) {
    const excess = raw.slice(dot + 1 + scale);
    if (/[^0]/.test(excess)) fail('invalid_request', `${field} has more than ${scale} decimal places`);
  }
  return new Decimal(raw);
}

/** As {@link parseAmount}, and the amount must be greater than zero. */
export function parsePositive(raw: unknown, scale: number, field: string): Dec {
  const value = parseAmount(raw, scale, field);
  if (value.lte(0)) fail('invalid_request', `${field} must be greater than 0`);
  return value;
}

/** Formats at exactly `scale` decimals (truncating), as ledger responses do. */
export function fmt(value: Dec, scale: number): string {
  return value.toFixed(scale, Decimal.ROUND_DOWN);
}

/** Rounds up to `scale` decimals (customer totals, fees owed). */
export function ceilTo(value: Dec, scale: number): Dec {
  return value.toDecimalPlaces(scale, Decimal.ROUND_UP);
}

/** Truncates to `scale` decimals (amounts paid out). */
export function floorTo(value: Dec, scale: number): Dec {
  return value.toDecimalPlaces(scale, Decimal.ROUND_DOWN);
}

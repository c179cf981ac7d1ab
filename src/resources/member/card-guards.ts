/** Checks of card calls whose mistakes lock a card or return a 500 that retrying cannot fix. */
import { Decimal } from 'decimal.js';
import { InvalidArgumentError } from '../../core/errors/errors.js';
import { toAmountString, type AmountInput } from '../../money.js';

const EXPIRY = /^(0[1-9]|1[0-2])\/\d{2}$/;

/**
 * Card activation details: `expiry` printed `MM/YY` (month 01 to 12), `pin` a non-empty string.
 * A mismatch counts toward the 3-failure, 24-hour lock, so a malformed value is never sent. The
 * PIN is never echoed in an error message.
 */
export function activationBody(params: Readonly<Record<string, unknown>>): { expiry: string; pin: string } {
  const { expiry, pin } = params;
  if (typeof expiry !== 'string' || !EXPIRY.test(expiry)) {
    throw new InvalidArgumentError('expiry', 'must be the printed expiry date as MM/YY (month 01 to 12), e.g. "07/29".');
  }
  if (typeof pin !== 'string' || pin === '') throw new InvalidArgumentError('pin', 'must be a non-empty string.');
  return { expiry, pin };
}

/**
 * One card limit value: exactly `0` (no limit at this layer) or a decimal of at least one
 * currency unit. Checked because the service answers 500 `api_error` to an invalid amount string.
 * A zero written otherwise (`0.00`, `00`) is rejected: the spec names only `0` as "no limit" and
 * rejects values below one unit, and reading `0.00` as "no limit" could let every payment through
 * a card meant to be blocked. The sandbox refuses it too (400 `invalid_fields`).
 */
export function limitValue(value: AmountInput | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const text = toAmountString(value, name, { positive: false });
  if (text === '0') return text;
  if (new Decimal(text).lt(1)) {
    throw new InvalidArgumentError(name, 'must be at least one currency unit, or exactly "0" for no limit at this layer.');
  }
  return text;
}

/** `lower` must not exceed `upper` when both are given and neither is `0` (no limit). */
export function checkLimitOrder(lower: string | undefined, upper: string | undefined, lowerName: string, upperName: string): void {
  if (lower === undefined || upper === undefined || lower === '0' || upper === '0') return;
  if (new Decimal(lower).gt(upper)) throw new InvalidArgumentError(upperName, `must be at least ${lowerName} when neither is 0.`);
}

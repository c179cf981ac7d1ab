/**
 * Amount arguments and amounts read back (spec: Resources > Conventions: money amounts are
 * decimal strings, never numbers; `display_scale` only controls display precision).
 */
import { describe, expect, it } from 'vitest';
import { BALANCE_BUCKETS, Decimal, InvalidArgumentError, balanceTotal, formatAmount, toAmountString, toDecimal } from '../../src/index.js';

function refusal(value: unknown, rules = {}): InvalidArgumentError {
  try {
    toAmountString(value, 'amount', rules);
  } catch (e) {
    if (e instanceof InvalidArgumentError) return e;
    throw e;
  }
  throw new Error(`expected ${String(value)} to be refused`);
}

describe('what is refused, and what the error says', () => {
  it('numbers and bigints: binary floats lose money', () => {
    for (const value of [25.5, 0, 10n]) {
      expect(refusal(value).message).toBe('amount: must be a decimal string or a Decimal, not a number (binary floats lose money).');
    }
  });

  it('other types: a decimal string is expected', () => {
    for (const value of [undefined, null, true, {}, ['1']]) {
      expect(refusal(value).message).toBe('amount: must be a decimal string such as "25.50".');
    }
  });

  it('a Decimal that is not finite', () => {
    for (const value of [new Decimal(Infinity), new Decimal(NaN), new Decimal(-Infinity)]) {
      expect(refusal(value).message).toBe('amount: must be a finite amount.');
    }
  });

  it('text that is not a plain non-negative decimal, quoting at most 40 characters of it', () => {
    expect(refusal('-1').message).toBe('amount: must be a plain non-negative decimal string such as "25.50" (got "-1").');
    expect(refusal(new Decimal('-2.5')).message).toContain('(got "-2.5")');
    const long = `${'9'.repeat(50)}x`;
    expect(refusal(long).message).toContain(`(got "${'9'.repeat(40)}")`);
    for (const bad of ['1.2.3', 'a1', '1a', '01a', '1.5e', '٣'])
      expect(() => toAmountString(bad, 'amount'), bad).toThrow(InvalidArgumentError);
  });

  it('digit limits name the limit; leading zeros do not count as integer digits', () => {
    expect(refusal('123', { maxIntegerDigits: 2 }).message).toBe('amount: has more than 2 integer digits.');
    expect(refusal('1.123', { maxDecimals: 2 }).message).toBe('amount: has more than 2 decimal places.');
    expect(toAmountString('0012', 'amount', { maxIntegerDigits: 2 })).toBe('0012');
    expect(toAmountString('12.50', 'amount', { maxIntegerDigits: 2, maxDecimals: 2 })).toBe('12.50');
    expect(toAmountString('000', 'amount', { maxIntegerDigits: 1, positive: false })).toBe('000');
    expect(toAmountString('0.5', 'amount', { maxIntegerDigits: 1 })).toBe('0.5');
    expect(toAmountString('7', 'amount', { maxDecimals: 0 })).toBe('7');
  });
});

describe('zero', () => {
  it('is refused by default, since amounts that move funds are positive', () => {
    for (const zero of ['0', '0.0', '00.000']) expect(refusal(zero).message).toBe('amount: must be greater than 0.');
    expect(refusal(new Decimal(0)).message).toBe('amount: must be greater than 0.');
  });

  it('is accepted with allowZero, or where amounts need not be positive', () => {
    expect(toAmountString('0', 'amount', { allowZero: true })).toBe('0');
    expect(toAmountString('0.00', 'amount', { positive: false })).toBe('0.00');
    expect(toAmountString('0.00', 'amount', { positive: true, allowZero: true })).toBe('0.00');
  });

  it('a tiny positive amount is not zero', () => {
    expect(toAmountString('0.000000000001', 'amount')).toBe('0.000000000001');
    expect(toAmountString('10', 'amount')).toBe('10');
  });
});

describe('amounts read back', () => {
  it('formatAmount rounds half up at display_scale and pads with zeros', () => {
    expect(formatAmount('1.005', 2)).toBe('1.01');
    expect(formatAmount('2.5', 0)).toBe('3');
    expect(formatAmount('2.4999', 0)).toBe('2');
    expect(formatAmount('0.125', 2)).toBe('0.13');
    expect(formatAmount('1.2', 4)).toBe('1.2000');
  });

  it('toDecimal is exact, and balanceTotal adds all eight buckets', () => {
    expect(toDecimal('0.1').plus(toDecimal('0.2')).eq(toDecimal('0.3'))).toBe(true);
    expect(BALANCE_BUCKETS).toEqual(['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing']);
    // A different power of ten per bucket: a bucket left out shows as a missing digit.
    const row = Object.fromEntries(BALANCE_BUCKETS.map((b, i) => [b, `${10 ** i}`])) as Record<(typeof BALANCE_BUCKETS)[number], string>;
    expect(balanceTotal(row).toFixed()).toBe('11111111');
  });
});

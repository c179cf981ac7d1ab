import { describe, expect, it } from 'vitest';
import { balanceTotal, Decimal, InvalidArgumentError, toAmountString, toDecimal } from '../../src/index.js';

describe('amounts', () => {
  it('keeps valid decimal strings as given and writes Decimals in plain notation', () => {
    expect(toAmountString('25.50', 'amount')).toBe('25.50');
    expect(toAmountString('0.000001', 'amount')).toBe('0.000001');
    expect(toAmountString(new Decimal('1e-7'), 'amount')).toBe('0.0000001');
    expect(toAmountString(new Decimal('1e21'), 'amount')).toBe('1000000000000000000000');
  });
  it('rejects numbers at run time, naming the field', () => {
    expect(() => toAmountString(25.5, 'amount')).toThrow(InvalidArgumentError);
    expect(() => toAmountString(25.5, 'amount')).toThrow(/amount: .*not a number/);
  });
  it('rejects exponent, signs, blanks and zero', () => {
    for (const bad of ['1e3', '-1', '+1', ' 1', '1.', '.5', '', '0', '0.00', 'NaN', '1,5']) {
      expect(() => toAmountString(bad, 'amount'), bad).toThrow(InvalidArgumentError);
    }
  });
  it('applies digit limits', () => {
    expect(toAmountString('12345678901234567890.123456789012', 'amount', { maxIntegerDigits: 20, maxDecimals: 12 })).toBe(
      '12345678901234567890.123456789012',
    );
    expect(() => toAmountString('123456789012345678901', 'amount', { maxIntegerDigits: 20 })).toThrow(/20 integer digits/);
    expect(() => toAmountString('1.0000000000001', 'amount', { maxDecimals: 12 })).toThrow(/12 decimal places/);
  });
  it('totals the eight buckets exactly', () => {
    const row = {
      available: '0.1',
      pending: '0.2',
      frozen: '0',
      isolated: '0',
      locked: '1.000001',
      card: '0',
      earn: '2',
      withdrawing: '0.7',
    };
    expect(balanceTotal(row).toFixed()).toBe('4.000001');
    expect(toDecimal('0.1').plus('0.2').toFixed()).toBe('0.3');
  });
});

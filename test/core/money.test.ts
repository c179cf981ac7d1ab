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
  it('totals 18-decimal buckets of any size exactly (a 20-digit default precision would round them)', () => {
    const big = '123456789012345678901234.123456789012345678';
    const row = {
      available: big,
      pending: big,
      frozen: '0',
      isolated: '0.000000000000000001',
      locked: '7',
      card: '0',
      earn: '0',
      withdrawing: '0',
    };
    expect(balanceTotal(row).toString()).toBe('246913578024691357802475.246913578024691357');
    const small = { available: '0.05', pending: '0', frozen: '0', isolated: '0', locked: '0', card: '0', earn: '0', withdrawing: '0' };
    expect(balanceTotal(small).toString()).toBe('0.05');
  });
  it('sums a negative or explicitly signed bucket as sent (the spec states no sign rule for balances)', () => {
    const row = { available: '10', pending: '0', frozen: '-1.00', isolated: '+0.5', locked: '0', card: '-0', earn: '0', withdrawing: '0' };
    expect(balanceTotal(row).toFixed()).toBe('9.5');
    expect(balanceTotal({ ...row, available: '-10' }).toFixed()).toBe('-10.5');
  });
  it('refuses a bucket that is not a plain decimal string, naming the bucket and what it got', () => {
    const row = { available: '1', pending: '0', frozen: '0', isolated: '0', locked: '0', card: '0', earn: '0', withdrawing: '0' };
    const refusal = (pending: unknown): InvalidArgumentError => {
      try {
        balanceTotal({ ...row, pending: pending as string });
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidArgumentError);
        return err as InvalidArgumentError;
      }
      throw new Error(`accepted ${String(pending)}`);
    };
    for (const bad of ['x1.5', '1.5x', '--1', '1-', '-', '1e3', '1.', '']) expect(refusal(bad).argument, bad).toBe('pending');
    expect(refusal(5).message).toBe('pending: must be a plain decimal string such as "25.50" (got number).');
    expect(refusal('9'.repeat(50) + 'x').message).toBe(
      `pending: must be a plain decimal string such as "25.50" (got "${'9'.repeat(40)}").`,
    );
  });
  it('toDecimal: plain text in, plain notation out at any size; anything else refused as the amount', () => {
    expect(toDecimal('25').toString()).toBe('25');
    expect(toDecimal('-0.1').toString()).toBe('-0.1');
    expect(toDecimal('+1').toString()).toBe('1');
    expect(toDecimal('0.0000001').toString()).toBe('0.0000001');
    expect(toDecimal('1' + '0'.repeat(30)).toString()).toBe('1' + '0'.repeat(30));
    for (const bad of ['abc', '1e3', '++1', '+-1', '1.5x', 'x1.5', '.5']) expect(() => toDecimal(bad), bad).toThrow(InvalidArgumentError);
    expect(() => toDecimal('abc')).toThrow('amount: must be a plain decimal string such as "25.50" (got "abc").');
  });
});

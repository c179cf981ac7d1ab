/**
 * Amount normalisation (src/money.ts): whatever decimal string or Decimal comes in, what goes on
 * the wire is plain fixed-point text that denotes exactly the same value; numbers never pass.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, InvalidArgumentError, toAmountString } from '../../src/index.js';
import { wireClient } from '../helpers/client.js';
import { startWireServer } from '../helpers/wire-server.js';
import { runs } from './runs.js';

/** Plain fixed-point text: ASCII digits, optionally a point and more digits; no sign, no exponent. */
const PLAIN = /^[0-9]+(\.[0-9]+)?$/;
const digits = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

/** Decimal strings as a caller might write them, leading and trailing zeros included. */
const decimalString = fc
  .tuple(digits(1, 40), fc.option(digits(1, 40), { nil: undefined }))
  .map(([i, f]) => (f === undefined ? i : `${i}.${f}`));

/** Non-negative Decimals over a wide range of magnitudes, from this and from a cloned constructor. */
const CloneDecimal = Decimal.clone({ precision: 5, toExpNeg: -2, toExpPos: 3 });
const decimal = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 40n }), fc.integer({ min: -60, max: 60 }), fc.boolean())
  .map(([mantissa, exp, cloned]) => (cloned ? new CloneDecimal(`${mantissa}e${exp}`) : new Decimal(`${mantissa}e${exp}`)));

describe('amount normalisation (property)', () => {
  it('a decimal string goes out unchanged: plain fixed-point, the same value, exactly', () => {
    fc.assert(
      fc.property(decimalString, (text) => {
        const out = toAmountString(text, 'amount', { positive: false });
        expect(out).toBe(text);
        expect(out).toMatch(PLAIN);
        expect(new Decimal(out).eq(new Decimal(text))).toBe(true);
      }),
      { numRuns: runs(300) },
    );
  });

  it('a Decimal of any magnitude goes out as plain fixed-point (never exponent notation) and round-trips exactly', () => {
    fc.assert(
      fc.property(decimal, (d) => {
        const out = toAmountString(d, 'amount', { positive: false });
        expect(out).toMatch(PLAIN);
        expect(new Decimal(out).eq(d)).toBe(true);
        // Normalising the output again changes nothing (string or Decimal).
        expect(toAmountString(out, 'amount', { positive: false })).toBe(out);
        expect(toAmountString(new Decimal(out), 'amount', { positive: false })).toBe(out);
      }),
      { numRuns: runs(300) },
    );
  });

  it('zero is refused where an amount must be positive, accepted where zero is allowed', () => {
    fc.assert(
      fc.property(fc.tuple(digits(1, 5), fc.option(digits(1, 5), { nil: undefined })), ([i, f]) => {
        const zero = `${'0'.repeat(i.length)}${f === undefined ? '' : `.${'0'.repeat(f.length)}`}`;
        expect(() => toAmountString(zero, 'amount')).toThrow(InvalidArgumentError);
        expect(toAmountString(zero, 'amount', { allowZero: true })).toBe(zero);
      }),
      { numRuns: runs(50) },
    );
  });

  it('numbers, bigints and other non-strings are rejected with a typed error naming the field', () => {
    const notAmounts = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.bigInt(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.object(),
      fc.array(fc.string()),
    );
    fc.assert(
      fc.property(notAmounts, (v) => {
        let caught: unknown;
        try {
          toAmountString(v, 'amount');
        } catch (e) {
          caught = e;
        }
        expect(caught).toBeInstanceOf(InvalidArgumentError);
        expect((caught as InvalidArgumentError).argument).toBe('amount');
        if (typeof v === 'number' || typeof v === 'bigint') expect((caught as Error).message).toMatch(/not a number/);
      }),
      { numRuns: runs(200) },
    );
  });

  it('negative, non-finite and exponent-bearing inputs, and any text that is not plain fixed-point, are rejected', () => {
    const negative = decimal.filter((d) => !d.isZero()).map((d) => d.negated());
    const special = fc.constantFrom(new Decimal(NaN), new Decimal(Infinity), new Decimal(-Infinity));
    const badText = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 30 }),
      fc.constantFrom(
        '1e5',
        '1E-3',
        '-1',
        '+1',
        ' 1',
        '1 ',
        '1,000',
        '.5',
        '5.',
        '',
        'NaN',
        'Infinity',
        '0x10',
        '١٢٣',
        '１２３',
        '1_000',
        '1.2.3',
        '\n1',
      ),
      decimalString.chain((t) =>
        fc
          .tuple(fc.nat({ max: t.length }), fc.constantFrom('e', '-', '+', ' ', ',', '_', '\u00a0', '\u0660'))
          .map(([at, c]) => t.slice(0, at) + c + t.slice(at)),
      ),
    );
    fc.assert(
      fc.property(
        fc.oneof(
          negative,
          special,
          badText.filter((t) => !PLAIN.test(t)),
        ),
        (v) => {
          expect(() => toAmountString(v, 'amount', { positive: false })).toThrow(InvalidArgumentError);
        },
      ),
      { numRuns: runs(300) },
    );
  });

  it('over the wire: the body carries exactly the normalised text for Decimal amounts', async () => {
    const server = await startWireServer();
    const client = wireClient(server.url);
    server.on('POST', '/v1/withdrawals', {
      status: 201,
      body: { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '1', ledger_scale: 6, to_address: 'T' },
    });
    await fc.assert(
      fc.asyncProperty(
        decimal.filter((d) => !d.isZero()),
        async (d) => {
          server.requests.length = 0;
          await client.member('m').withdrawals.create({ asset: 'USDT', amount: d, to_address: 'T' });
          const raw = server.calls()[0]!.body.toString('utf8');
          const sent = (JSON.parse(raw) as { amount: unknown }).amount;
          expect(typeof sent).toBe('string');
          expect(sent).toMatch(PLAIN);
          expect(new Decimal(sent as string).eq(d)).toBe(true);
          // The amount travels as a JSON string, never a JSON number.
          expect(raw).toContain(`"amount":"${sent as string}"`);
        },
      ),
      { numRuns: runs(25) },
    );
    await client.close();
    await server.close();
  });
});

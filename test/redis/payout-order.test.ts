/**
 * The order keys of RedisPayoutStore (src/redis/payout-order.ts): byte order of the members,
 * which is how Redis sorts them, is the contract's `(createdAt, reference)` order, and a member
 * reads back as the position it was made from.
 */
import { describe, expect, it } from 'vitest';
import { lexRange, numberOf, orderedNumber, orderMember, positionOf } from '../../src/redis/payout-order.js';

/** Byte order of the members' UTF-8 text: what Redis' memcmp sees. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

const NUMBERS = [
  -1e300,
  -1_765_000_000_000,
  -5,
  -1.5,
  -Number.MIN_VALUE,
  0,
  Number.MIN_VALUE,
  0.25,
  1,
  1.5,
  100,
  1_765_000_000_000,
  2 ** 53,
  1e300,
];

describe('payout order keys', () => {
  it('orders numbers as numbers, fixed width, and reads them back (-0 as 0)', () => {
    const keys = NUMBERS.map(orderedNumber);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect([...keys].sort(byBytes)).toEqual(keys);
    for (const n of NUMBERS) expect(numberOf(orderedNumber(n))).toBe(n);
    expect(orderedNumber(-0)).toBe(orderedNumber(0));
    expect(numberOf('not hex at all!!')).toBeNaN();
  });

  it('orders members by createdAt, then by reference in UTF-16 code units (not UTF-8 bytes), a prefix first', () => {
    const refs = ['', 'a', 'a!', 'ab', 'b', 'B', 'é', '\uE000', '\uFF61', '\uFFFF', '😀', 'x😀', 'x\uFF61', 'x', 'x ', '~'];
    const positions = [5, -1, 5.5].flatMap((createdAt) => refs.map((reference) => ({ createdAt, reference })));
    const expected = [...positions].sort(
      (a, b) => a.createdAt - b.createdAt || (a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0),
    );
    const members = positions.map((p) => orderMember(p.createdAt, p.reference)).sort(byBytes);
    expect(members.map(positionOf)).toEqual(expected);
    // What Redis would do with the bare references: another order.
    expect(['😀', '\uFF61'].sort(byBytes)).toEqual(['\uFF61', '😀']);
    const member = orderMember(5, 'a');
    expect(positionOf(member)).toEqual({ createdAt: 5, reference: 'a' });
    for (const broken of [
      'garbage',
      member.slice(0, 16),
      `${member.slice(0, 16)}?0061!a`,
      `${member.slice(0, 17)}0061`,
      `z${member.slice(1)}`,
    ])
      expect(positionOf(broken), broken).toBeUndefined();
    expect(numberOf(`x${orderedNumber(5)}`)).toBeNaN();
    expect(numberOf(`${orderedNumber(5)}x`)).toBeNaN();
  });

  it('bounds a list by the cursor (exclusive) and the creation times (from inclusive, before exclusive)', () => {
    const at = (createdAt: number, reference: string): string => orderMember(createdAt, reference);
    const inRange = (member: string, range: { min: string; max: string }): boolean => {
      const lower =
        range.min === '-' ||
        (range.min.startsWith('(') ? byBytes(member, range.min.slice(1)) > 0 : byBytes(member, range.min.slice(1)) >= 0);
      const upper = range.max === '+' || byBytes(member, range.max.slice(1)) < 0;
      return lower && upper;
    };
    const r = lexRange({ createdFrom: 100, createdBefore: 200 });
    expect([at(99.5, 'z'), at(100, ''), at(100, 'a'), at(199, 'z'), at(200, ''), at(200, 'a')].map((m) => inRange(m, r))).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
    const c = lexRange({ createdFrom: 100, after: { createdAt: 150, reference: 'b' } });
    expect([at(150, 'a'), at(150, 'b'), at(150, 'b!'), at(150, 'c'), at(151, '')].map((m) => inRange(m, c))).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
    // A cursor before createdFrom: the filter bounds the page.
    expect(lexRange({ createdFrom: 100, after: { createdAt: 50, reference: 'z' } }).min).toBe(`[${orderedNumber(100)}`);
    expect(lexRange({})).toEqual({ min: '-', max: '+' });
  });
});

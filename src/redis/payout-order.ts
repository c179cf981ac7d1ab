/**
 * The list order of {@link RedisPayoutStore} as Redis can keep it: one string per record whose
 * byte order (Redis sorts a sorted set's equal-score members with `memcmp`) is exactly the
 * contract's order, `createdAt` then `reference` in UTF-16 code unit order. Redis would otherwise
 * sort references by their UTF-8 bytes (code point order), which puts `'😀'` after `'\uFF61'`
 * where JavaScript puts it before.
 *
 * A member is `<createdAt: 16 hex>!<reference: 4 hex per UTF-16 code unit>!<reference>`:
 * fixed-width hex keeps both orders, `!` sorts below every hex digit (a reference that is a prefix
 * of another sorts first, as in UTF-16), and the reference itself closes the member so that a
 * script can read it back without decoding.
 */
import type { PayoutCursor } from '../payouts/store.js';

/** Between the parts of a member; below `0`-`9`, `a`-`f` in byte order. */
const SEP = '!';

/**
 * `value` as 16 hex digits whose byte order is the numbers' order: the IEEE 754 bits, sign bit
 * flipped for positives, every bit flipped for negatives (so any finite `createdAt` works, even
 * a negative or fractional one).
 */
export function orderedNumber(value: number): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value === 0 ? 0 : value); // -0 is 0, as in JavaScript's comparisons
  const high = view.getUint32(0);
  const negative = high >>> 31 === 1;
  view.setUint32(0, negative ? ~high >>> 0 : (high | 0x8000_0000) >>> 0);
  if (negative) view.setUint32(4, ~view.getUint32(4) >>> 0);
  return hex32(view.getUint32(0)) + hex32(view.getUint32(4));
}

/** The number {@link orderedNumber} encoded, or NaN when `text` is not 16 hex digits. */
export function numberOf(text: string): number {
  if (!/^[0-9a-f]{16}$/.test(text)) return Number.NaN;
  const view = new DataView(new ArrayBuffer(8));
  const high = Number.parseInt(text.slice(0, 8), 16);
  const low = Number.parseInt(text.slice(8), 16);
  const negative = high >>> 31 === 0;
  view.setUint32(0, negative ? ~high >>> 0 : (high & 0x7fff_ffff) >>> 0);
  view.setUint32(4, negative ? ~low >>> 0 : low);
  return view.getFloat64(0);
}

/** The sorted-set member of a record at `(createdAt, reference)`. */
export function orderMember(createdAt: number, reference: string): string {
  let units = '';
  for (let i = 0; i < reference.length; i++) units += reference.charCodeAt(i).toString(16).padStart(4, '0');
  return `${orderedNumber(createdAt)}${SEP}${units}${SEP}${reference}`;
}

/** The position a member stands for, or undefined when it is not one of ours. */
export function positionOf(member: string): PayoutCursor | undefined {
  const createdAt = numberOf(member.slice(0, 16));
  const end = member.indexOf(SEP, 17);
  if (Number.isNaN(createdAt) || member[16] !== SEP || end < 0) return undefined;
  return { createdAt, reference: member.slice(end + 1) };
}

/** The `ZRANGE ... BYLEX` bounds of a list query: after the cursor, within the creation times. */
export function lexRange(query: {
  readonly createdFrom?: number | undefined;
  readonly createdBefore?: number | undefined;
  readonly after?: PayoutCursor | undefined;
}): { readonly min: string; readonly max: string } {
  const { createdFrom, createdBefore, after } = query;
  let min = '-';
  // The cursor's member itself is excluded; every later member sorts after it.
  if (after !== undefined && (createdFrom === undefined || after.createdAt >= createdFrom))
    min = `(${orderMember(after.createdAt, after.reference)}`;
  // Every member of a time sorts after the bare 16 digits of that time.
  else if (createdFrom !== undefined) min = `[${orderedNumber(createdFrom)}`;
  const max = createdBefore === undefined ? '+' : `(${orderedNumber(createdBefore)}`;
  return { min, max };
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}

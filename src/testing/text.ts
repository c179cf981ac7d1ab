/**
 * Text lengths as the spec counts them: in characters (Unicode code points), never UTF-16 units,
 * so a character outside the Basic Multilingual Plane counts once. One way, everywhere: every
 * length limit of the simulator (`to_address`, `reference_no`, `note`, names, address fields) and
 * the bank-search truncation read these two functions.
 */

/** Number of characters (code points) of `text`. */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The first `max` characters (code points) of `text`; never splits a surrogate pair. */
export function firstChars(text: string, max: number): string {
  return Array.from(text).slice(0, max).join('');
}

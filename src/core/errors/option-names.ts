/**
 * Option keys checked by name at run time, for an options object a plain JavaScript caller may
 * misspell: an unknown key would otherwise be dropped without a word (`baseURL` ignored and the
 * base URL read from the environment instead), so it is refused with the nearest known name.
 */
import { printable } from '../text.js';
import { InvalidArgumentError } from './errors.js';

/** Longest key compared or printed in full: an unknown key is the caller's text, not ours. */
const MAX_KEY = 40;

/** Levenshtein distance of `a` and `b` (both short: option names). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known name `key` most likely meant: the one equal to it but for case, else the one
 * nearest by edit distance (case ignored) when that distance is at most a third of the name
 * (two at least: `maxRetry` finds `maxRetries`); `undefined` when none is that near.
 */
function nearestName(key: string, known: readonly string[]): string | undefined {
  if (key.length > MAX_KEY) return undefined;
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const d = distance(lower, name.toLowerCase());
    if (d < bestDistance && d <= Math.max(2, Math.floor(name.length / 3))) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * Refuses the first own key of `options` that is not in `known`, whatever its value, naming it
 * and the nearest known name (or, when none is near, every known name).
 *
 * @param owner - What takes the options, as the message names it (`new MerchantClient()`).
 * @throws InvalidArgumentError whose `argument` is the unknown key (cut to 40 characters, control
 * characters escaped), e.g. ``baseURL: is not an option of new MerchantClient(); did you mean `baseUrl`?``.
 */
export function refuseUnknownOptions(options: object, known: readonly string[], owner: string): void {
  const names = new Set(known);
  for (const key of Object.keys(options)) {
    if (names.has(key)) continue;
    const shown = printable(key.length > MAX_KEY ? `${key.slice(0, MAX_KEY)}...` : key);
    const near = nearestName(key, known);
    const hint = near === undefined ? `the options are ${known.join(', ')}.` : `did you mean \`${near}\`?`;
    throw new InvalidArgumentError(shown, `is not an option of ${owner}; ${hint}`);
  }
}

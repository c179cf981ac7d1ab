/**
 * Checks of numeric settings, written once for every options object of the SDK (the client, the
 * rate limiters, the fleet stores). Each returns the fallback when the setting is absent and
 * names the setting, never another value, in its `InvalidArgumentError`.
 */
import { InvalidArgumentError } from './errors.js';

/** `value` when given, an integer of 0 or more; else `fallback`. */
export function nonNegativeInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(name, 'must be a non-negative integer.');
  return value;
}

/** `value` when given, an integer of 1 or more; else `fallback`. */
export function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new InvalidArgumentError(name, 'must be a positive integer.');
  return value;
}

/** `value` when given, a finite number above 0 (fractions allowed); else `fallback`. */
export function positiveNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError(name, 'must be a positive number.');
  return value;
}

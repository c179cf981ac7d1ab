import { z } from 'zod';

/**
 * Building blocks shared by every schema of the SDK.
 *
 * Forward compatibility (spec, Versioning): new fields and new enum values are added without a
 * version change, so every object schema is a `z.looseObject` (unknown fields pass through
 * unchanged) and every enum is an {@link openEnum} (unknown values are kept as strings).
 */

/**
 * A string enum that stays open: the known values are typed for autocompletion, and any other
 * string is accepted and kept unchanged (the spec: "Clients display unknown values unchanged").
 */
export type OpenEnum<T extends string> = T | (string & {});

/**
 * Schema of an {@link OpenEnum}: validates a string, types the known values. Never rejects an
 * unknown value, so a new status on the service does not break a deployed client.
 *
 * @param values - The values the spec names.
 */
export function openEnum<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<OpenEnum<T[number]>, string> {
  // The run-time check is a plain string on purpose; only the static type lists the values.
  void values;
  return z.string();
}

/**
 * A decimal amount exactly as the service sent it (Conventions: amounts are decimal strings,
 * never numbers). Kept as a string; parse with `toDecimal` from the money helpers.
 */
export const decimalString = z.string();

/** An ISO 8601 timestamp string, kept as sent. */
export const isoTimestamp = z.string();

/** An integer (scales, counts, bps). */
export const integer = z.number().int();

/** The keyset-list envelope fields (Common rules): `{data, next_cursor, has_more}`. */
export function pageShape<T extends z.ZodType>(item: T) {
  return {
    /** Items of this page. */
    data: z.array(item),
    /** Opaque cursor of the next page (pass it as `cursor`), or null at the end. */
    next_cursor: z.string().nullable(),
    /** Whether more pages follow: the only end marker. */
    has_more: z.boolean(),
  };
}

/**
 * Schema of one page of a keyset-paginated (or static) list: `{data, next_cursor, has_more}`.
 * `has_more` is the only end marker; clients never infer the end from the page length.
 *
 * @param item - Schema of one item.
 */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject(pageShape(item));
}

/**
 * Schema of a response whose shape the spec does not show: any JSON object, every field passed
 * through, with only the fields the spec's prose names typed (all optional).
 */
export const looseResultSchema = z.looseObject({
  /** Identifier, when the response carries one. */
  id: z.string().optional(),
  /** Status, when the response carries one (unknown values kept as strings). */
  status: z.string().optional(),
});

/** A loosely typed result: the fields the prose names, and every other field as `unknown`. */
export interface LooseResult extends z.infer<typeof looseResultSchema> {}

/** Page of loosely typed items (item shape not shown by the spec). */
export const loosePageSchema = pageSchema(looseResultSchema);

/** A page of loosely typed items. */
export interface LoosePage extends z.infer<typeof loosePageSchema> {}

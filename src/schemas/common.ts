import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';

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
export function openEnum<const T extends readonly [string, ...string[]]>(values: T): z.ZodMiniType<OpenEnum<T[number]>, string> {
  // The run-time check is a plain string on purpose; only the static type lists the values.
  void values;
  return z.string();
}

/**
 * A decimal amount exactly as the service sent it (Conventions: amounts are decimal strings,
 * never numbers): plain fixed-point digits with an optional sign, `"25.50"`, `"0"`, `"-1.00"`,
 * `"+3"`, `"100.000000000000000001"`. The sign is accepted because the spec states no sign rule
 * for any response amount (a balance bucket may read `-1.00`). No exponent (`"1e9"`), no
 * hexadecimal (`"0x10"`), no `"NaN"`, `"Infinity"` or empty string: a response carrying one fails
 * validation instead of reaching a sum. Kept as a string; parse with `toDecimal` from the money
 * helpers, which accepts the same text.
 */
export const decimalString = z.string().check(z.regex(/^[+-]?\d+(\.\d+)?$/, 'must be a plain fixed-point decimal string such as "25.50"'));

/** An ISO 8601 timestamp string, kept as sent. */
export const isoTimestamp = z.string();

/** An integer (scales, counts, bps). */
export const integer = z.int();

/** The keyset-list envelope fields (Common rules): `{data, next_cursor, has_more}`. */
export function pageShape<T extends z.ZodMiniType>(item: T) {
  return {
    /** Items of this page. */
    data: z.array(item),
    /** Opaque cursor of the next page (pass it as `cursor`), or null at the end. */
    next_cursor: z.nullable(z.string()),
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
export function pageSchema<T extends z.ZodMiniType>(item: T) {
  return looseObject(pageShape(item));
}

/**
 * Object form of a response whose shape the spec does not show: every field passed through, with
 * only the fields the spec's prose names typed (all optional). `id` and `status` are typed as
 * strings, as the prose implies (the spec's identifiers are prefixed strings and every status it
 * names is one).
 *
 * The typed fields are a convenience, never a gate: the pipeline does not check them (see
 * {@link loose}), so a service that sends another JSON value there (a numeric id, a `null` status)
 * is answered with the body as received. Check with `typeof` where your code depends on the type.
 */
export const looseResultSchema = looseObject({
  /** Identifier, when the response carries one (typed as the prose implies, not checked). */
  id: z.optional(z.string()),
  /** Status, when the response carries one (unknown values kept; typed as implied, not checked). */
  status: z.optional(z.string()),
});

/** A loosely typed result in object form: the fields the prose names, and every other field as `unknown`. */
export interface LooseResult extends z.infer<typeof looseResultSchema> {}

/**
 * A JSON value other than an object, as an endpoint whose shape the spec does not show may answer
 * it: an array, a string, a number, a boolean or `null`. Passed through as received.
 */
export type LooseNonObject = readonly unknown[] | string | number | boolean | null;

/**
 * What an endpoint whose shape the spec does not show answers: its object form `T` (named fields
 * typed), or any other JSON value as received. Narrow with {@link isLooseObject}.
 *
 * @typeParam T - The object form.
 */
export type Loose<T extends object = LooseResult> = T | LooseNonObject;

/** A loosely typed list item: an object (named fields typed) or any other JSON value. */
export type LooseItem = Loose<LooseResult>;

/**
 * Schema of a response the spec does not show: its object form `object` for the declaration, and at
 * run time the body exactly as received, whatever JSON value it is and whatever its fields hold.
 * A 2xx is the service's success (for a write, the money moved): a shape the spec does not show is
 * no reason to turn it into an error.
 *
 * @param object - Schema of the object form (its static type only is used).
 */
export function loose<T extends z.ZodMiniType<object>>(object: T): z.ZodMiniType<z.output<T> | LooseNonObject> {
  void object;
  return z.unknown() as z.ZodMiniType<z.output<T> | LooseNonObject>;
}

/**
 * Whether a loosely typed result is a JSON object (its named fields are then typed), rather than
 * an array, a string, a number, a boolean or `null`.
 *
 * @example
 * const pending = await client.merchant.pending();
 * if (isLooseObject(pending)) console.log(pending.status);
 */
export function isLooseObject<T extends object>(value: Loose<T>): value is T {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The fields of a loosely typed answer without a guard at each use: the answer itself when it is
 * a JSON object, else an empty object. Every field is optional, as the service may leave out any
 * field the spec does not show: `looseFields(await member.cards.topUp(id, body)).status`.
 */
export function looseFields<T extends object>(value: Loose<T>): Partial<T> {
  return isLooseObject(value) ? value : {};
}

/** A loosely typed single result: its object form, or any other JSON value. */
export const looseValueSchema = loose(looseResultSchema);

/**
 * Schema of the body of a list whose shape the spec does not show: any JSON value passes, and the
 * body and its items (a bare array's elements, or an object's `data` array) come through exactly as
 * received. `LoosePage` reads its shape.
 */
export const looseListSchema: z.ZodMiniType<unknown> = z.unknown();

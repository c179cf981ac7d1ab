/**
 * Client-side argument checks shared by the resources. Each one throws `InvalidArgumentError`
 * before anything is sent, where the spec says a wrong value would cost money, lock a card or
 * return a 500 that retrying cannot fix.
 */
import { ApiPromiseImpl } from '../core/pipeline/api-promise.js';
import { InvalidArgumentError } from '../core/errors/errors.js';
import type { ApiPromise, QueryValue } from '../core/types.js';
import { toAmountString, type AmountInput, type AmountRules } from '../money.js';

/** Keyset-list query parameters (Common rules: `limit` default 20, maximum 100; opaque `cursor`). */
export interface ListParams {
  /**
   * Page size, a positive integer (service default 20). The service serves at most 100 a page; a
   * larger value is sent as given and served as 100 (the spec gives the maximum, not an error
   * for exceeding it: the lenient reading, the sandbox's too). Not a cap on the total.
   */
  readonly limit?: number;
  /** Start after this cursor (a previous page's `next_cursor`). */
  readonly cursor?: string;
}

/** Query of a GET whose parameters the spec does not show: sent as given, in order. */
export interface LooseQuery {
  /** A query parameter; `undefined` leaves it out. */
  readonly [key: string]: QueryValue;
}

/** Body of a write whose fields the spec does not show: serialised as given. */
export interface LooseBody {
  /** A body field, serialised as JSON. */
  readonly [field: string]: unknown;
}

/** A path id: a non-empty string, passed as given (the pipeline percent-encodes it). */
export function checkId(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidArgumentError(name, 'must be a non-empty string.');
  return value;
}

/** A required non-empty string field. */
export function checkText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(name, 'must be a non-empty string.');
  return value;
}

/**
 * A required string with at least one character that is not white space, sent as given. For
 * fields whose blank value names nothing, so that sending it could only move money wrongly
 * (a withdrawal's `to_address`): the service's "missing or empty required fields" read as
 * including white space only (the sandbox refuses it too).
 */
export function checkNonBlank(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new InvalidArgumentError(name, 'must be a non-blank string.');
  return value;
}

/** An optional string field (undefined passes). */
export function checkOptionalText(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidArgumentError(name, 'must be a string.');
  return value;
}

/** Length in Unicode code points (what "characters" means to a person and to the service). */
function charLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

/** A string of at most `max` characters. */
export function checkMaxChars(value: string, name: string, max: number): string {
  if (charLength(value) > max) throw new InvalidArgumentError(name, `must be at most ${max} characters.`);
  return value;
}

/** A required amount: a decimal string or Decimal (never a number), positive by default. */
export function amount(value: AmountInput, name: string, rules?: AmountRules): string {
  return toAmountString(value, name, rules);
}

/** An optional amount (undefined passes). */
export function optionalAmount(value: AmountInput | undefined, name: string, rules?: AmountRules): string | undefined {
  return value === undefined ? undefined : toAmountString(value, name, rules);
}

/** A plain object (not null, not an array). */
export function checkObject(value: unknown, name: string): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError(name, 'must be an object.');
  return value as Readonly<Record<string, unknown>>;
}

/** An optional plain object, defaulting to `{}` (an empty request object). */
export function bodyOrEmpty(value: unknown, name = 'params'): Readonly<Record<string, unknown>> {
  return value === undefined ? {} : checkObject(value, name);
}

/** A loose query: an object whose values are strings, numbers, booleans or undefined. */
export function checkQuery(query: LooseQuery | undefined): LooseQuery | undefined {
  if (query === undefined) return undefined;
  checkObject(query, 'query');
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new InvalidArgumentError(key, 'must be a string, number or boolean query value.');
    }
  }
  return query;
}

/**
 * Whether `limit` is a page size the query can carry: a positive integer written with digits
 * only (`1e21` would be sent as `1e+21`, which no service reads as a number).
 */
function isPageSize(limit: unknown): boolean {
  return typeof limit === 'number' && Number.isInteger(limit) && limit >= 1 && /^\d+$/.test(String(limit));
}

/** The list query: `limit` a positive integer (above 100 served as 100), `cursor` a string; other keys dropped. */
export function listQuery(params: ListParams | undefined): Record<string, QueryValue> {
  if (params === undefined) return {};
  checkObject(params, 'params');
  const { limit, cursor } = params;
  if (limit !== undefined && !isPageSize(limit)) {
    throw new InvalidArgumentError('limit', 'must be a positive integer (the service serves at most 100 a page).');
  }
  if (cursor !== undefined && typeof cursor !== 'string') throw new InvalidArgumentError('cursor', 'must be a string.');
  return { limit, cursor };
}

/** A loose query: a list query (checked) followed by any other keys as given. */
export function looseListQuery(params: (ListParams & LooseQuery) | undefined): Record<string, QueryValue> {
  if (params === undefined) return {};
  return { ...checkQuery(params), ...listQuery(params) };
}

/** Drops `undefined` values so that the body bytes carry only what was given. */
export function compact<T extends Record<string, unknown>>(body: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) if (value !== undefined) out[key] = value;
  return out as T;
}

/** Maps the data of an `ApiPromise`, keeping `withResponse()` and the response metadata. */
export function mapApiPromise<T, U>(promise: ApiPromise<T>, map: (data: T) => U): ApiPromise<U> {
  return new ApiPromiseImpl(promise.withResponse().then((r) => ({ data: map(r.data), response: r.response })));
}

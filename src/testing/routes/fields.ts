/** Small body-field readers for routes; failures are 400 `invalid_request` unless stated. */
import { fail } from '../errors.js';
import { memberByRef } from '../store-ops.js';
import type { MemberRecord, Store } from '../store.js';
import { charCount } from '../text.js';

/** Optional string field: absent is undefined, non-string is `invalid_request`; `max` counts characters (code points). */
export function optString(body: Record<string, unknown>, key: string, max?: number): string | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail('invalid_request', `${key} must be a string`);
  if (max !== undefined && charCount(v) > max) fail('invalid_request', `${key} is longer than ${max} characters`);
  return v;
}

/** Required non-empty string field. */
export function reqString(body: Record<string, unknown>, key: string, max?: number): string {
  const v = optString(body, key, max);
  if (v === undefined || v.trim() === '') fail('invalid_request', `${key} is required`);
  return v;
}

/** A path id with an optional prefix: `rmt_x` and `x` both name `rmt_x`. */
export function withPrefix(id: string, prefix: string): string {
  return id.startsWith(prefix) ? id : `${prefix}${id}`;
}

/** Looks up a member-owned object; other members' objects are indistinguishable from absent. */
export function owned<T extends { memberId: string }>(
  map: Map<string, T>,
  id: string,
  member: MemberRecord | undefined,
  code = 'not_found',
): T {
  const found = map.get(id);
  if (!found || (member !== undefined && found.memberId !== member.id)) fail(code, 'No such object.');
  return found;
}

/** Resolves a member by `mem_` id or external id; suspended members read as not found. */
export function findMember(store: Store, ref: string): MemberRecord | undefined {
  const m = memberByRef(store, ref);
  return m && m.status === 'active' ? m : undefined;
}

/** The envelope of a static list. */
export function staticList(data: unknown[]): { data: unknown[]; next_cursor: null; has_more: false } {
  return { data, next_cursor: null, has_more: false };
}

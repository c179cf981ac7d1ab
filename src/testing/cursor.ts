/**
 * Keyset pagination as the spec describes it: strictly descending by (created_at, id), opaque
 * cursors, `has_more`, and the quirk that an undecodable or expired cursor silently returns the
 * first page (the client must detect that restart itself).
 */
import { fail } from './errors.js';

/** Cursors older than this (sandbox time) are expired: one hour, a simulator choice. */
const CURSOR_TTL_MS = 60 * 60 * 1000;
/** Pagination `limit` default and maximum (spec: Other constants). */
const DEFAULT_LIMIT = 20;
/** Largest page size; larger `limit` values are capped to it. */
const MAX_LIMIT = 100;

interface CursorPayload {
  t: number;
  i: string;
  g: number;
  x: number;
}

/** Anything with the keyset fields. */
export interface Keyed {
  created_at: number;
  id: string;
}

/** Pagination inputs besides the query. */
export interface CursorContext {
  now: number;
  /** Bumped by `state.expireCursors()`; cursors of an older generation are expired. */
  generation: number;
}

function decode(cursor: string, ctx: CursorContext): CursorPayload | undefined {
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPayload>;
    if (typeof p.t !== 'number' || typeof p.i !== 'string' || typeof p.g !== 'number' || typeof p.x !== 'number') return undefined;
    if (p.g !== ctx.generation || ctx.now - p.x > CURSOR_TTL_MS) return undefined;
    return p as CursorPayload;
  } catch {
    return undefined;
  }
}

function encode(item: Keyed, ctx: CursorContext): string {
  const p: CursorPayload = { t: item.created_at, i: item.id, g: ctx.generation, x: ctx.now };
  return Buffer.from(JSON.stringify(p), 'utf8').toString('base64url');
}

/** Descending (created_at, id) order. */
function keysetOrder(a: Keyed, b: Keyed): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Reads `limit`: default 20 (spec). Sandbox's choice, where the spec gives only the maximum:
 * a `limit` above 100 is served as 100 (no error), and one that is not a positive integer
 * (`0`, `-1`, `2.5`, `abc`) is 400 `invalid_request`.
 */
function limitOf(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null || raw === '') return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) fail('invalid_request', 'limit must be a positive integer');
  return Math.min(Number(raw), MAX_LIMIT);
}

/** One page of `items` for the query's `limit` and `cursor`. */
export function paginate<T extends Keyed>(
  items: readonly T[],
  query: URLSearchParams,
  ctx: CursorContext,
): { page: T[]; next_cursor: string | null; has_more: boolean } {
  const limit = limitOf(query);
  const sorted = [...items].sort(keysetOrder);
  const raw = query.get('cursor');
  const after = raw ? decode(raw, ctx) : undefined;
  const start = after ? sorted.findIndex((it) => it.created_at < after.t || (it.created_at === after.t && it.id < after.i)) : 0;
  const rest = start < 0 ? [] : sorted.slice(start);
  const page = rest.slice(0, limit);
  const has_more = rest.length > limit;
  const last = page[page.length - 1];
  return { page, has_more, next_cursor: has_more && last ? encode(last, ctx) : null };
}

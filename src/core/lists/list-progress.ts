import { PaginationRestartError, PaginationStalledError } from './pagination-errors.js';
import type { ListOrderCheck, Page } from '../types.js';

/**
 * How long a run of empty `has_more: true` pages may last when the iteration is given no budget:
 * the default call deadline, `timeoutMs × (maxRetries + 1)` = 30 s × 3.
 */
const DEFAULT_STALL_BUDGET_MS = 90_000;
/** Cursors followed that are remembered, to catch a cycle between a few cursors. */
const RECENT_CURSORS = 4;

/** What a {@link ListProgress} is told about the list it watches. */
export interface ListProgressOptions<T> {
  /** The list's endpoint, `METHOD /path`, named by the errors. */
  readonly endpoint?: string | undefined;
  /** Order between consecutive items (reports: strictly descending). */
  readonly order?: ListOrderCheck<T> | undefined;
  /** Stable identity of an item; `undefined` for an item that has none. */
  readonly identity: (item: T) => string | undefined;
  /** The cursor the iteration started from (undefined: the first page). */
  readonly start?: string | undefined;
  /**
   * How long (ms) the list may answer empty pages that say `has_more: true`, each with a new
   * cursor, before the iteration counts as stalled: the list call's own deadline, `timeoutMs ×
   * (maxRetries + 1)`. Default 90 s (the client defaults': 30 s × 3).
   */
  readonly stallBudgetMs?: number | undefined;
  /** Monotonic clock in ms (default `performance.now()`), injectable for tests. */
  readonly now?: (() => number) | undefined;
}

/**
 * Watches one iteration of a keyset list for the two ways a service can make it go wrong, in
 * memory that stays flat however long the list is:
 *
 * - a silent restart (the spec: an expired or undecodable cursor returns the first page): an
 *   item of the iteration's first page, or of one of the two pages before, comes back after a
 *   page boundary (by identity), or the list's order goes backwards where one is known. Only
 *   those pages' ids are kept, which is enough because a restart returns the first page;
 * - no progress: `has_more: true` without a cursor, a cursor the iteration already followed
 *   (among the last few), or empty pages that still say `has_more: true` for longer than the
 *   list call's own deadline (`timeoutMs × (maxRetries + 1)`) since the last page with items.
 *   The spec makes `has_more` alone mark the end, so empty pages with new cursors are followed
 *   (a keyset list may have nothing to show on a page and more after it); no page count ends
 *   the iteration, only time.
 *
 * Either raises a typed error naming the endpoint before anything of the bad page is yielded.
 */
export class ListProgress<T> {
  readonly #endpoint: string | undefined;
  readonly #order: ListOrderCheck<T> | undefined;
  readonly #identity: (item: T) => string | undefined;
  #firstIds: ReadonlySet<string> | undefined;
  /** Ids of the last two pages, newest last. */
  #recentIds: ReadonlySet<string>[] = [];
  /** The last item yielded, across empty pages (for the order check). */
  #last: T | undefined;
  #hasLast = false;
  readonly #cursors: string[] = [];
  readonly #stallBudgetMs: number;
  readonly #now: () => number;
  /** When the iteration last made progress: its start, or the last page with items. */
  #progressAt: number;

  constructor(options: ListProgressOptions<T>) {
    this.#endpoint = options.endpoint;
    this.#order = options.order;
    this.#identity = options.identity;
    this.#stallBudgetMs = options.stallBudgetMs ?? DEFAULT_STALL_BUDGET_MS;
    this.#now = options.now ?? (() => performance.now());
    this.#progressAt = this.#now();
    if (options.start !== undefined) this.#cursors.push(options.start);
  }

  /**
   * The cursor to follow after `page` (which said `has_more: true`).
   *
   * @throws PaginationStalledError when it has none, or one already followed.
   */
  nextCursor(page: Page<T>, current: string | undefined): string {
    const cursor = page.next_cursor;
    if (typeof cursor !== 'string' || cursor === '') throw this.#stalled('missing_cursor', current);
    if (this.#cursors.includes(cursor)) throw this.#stalled('repeated_cursor', current);
    this.#cursors.push(cursor);
    if (this.#cursors.length > RECENT_CURSORS) this.#cursors.shift();
    return cursor;
  }

  /**
   * Checks a page before it is yielded (`cursor`: the one that fetched it, undefined for the
   * iteration's first page), then remembers it.
   *
   * @throws PaginationRestartError when the page restarts the list.
   * @throws PaginationStalledError when an empty page still says `has_more: true` after the
   * stall budget (the list call's deadline) has passed since the last page with items.
   */
  accept(page: Page<T>, cursor: string | undefined): void {
    const items = page.data;
    if (cursor !== undefined) this.#checkRestart(items, cursor);
    if (items.length === 0) {
      if (page.has_more && this.#now() - this.#progressAt > this.#stallBudgetMs) throw this.#stalled('empty_pages', cursor);
      return;
    }
    this.#progressAt = this.#now();
    const ids = new Set<string>();
    for (const item of items) {
      const id = this.#identity(item);
      if (id !== undefined) ids.add(id);
    }
    this.#firstIds ??= ids;
    this.#recentIds.push(ids);
    if (this.#recentIds.length > 2) this.#recentIds.shift();
    this.#last = items[items.length - 1];
    this.#hasLast = true;
  }

  #checkRestart(items: readonly T[], cursor: string): void {
    if (items.length === 0) return;
    if (this.#order !== undefined && this.#hasLast && !this.#order(this.#last as T, items[0] as T)) {
      throw new PaginationRestartError(cursor, this.#endpoint);
    }
    const first = this.#firstIds;
    if (first === undefined) return;
    const [older, newer] = this.#recentIds;
    for (const item of items) {
      const id = this.#identity(item);
      if (id === undefined) continue;
      if (first.has(id) || older?.has(id) === true || newer?.has(id) === true) throw new PaginationRestartError(cursor, this.#endpoint);
    }
  }

  #stalled(reason: 'missing_cursor' | 'repeated_cursor' | 'empty_pages', cursor: string | undefined): PaginationStalledError {
    return new PaginationStalledError(reason, cursor ?? null, this.#endpoint);
  }
}

/**
 * The identity the SDK gives a list item when the endpoint names none: its `id` when that is a
 * non-empty string (the spec's identifiers are prefixed strings), else none (no restart check
 * by identity for that item).
 */
export function itemId(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null) return undefined;
  const id = (item as { readonly id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

import { ListProgress, itemId } from './list-progress.js';
import type { ListOrderCheck, Page, PagePromise, PageResponse, WithResponse } from '../types.js';

/** Fetches the page after `cursor` (undefined: the first page), with its response metadata. */
export type PageFetcher<T, P extends Page<T> = Page<T>> = (cursor: string | undefined) => Promise<WithResponse<P>>;

/** The page with its response attached, not enumerable (kept out of its JSON and equality). */
function withPageResponse<P extends object>({ data, response }: WithResponse<P>): P & PageResponse {
  Object.defineProperty(data, 'response', { value: response, enumerable: false, configurable: true });
  return data as P & PageResponse;
}

/** Options of a {@link PageIterator}. */
export interface PageIteratorOptions<T> {
  /** Cursor to start from (undefined: the first page). */
  readonly start?: string | undefined;
  /** Order between consecutive items, where the list has one (reports). */
  readonly order?: ListOrderCheck<T> | undefined;
  /** Identity of an item (default: its string `id`). */
  readonly identity?: ((item: T) => string | undefined) | undefined;
  /** The endpoint, `METHOD /path`, named by the pagination errors. */
  readonly endpoint?: string | undefined;
  /**
   * How long (ms) empty pages saying `has_more: true` may follow one another before the
   * iteration stalls: the list call's deadline, `timeoutMs × (maxRetries + 1)` (default 90 s,
   * the client defaults').
   */
  readonly stallBudgetMs?: number | undefined;
  /** Monotonic clock in ms (default `performance.now()`), injectable for tests. */
  readonly now?: (() => number) | undefined;
}

/**
 * Keyset-cursor list: awaitable for the first page, async-iterable over items, `pages()` for
 * pages. The end is decided by `has_more` alone. Memory stays flat: a page is dropped once its
 * items are yielded, and the checks keep only the ids of the first page and of the last two.
 *
 * Each iteration is watched ({@link ListProgress}): a silent restart (the spec: an expired cursor
 * returns the first page) raises `PaginationRestartError` when an item of the first page or of
 * the two pages before comes back after a page boundary (by identity, the item's `id`), or when
 * the list's known order goes backwards (reports); a list that makes no progress (no cursor, a
 * cursor already followed, or empty pages saying `has_more: true` for longer than the list call's
 * own deadline, `timeoutMs × (maxRetries + 1)`, since the last page with items) raises
 * `PaginationStalledError`. Both name the endpoint, and nothing of the bad page is yielded. Empty
 * pages with `has_more: true` and a new cursor are otherwise followed: `has_more` alone marks the
 * end.
 */
export class PageIterator<T, P extends Page<T> = Page<T>> implements PagePromise<T, P> {
  readonly #fetch: PageFetcher<T, P>;
  readonly #options: PageIteratorOptions<T>;
  #first: Promise<P & PageResponse> | undefined;

  constructor(fetch: PageFetcher<T, P>, options: PageIteratorOptions<T> = {}) {
    this.#fetch = fetch;
    this.#options = options;
  }

  #firstPage(): Promise<P & PageResponse> {
    return (this.#first ??= this.#fetch(this.#options.start).then(withPageResponse));
  }

  #next(cursor: string): Promise<P & PageResponse> {
    return this.#fetch(cursor).then(withPageResponse);
  }

  then<R1 = P & PageResponse, R2 = never>(
    onfulfilled?: ((value: P & PageResponse) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<(P & PageResponse) | R> {
    return this.#firstPage().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<P & PageResponse> {
    return this.#firstPage().finally(onfinally);
  }

  /** Resolves with the first page and its response metadata. */
  withResponse(): Promise<WithResponse<P>> {
    return this.#firstPage().then((page) => ({ data: page, response: page.response }));
  }

  readonly [Symbol.toStringTag] = 'PagePromise';

  async *pages(): AsyncGenerator<P & PageResponse, void, undefined> {
    const { start, order, identity, endpoint, stallBudgetMs, now } = this.#options;
    const progress = new ListProgress<T>({ endpoint, order, start, identity: identity ?? itemId, stallBudgetMs, now });
    let page = await this.#firstPage();
    let cursor: string | undefined = start;
    progress.accept(page, undefined);
    for (;;) {
      yield page;
      if (!page.has_more) return;
      cursor = progress.nextCursor(page, cursor);
      page = await this.#next(cursor);
      progress.accept(page, cursor);
    }
  }

  /**
   * Items one by one. A hand-written iterator rather than `yield* page.data` in an async
   * generator, which wraps every item in several promises: items already fetched are handed out
   * at the cost of one resolved promise each. Calls made while a page is loading queue in order.
   */
  [Symbol.asyncIterator](): AsyncIterator<T, void, undefined> {
    const pages = this.pages();
    let items: readonly T[] = [];
    let index = 0;
    let loading = 0;
    let tail: Promise<unknown> = Promise.resolve();
    const step = async (): Promise<IteratorResult<T, void>> => {
      while (index >= items.length) {
        const next = await pages.next();
        if (next.done === true) return { done: true, value: undefined };
        items = next.value.data;
        index = 0;
      }
      return { done: false, value: items[index++]! };
    };
    return {
      next: (): Promise<IteratorResult<T, void>> => {
        if (loading === 0 && index < items.length) return Promise.resolve({ done: false, value: items[index++]! });
        loading++;
        const result = tail.then(step);
        const settled = (): void => {
          loading--;
        };
        tail = result.then(settled, settled);
        return result;
      },
      return: async (): Promise<IteratorResult<T, void>> => {
        // Drop the page held (memory stays flat) and stop the page generator.
        items = [];
        index = 0;
        await pages.return(undefined);
        return { done: true, value: undefined };
      },
    };
  }

  async collect(max: number): Promise<T[]> {
    if (!Number.isInteger(max) || max < 0) throw new RangeError('collect(max): max must be a non-negative integer.');
    const out: T[] = [];
    if (max === 0) return out;
    for await (const item of this) {
      out.push(item);
      if (out.length >= max) break;
    }
    return out;
  }
}

import { MerchantSdkError, PaginationRestartError } from './errors.js';
import type { ListOrderCheck, Page, PagePromise } from './types.js';

/** Fetches the page after `cursor` (undefined: the first page). */
export type PageFetcher<T> = (cursor: string | undefined) => Promise<Page<T>>;

/**
 * Keyset-cursor list: awaitable for the first page, async-iterable over items, `pages()` for
 * pages. The end is decided by `has_more` alone. Memory stays flat: a page is dropped once its
 * items are yielded. A silent restart (the spec: an expired cursor returns the first page) is
 * detected from the list's order, or from the first page's first item reappearing.
 */
export class PageIterator<T> implements PagePromise<T> {
  readonly #fetch: PageFetcher<T>;
  readonly #start: string | undefined;
  readonly #order: ListOrderCheck<T> | undefined;
  readonly #identity: ((item: T) => string) | undefined;
  #first: Promise<Page<T>> | undefined;

  constructor(
    fetch: PageFetcher<T>,
    opts: { start?: string | undefined; order?: ListOrderCheck<T> | undefined; identity?: ((item: T) => string) | undefined } = {},
  ) {
    this.#fetch = fetch;
    this.#start = opts.start;
    this.#order = opts.order;
    this.#identity = opts.identity;
  }

  #firstPage(): Promise<Page<T>> {
    return (this.#first ??= this.#fetch(this.#start));
  }

  then<R1 = Page<T>, R2 = never>(
    onfulfilled?: ((value: Page<T>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): PromiseLike<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let page = await this.#firstPage();
    // Only the first item's identity and the last item seen are kept between pages.
    const firstId = this.#identity && page.data[0] !== undefined ? this.#identity(page.data[0]) : undefined;
    for (;;) {
      yield page;
      if (!page.has_more) return;
      const cursor = page.next_cursor;
      if (cursor === null || cursor === '') {
        throw new MerchantSdkError('The list reported has_more: true without a next_cursor; stopping instead of looping.');
      }
      const last = page.data[page.data.length - 1];
      page = await this.#fetch(cursor);
      const head = page.data[0];
      if (head !== undefined) {
        const restarted =
          (this.#order !== undefined && last !== undefined && !this.#order(last, head)) ||
          (this.#order === undefined && firstId !== undefined && this.#identity!(head) === firstId);
        if (restarted) throw new PaginationRestartError(cursor);
      }
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

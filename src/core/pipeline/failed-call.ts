import { PageIterator } from '../lists/pagination.js';
import type { ApiPromise, PagePromise } from '../types.js';

/**
 * A call that failed before it started (bad input): awaited, or read with `withResponse()`,
 * `pages()`, `collect()` or `for await`, it rejects with `err`. Lazy, like every call's promise:
 * nothing rejects unobserved.
 */
export function failedCall(err: unknown): ApiPromise<never> & PagePromise<never> {
  return new PageIterator<never>(() => Promise.reject(err)) as unknown as ApiPromise<never> & PagePromise<never>;
}

import type { ApiPromise, WithResponse } from '../types.js';

/**
 * The promise SDK calls return. The call starts at once; `await` yields the data and
 * `withResponse()` the data with its response metadata. The data promise is derived lazily so
 * that a caller using only `withResponse()` gets no stray unhandled rejection.
 */
export class ApiPromiseImpl<T> implements ApiPromise<T> {
  readonly #inner: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(inner: Promise<WithResponse<T>>) {
    this.#inner = inner;
  }

  /** Resolves with the result and the response metadata. */
  withResponse(): Promise<WithResponse<T>> {
    return this.#inner;
  }

  #dataPromise(): Promise<T> {
    return (this.#data ??= this.#inner.then((r) => r.data));
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#dataPromise().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#dataPromise().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#dataPromise().finally(onfinally);
  }

  readonly [Symbol.toStringTag] = 'ApiPromise';
}

import type { EndpointDescriptor } from '../facts/endpoint.js';

/** Per-call options accepted by every SDK method as its last argument. */
export interface CallOptions {
  /**
   * Idempotency key (8-4-4-4-12 hex) for endpoints that take one. Generated (UUID v4) when
   * omitted; every automatic retry of the call reuses it. Pass the key of an earlier call to
   * retry it after a `step_up_required` or an ambiguous failure.
   *
   * Refused (`InvalidArgumentError`, nothing sent) where the spec gives the endpoint no key: every
   * read (GET), QR quotes ("No idempotency key") and card limits ("No idempotency key is listed").
   * On a keyless write whose requirement the spec does not show (`qrpay.decode`,
   * `members.suspend`), it is sent as given. `client.request({ idempotencyKey })` always sends it.
   */
  readonly idempotencyKey?: string;
  /** Aborts the call, including any wait (token, rate limit, backoff) between attempts. */
  readonly signal?: AbortSignal;
  /**
   * Per-attempt timeout in milliseconds, covering the response body read. It also sets the
   * call's deadline, `timeoutMs × (maxRetries + 1)` from its start, which bounds everything the
   * call waits for (a token, its rate-limit bucket, the backoff) and its last attempt.
   */
  readonly timeoutMs?: number;
  /** Maximum automatic retries for this call (0 disables them); with `timeoutMs`, sets its deadline. */
  readonly maxRetries?: number;
  /** Extra headers to send (cannot override the SDK's auth, signature or idempotency headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Metadata of the HTTP exchange that produced a result. */
export interface ResponseMeta {
  /** `X-Request-Id` of the final response (quote it to support). */
  readonly requestId: string | undefined;
  /** HTTP status of the final response. */
  readonly status: number;
  /** Response headers of the final response (lower-case names). */
  readonly headers: Readonly<Record<string, string>>;
  /** Idempotency key sent with every attempt, when the endpoint takes one. */
  readonly idempotencyKey: string | undefined;
  /** True when the service answered with `X-Idempotent-Replay: true`. */
  readonly replayed: boolean;
  /** Number of attempts made (1 when the first attempt succeeded). */
  readonly attempts: number;
}

/** A result together with the metadata of the response that carried it. */
export interface WithResponse<T> {
  /** The validated result. */
  readonly data: T;
  /** Metadata of the final response. */
  readonly response: ResponseMeta;
}

/**
 * The promise every SDK call returns: await it for the result, or call `withResponse()` for
 * the result and the response metadata (request id, status, headers, idempotency key, replay).
 */
export interface ApiPromise<T> extends Promise<T> {
  /** Resolves with the result and the response metadata. */
  withResponse(): Promise<WithResponse<T>>;
}

/** Query parameter values; `undefined` values are left out of the URL. */
export type QueryValue = string | number | boolean | undefined;

/** What a resource hands to the pipeline for one call. */
export interface CallArgs {
  /** Values for the `{name}` placeholders of the endpoint's path; percent-encoded by the SDK. */
  readonly pathParams?: Readonly<Record<string, string>>;
  /** Query parameters, in the order given. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** JSON body (serialised once by the pipeline). Omit for no body. */
  readonly body?: unknown;
  /** Member identifier for `x-on-behalf-of` (member-scoped endpoints only). */
  readonly member?: string;
  /** Per-call options. */
  readonly options?: CallOptions | undefined;
}

/** One page of a keyset-paginated list, as the service sends it. */
export interface Page<T> {
  /** Items of this page. */
  readonly data: T[];
  /** Opaque cursor for the next page, or null at the end. */
  readonly next_cursor: string | null;
  /** Whether more pages follow. The only end marker (never the page length). */
  readonly has_more: boolean;
}

/**
 * One page of a list whose shape the spec does not show ("not shown": assumed a list envelope,
 * but any JSON value is accepted and passed through). `shape` says what the service answered:
 *
 * - `envelope`: an object with a `data` array: its items, `next_cursor` (a string, else null)
 *   and `has_more` (true only when the body says `true`);
 * - `array`: a bare JSON array: its elements are the items, and it is the only page;
 * - `other`: any other JSON value (an object without a `data` array, `null`, a string, a
 *   number): no items, one page; read it from `body`.
 *
 * `body` is the whole response body as received, envelope fields included.
 */
export interface LoosePage<T> extends Page<T> {
  /** What the service answered: a list envelope, a bare array, or another value. */
  readonly shape: 'envelope' | 'array' | 'other';
  /** The whole response body, as received. */
  readonly body: unknown;
}

/**
 * Tells whether `next` may legitimately follow `previous` in a list's order. Used to detect the
 * spec's silent restart (an expired cursor returns the first page) instead of yielding duplicates.
 */
export type ListOrderCheck<T> = (previous: T, next: T) => boolean;

/**
 * What a page of a list carries besides its own fields: the metadata of the response that
 * brought it (request id, status, headers), as `withResponse()` gives for single calls. The
 * property is not enumerable, so it is not part of the page's JSON, spreads or equality checks.
 */
export interface PageResponse {
  /** Metadata of the response that carried this page. */
  readonly response: ResponseMeta;
}

/**
 * The object `list()` methods return: a real promise of the first page (`await`, `.then`,
 * `.catch`, `.finally`), `withResponse()` for the first page and its response metadata, and an
 * async iterable over every item of every page. The first request is made when the promise is
 * first used or iterated. Each page exposes its own `response` ({@link PageResponse}).
 *
 * Iteration raises `PaginationRestartError` when the service silently restarts the list (an
 * expired cursor returns the first page) and `PaginationStalledError` when it makes no progress,
 * instead of yielding duplicates or looping.
 *
 * @typeParam T - An item.
 * @typeParam P - A page (a {@link LoosePage} for lists whose shape the spec does not show).
 *
 * @example
 * const first = await client.assets.list().catch(() => undefined);
 * const { data: page, response } = await client.member('m_1').remittances.list().withResponse();
 * for await (const p of client.reports.list().pages()) console.log(p.response.requestId, p.data.length);
 */
export interface PagePromise<T, P extends Page<T> = Page<T>> extends Promise<P & PageResponse>, AsyncIterable<T> {
  /** Resolves with the first page and the metadata of the response that carried it. */
  withResponse(): Promise<WithResponse<P>>;
  /** Async iteration over whole pages, each with its `response`. */
  pages(): AsyncIterable<P & PageResponse>;
  /** Collects at most `max` items (a cap on the total, not a page size). */
  collect(max: number): Promise<T[]>;
}

/** Extra behaviour for list calls. */
export interface ListArgs<T> extends CallArgs {
  /** Every list sends a query (its page size at least); `cursor` in it starts from that page. */
  readonly query: Readonly<Record<string, QueryValue>>;
  /** Order check between consecutive items, for restart detection. */
  readonly order?: ListOrderCheck<T>;
  /** Stable identity of an item for restart detection (default: its string `id`); undefined for none. */
  readonly identity?: (item: T) => string | undefined;
}

/**
 * The pipeline as resources see it: a resource file knows endpoints and parameters, never HTTP.
 */
export interface EndpointCaller {
  /** Makes one call of an endpoint through the pipeline. */
  call<T>(endpoint: EndpointDescriptor<T>, args?: CallArgs): ApiPromise<T>;
  /** Makes a keyset-paginated list call of an endpoint whose response is a page. */
  list<T>(endpoint: EndpointDescriptor<Page<T>>, args: ListArgs<T>): PagePromise<T>;
  /**
   * A list call of an endpoint whose shape the spec does not show: any JSON body is accepted and
   * turned into a {@link LoosePage} (its items validated by the descriptor's schema).
   */
  looseList<T>(endpoint: EndpointDescriptor<unknown>, args: ListArgs<T>): PagePromise<T, LoosePage<T>>;
}

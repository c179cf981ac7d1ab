import { brotliDecompressSync, gunzipSync, inflateSync, type ZlibOptions } from 'node:zlib';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';

/** One HTTP attempt as the pipeline hands it to a transport. */
export interface TransportRequest {
  readonly method: string;
  /** Origin, e.g. `https://api.example.com` (no trailing slash). */
  readonly origin: string;
  /** Path with query exactly as signed; sent unchanged. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | undefined;
  /** The caller's signal, if any: aborts the attempt, body read included. */
  readonly signal: AbortSignal | undefined;
  /**
   * Per-attempt time limit in ms, body read included. When it runs out the transport aborts the
   * attempt and rejects with {@link AttemptTimeoutError}. (Each transport keeps its own timer, so
   * the undici path needs no `AbortController` per attempt.)
   */
  readonly timeoutMs: number;
  /** Largest response body accepted, in bytes (after decompression). */
  readonly maxResponseBytes: number;
  /**
   * Called when the request starts on its way to the service (a connection took it). Until then
   * nothing has left the client: a failure before it means the service cannot have executed it.
   */
  readonly onSent?: (() => void) | undefined;
}

/** A complete response: status, lower-case headers and the body text. */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Thrown by a transport when a response body exceeds `maxResponseBytes`. */
export class ResponseTooLargeError extends Error {
  override name = 'ResponseTooLargeError';
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly limit: number,
  ) {
    super(`Response body exceeds ${limit} bytes.`);
  }
}

/** Rejection of an attempt that failed before any byte of it could leave the client (connection refused). */
export class AttemptNotSentError extends Error {
  override name = 'AttemptNotSentError';
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/** Rejection of an attempt answered, or about to be forwarded, with a redirect (never followed). */
export class RedirectError extends Error {
  override name = 'RedirectError';
  constructor(
    readonly status: number | undefined,
    readonly locationOrigin: string | undefined,
  ) {
    super('redirect');
  }
}

/** The origin of a `Location` (relative ones resolve against `base`), never its path or query. */
function originOf(location: string | undefined, base: string): string | undefined {
  if (location === undefined || location === '') return undefined;
  try {
    return new URL(location, base).origin;
  } catch {
    return undefined;
  }
}

/** Rejection of an attempt whose `timeoutMs` ran out (the pipeline turns it into a `TimeoutError`). */
export class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
  constructor(readonly timeoutMs: number) {
    super('timeout');
  }
}

/**
 * Sends one attempt. Implementations must honour `signal` and `timeoutMs` until the body is fully
 * read, and reject with {@link AttemptTimeoutError} once `timeoutMs` has run out.
 */
export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in raw) {
    const v = raw[key];
    if (v !== undefined) out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

const UTF8 = new TextDecoder('utf-8');

/** Body text as UTF-8; a leading byte order mark is dropped (TextDecoder's default). */
function decodeText(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

async function readCapped(
  chunks: AsyncIterable<Uint8Array>,
  limit: number,
  status: number,
  headers: Record<string, string>,
): Promise<string> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > limit) throw new ResponseTooLargeError(status, headers, limit);
    parts.push(chunk);
  }
  return decodeText(concat(parts, size));
}

function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A redirect status, which the SDK refuses (304 is a cache answer, not a redirect). */
function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/**
 * Collects one response for {@link UndiciTransport}: a dispatch handler instead of undici's
 * `request()`, which builds a Node `Readable` per response only for the SDK to concatenate it.
 *
 * - One deadline per attempt, from the dispatch to the end of the body: it covers the wait for a
 *   pooled socket and the connect. A timeout or the caller's abort settles the attempt at once,
 *   even while the request is still queued for a connection (undici can abort it only when it
 *   reaches one, which then happens before anything is written).
 * - Redirects are refused: `maxRedirections: 0` turns off undici's redirect interceptor, and if a
 *   caller's dispatcher follows one anyway, the second start of the request is aborted before
 *   any byte reaches the other host. A 3xx answer itself is an error.
 * - The body is capped at `maxResponseBytes`; a compressed body (the SDK asks for `identity`) is
 *   decompressed under the same cap.
 */
class ResponseCollector implements Dispatcher.DispatchHandler {
  readonly #req: TransportRequest;
  readonly #resolve: (res: TransportResponse) => void;
  readonly #reject: (err: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: unknown;
  readonly #timer: ReturnType<typeof setTimeout>;
  #started = false;
  #status = 0;
  #headers: Record<string, string> | undefined;
  #parts: Uint8Array[] = [];
  #size = 0;
  #settled = false;

  constructor(req: TransportRequest, resolve: (res: TransportResponse) => void, reject: (err: unknown) => void) {
    this.#req = req;
    this.#resolve = resolve;
    this.#reject = reject;
    const signal = req.signal;
    if (signal?.aborted) this.#abortReason = signal.reason;
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
    this.#timer = setTimeout(this.#onTimeout, req.timeoutMs);
  }

  readonly #onAbort = (): void => {
    this.#abort(this.#req.signal!.reason);
  };

  readonly #onTimeout = (): void => {
    this.#abort(new AttemptTimeoutError(this.#req.timeoutMs));
  };

  #abort(reason: unknown): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    if (this.#controller !== undefined) this.#controller.abort(reason as Error);
    // Still queued for a connection: settle now; the request is aborted when it reaches one.
    else this.#fail(reason);
  }

  #cleanUp(): void {
    clearTimeout(this.#timer);
    this.#req.signal?.removeEventListener('abort', this.#onAbort);
  }

  #fail(err: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#parts = [];
    this.#cleanUp();
    this.#reject(err);
  }

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.#controller = controller;
    const history = (context as { history?: readonly unknown[] } | undefined)?.history;
    if (this.#started || (history !== undefined && history.length > 0)) {
      // A dispatcher is following a redirect: abort before anything reaches the next host.
      const last = history?.[history.length - 1];
      const origin = typeof last === 'string' || last instanceof URL ? originOf(last.toString(), this.#req.origin) : undefined;
      this.#abortReason ??= new RedirectError(undefined, origin);
      controller.abort(this.#abortReason as Error);
      this.#fail(this.#abortReason);
      return;
    }
    this.#started = true;
    if (this.#abortReason !== undefined) {
      controller.abort(this.#abortReason as Error);
      return;
    }
    this.#req.onSent?.();
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, raw: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    const headers = flattenHeaders(raw);
    this.#status = statusCode;
    this.#headers = headers;
    if (isRedirect(statusCode)) {
      this.#abortWith(controller, new RedirectError(statusCode, originOf(headers['location'], this.#req.origin)));
    } else if (Number(headers['content-length']) > this.#req.maxResponseBytes) {
      this.#abortWith(controller, new ResponseTooLargeError(statusCode, headers, this.#req.maxResponseBytes));
    }
  }

  #abortWith(controller: Dispatcher.DispatchController, err: Error): void {
    this.#abortReason ??= err;
    controller.abort(err);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.#req.maxResponseBytes) {
      this.#abortWith(controller, new ResponseTooLargeError(this.#status, this.#headers ?? {}, this.#req.maxResponseBytes));
      return;
    }
    this.#parts.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    const headers = this.#headers ?? {};
    let body: string;
    try {
      body = decodeText(decompress(concat(this.#parts, this.#size), headers, this.#status, this.#req.maxResponseBytes));
    } catch (err) {
      this.#fail(err);
      return;
    }
    this.#settled = true;
    this.#cleanUp();
    this.#resolve({ status: this.#status, headers, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    const reason = this.#abortReason ?? err;
    // Refused before a connection took it: nothing left the client.
    this.#fail(this.#started || reason !== err ? reason : new AttemptNotSentError(err));
  }
}

/**
 * Decodes a compressed body (`content-encoding` gzip, deflate or br) under the size cap. The SDK
 * asks for `identity`; this is for servers and proxies that compress anyway.
 */
function decompress(bytes: Uint8Array, headers: Record<string, string>, status: number, limit: number): Uint8Array {
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity' || bytes.length === 0) return bytes;
  const decode = DECODERS[encoding];
  if (decode === undefined) return bytes;
  try {
    return decode(bytes, { maxOutputLength: limit });
  } catch (err) {
    if (err instanceof RangeError) throw new ResponseTooLargeError(status, headers, limit);
    throw err;
  }
}

const DECODERS: Readonly<Record<string, (buf: Uint8Array, options: ZlibOptions) => Uint8Array>> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** undici, loaded on first use: importing the SDK then costs nothing for it (about 50 ms). */
let undiciModule: Promise<typeof Undici> | undefined;

function dispatchAttempt(dispatcher: Dispatcher, req: TransportRequest): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const handler = new ResponseCollector(req, resolve, reject);
    const options = {
      origin: req.origin,
      path: req.path,
      method: req.method,
      // The SDK reads plain bytes; it can decode compressed ones under the cap if sent anyway.
      headers: { ...req.headers, 'accept-encoding': 'identity' },
      body: req.body === undefined ? null : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.length),
      // Turns off undici's redirect interceptor, if the caller's dispatcher composes it.
      maxRedirections: 0,
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (err) {
      handler.onResponseError(undefined, err as Error);
    }
  });
}

/**
 * Default transport: undici on one pooled keep-alive dispatcher. The path is passed as a string
 * next to the origin, so nothing re-encodes what was signed. Without a caller's dispatcher, the
 * pooled `Agent` (and undici itself) is created on the first attempt, not at import.
 */
export class UndiciTransport implements Transport {
  #dispatcher: Dispatcher | undefined;
  #creating: Promise<Dispatcher> | undefined;
  readonly #owned: boolean;
  #closed = false;

  constructor(dispatcher?: Dispatcher) {
    this.#owned = dispatcher === undefined;
    this.#dispatcher = dispatcher;
  }

  send(req: TransportRequest): Promise<TransportResponse> {
    const dispatcher = this.#dispatcher;
    if (dispatcher !== undefined) return dispatchAttempt(dispatcher, req);
    return this.#ownAgent().then((agent) => dispatchAttempt(agent, req));
  }

  #ownAgent(): Promise<Dispatcher> {
    return (this.#creating ??= (undiciModule ??= import('undici')).then(async (undici) => {
      const agent = new undici.Agent({ keepAliveTimeout: 10_000, connections: 64 });
      // Closed before its first call: the agent is closed too, so calls fail as after close().
      if (this.#closed) await agent.close();
      this.#dispatcher = agent;
      return agent;
    }));
  }

  async close(): Promise<void> {
    if (!this.#owned) return;
    this.#closed = true;
    if (this.#dispatcher !== undefined) await this.#dispatcher.close();
    else if (this.#creating !== undefined) await this.#creating;
  }
}

/** Connection errors that happen before a request can leave the client. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

function notSent(err: unknown): boolean {
  const cause = (err as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' && NOT_SENT_CODES.has(cause.code);
}

/**
 * Reads a fetch response: a redirect (whether `fetch` honoured `redirect: 'manual'` or followed
 * it anyway) is refused, never returned; the body is capped (a `fetch` decompresses on its own).
 */
async function readFetchResponse(res: Response, req: TransportRequest): Promise<TransportResponse> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, key) => {
    headers[key] = value;
  });
  if (res.type === 'opaqueredirect' || res.redirected || isRedirect(res.status)) {
    await res.body?.cancel();
    throw new RedirectError(
      res.status === 0 ? undefined : res.status,
      originOf(res.redirected ? res.url : headers['location'], req.origin),
    );
  }
  if (Number(headers['content-length']) > req.maxResponseBytes) {
    await res.body?.cancel();
    throw new ResponseTooLargeError(res.status, headers, req.maxResponseBytes);
  }
  const body = res.body === null ? '' : await readCapped(res.body, req.maxResponseBytes, res.status, headers);
  return { status: res.status, headers, body };
}

/** A WHATWG `fetch` function (the global one, msw-intercepted, or any compatible one). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Transport over a WHATWG `fetch`. msw 2 intercepts the global `fetch` (but not undici's own
 * `request`), so test suites that mock with msw use this one.
 */
export class FetchTransport implements Transport {
  readonly #fetch: FetchFunction | undefined;

  constructor(fetchFn?: FetchFunction) {
    this.#fetch = fetchFn;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    // Resolved per call so that a fetch patched after construction (msw) is used.
    const fetchFn: FetchFunction = this.#fetch ?? globalThis.fetch;
    // One signal for the caller's abort and the attempt's timer; it also covers the body read.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new AttemptTimeoutError(req.timeoutMs));
    }, req.timeoutMs);
    const signal = req.signal;
    const onAbort = (): void => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const init: RequestInit = { method: req.method, headers: req.headers, signal: controller.signal, redirect: 'manual' };
      if (req.body !== undefined) init.body = req.body;
      req.onSent?.();
      const res = await fetchFn(req.origin + req.path, init).catch((err: unknown) => {
        throw notSent(err) ? new AttemptNotSentError(err) : err;
      });
      return await readFetchResponse(res, req);
    } catch (err) {
      if (timedOut) throw new AttemptTimeoutError(req.timeoutMs);
      throw err;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async close(): Promise<void> {}
}

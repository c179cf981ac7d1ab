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
  /** Largest response body accepted, in bytes. */
  readonly maxResponseBytes: number;
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

async function readCapped(
  chunks: AsyncIterable<Uint8Array>,
  limit: number,
  status: number,
  headers: Record<string, string>,
): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunks) {
    size += chunk.length;
    if (size > limit) throw new ResponseTooLargeError(status, headers, limit);
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
  }
  return parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts, size).toString('utf8');
}

/**
 * Collects one response for {@link UndiciTransport}: a dispatch handler instead of undici's
 * `request()`, which builds a Node `Readable` (and here an async iterator over it) per response
 * only for the SDK to concatenate it at once. Semantics are those of `request()`: 1xx responses
 * are skipped, headers are parsed the same way, and the caller's signal or the attempt's timer
 * aborts the attempt until the body is read (a request still queued for a connection is aborted
 * when it reaches one, as `request()` does). The body is capped at `maxResponseBytes`.
 */
class ResponseCollector implements Dispatcher.DispatchHandler {
  readonly #req: TransportRequest;
  readonly #resolve: (res: TransportResponse) => void;
  readonly #reject: (err: unknown) => void;
  #controller: Dispatcher.DispatchController | undefined;
  #abortReason: unknown;
  #timedOut = false;
  readonly #timer: ReturnType<typeof setTimeout>;
  #status = 0;
  #headers: Record<string, string> | undefined;
  #parts: Buffer[] = [];
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
    this.#timedOut = true;
    this.#abort(new AttemptTimeoutError(this.#req.timeoutMs));
  };

  #abort(reason: unknown): void {
    if (this.#abortReason !== undefined) return;
    this.#abortReason = reason;
    this.#controller?.abort(reason as Error);
  }

  #cleanUp(): void {
    clearTimeout(this.#timer);
    this.#req.signal?.removeEventListener('abort', this.#onAbort);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortReason !== undefined) controller.abort(this.#abortReason as Error);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, raw: Record<string, string | string[] | undefined>): void {
    if (statusCode < 200) return;
    const headers = flattenHeaders(raw);
    this.#status = statusCode;
    this.#headers = headers;
    if (Number(headers['content-length']) > this.#req.maxResponseBytes) {
      controller.abort(new ResponseTooLargeError(statusCode, headers, this.#req.maxResponseBytes));
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled) return;
    this.#size += chunk.length;
    if (this.#size > this.#req.maxResponseBytes) {
      controller.abort(new ResponseTooLargeError(this.#status, this.#headers ?? {}, this.#req.maxResponseBytes));
      return;
    }
    this.#parts.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#cleanUp();
    const parts = this.#parts;
    const body =
      parts.length === 0 ? '' : parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts, this.#size).toString('utf8');
    this.#resolve({ status: this.#status, headers: this.#headers ?? {}, body });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#parts = [];
    this.#cleanUp();
    this.#reject(this.#timedOut ? new AttemptTimeoutError(this.#req.timeoutMs) : err);
  }
}

/** undici, loaded on first use: importing the SDK then costs nothing for it (about 50 ms). */
let undiciModule: Promise<typeof Undici> | undefined;

function dispatchAttempt(dispatcher: Dispatcher, req: TransportRequest): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const handler = new ResponseCollector(req, resolve, reject);
    try {
      dispatcher.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method,
          headers: req.headers,
          body: req.body === undefined ? null : Buffer.from(req.body.buffer, req.body.byteOffset, req.body.length),
        },
        handler,
      );
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
    const fetchFn = this.#fetch ?? globalThis.fetch;
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
      const res = await fetchFn(req.origin + req.path, init);
      const headers: Record<string, string> = {};
      res.headers.forEach((value, key) => {
        headers[key] = value;
      });
      if (Number(headers['content-length']) > req.maxResponseBytes) {
        await res.body?.cancel();
        throw new ResponseTooLargeError(res.status, headers, req.maxResponseBytes);
      }
      const body = res.body === null ? '' : await readCapped(res.body, req.maxResponseBytes, res.status, headers);
      return { status: res.status, headers, body };
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

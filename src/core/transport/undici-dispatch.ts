/** One attempt dispatched on undici: the handler that collects its response under a deadline and a size cap. */
import type { Dispatcher } from 'undici';
import {
  AttemptNotSentError,
  AttemptTimeoutError,
  RedirectError,
  ResponseTooLargeError,
  concat,
  decodeText,
  isRedirect,
  originOf,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';
import { decompress } from './decompress.js';

/** undici's raw response headers as one string per name (repeated ones joined with `, `). */
function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in raw) {
    const v = raw[key];
    if (v !== undefined) out[key] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
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

  onResponseData(controller: Dispatcher.DispatchController, chunk: Uint8Array): void {
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

/** Sends one attempt on `dispatcher`: resolves with the whole response, or rejects with a transport error. */
export function dispatchAttempt(dispatcher: Dispatcher, req: TransportRequest): Promise<TransportResponse> {
  return new Promise<TransportResponse>((resolve, reject) => {
    const handler = new ResponseCollector(req, resolve, reject);
    const options = {
      origin: req.origin,
      path: req.path,
      method: req.method,
      // The SDK reads plain bytes; it can decode compressed ones under the cap if sent anyway.
      headers: { ...req.headers, 'accept-encoding': 'identity' },
      body: req.body ?? null,
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

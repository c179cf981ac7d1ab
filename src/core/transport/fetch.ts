import {
  AttemptNotSentError,
  AttemptRefusedError,
  AttemptTimeoutError,
  RedirectError,
  ResponseTooLargeError,
  concat,
  decodeText,
  isRedirect,
  originOf,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from './transport.js';

/** A WHATWG `fetch` function (the global one, msw-intercepted, or any compatible one). */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

/**
 * Failures that end an attempt before any byte of the request can have left the client: no
 * connection (refused, no route, no name, connect timeout), or a TLS handshake that failed on
 * the certificate (a fetch writes nothing before the handshake completes). Node's codes.
 */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
]);

/**
 * The network error inside a fetch rejection: a fetch says only `TypeError: fetch failed`, with
 * the socket's or the TLS layer's error (its code, its reason) as `cause`.
 */
function networkCause(err: unknown): unknown {
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return err instanceof TypeError && cause instanceof Error ? cause : err;
}

function notSent(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && NOT_SENT_CODES.has(code);
}

/**
 * msw's error for a request no handler matched under `onUnhandledRequest: 'error'` (msw 2
 * rejects `fetch` with it; msw 3 as the cause of fetch's `TypeError`), or thrown by a custom
 * `onUnhandledRequest` through `print.error()`. Not a network failure: no connection was tried.
 */
function interceptorRefusal(err: unknown): Error | undefined {
  if (isInterceptorError(err)) return err;
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return isInterceptorError(cause) ? cause : undefined;
}

function isInterceptorError(err: unknown): err is Error {
  return err instanceof Error && err.name === 'InternalError';
}

/** A fetch rejection as the transport reports it: refused, not sent, or a network failure as is. */
function fetchFailure(err: unknown): unknown {
  const refusal = interceptorRefusal(err);
  if (refusal !== undefined) return new AttemptRefusedError(refusal);
  const cause = networkCause(err);
  return notSent(cause) ? new AttemptNotSentError(cause) : cause;
}

/**
 * Reads the body under the cap with the stream's reader (every runtime has one; async iteration
 * of a `ReadableStream` is not everywhere).
 */
async function readCapped(
  body: ReadableStream<Uint8Array>,
  req: TransportRequest,
  status: number,
  headers: Record<string, string>,
): Promise<string> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > req.maxResponseBytes) {
      await reader.cancel();
      throw new ResponseTooLargeError(status, headers, req.maxResponseBytes);
    }
    parts.push(value);
  }
  return decodeText(concat(parts, size));
}

/**
 * Reads a fetch response: a redirect (whether `fetch` honoured `redirect: 'manual'` or followed
 * it anyway) is refused, never returned; the body is capped. A `fetch` decodes gzip, deflate and
 * br on its own and keeps the `content-encoding` header, so the body is never decoded again here.
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
  const body = res.body === null ? '' : await readCapped(res.body, req, res.status, headers);
  return { status: res.status, headers, body };
}

/**
 * Transport over a WHATWG `fetch`: the default on Bun, Deno, workerd and edge runtimes, and on
 * Node when undici cannot be loaded. msw intercepts the global `fetch` (but not undici's own
 * dispatch), so test suites that mock with msw use this one.
 */
export class FetchTransport implements Transport {
  readonly #fetch: FetchFunction | undefined;
  #closed = false;

  constructor(fetchFn?: FetchFunction) {
    this.#fetch = fetchFn;
  }

  async send(req: TransportRequest): Promise<TransportResponse> {
    if (this.#closed) throw new AttemptNotSentError(new Error('The client is closed.'));
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
        throw fetchFailure(err);
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

  /** Nothing is pooled here (the runtime's `fetch` owns its connections): later calls fail, as after undici's close. */
  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }
}

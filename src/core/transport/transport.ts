/**
 * The transport contract: one attempt in, one complete response (or a typed failure) out. The
 * implementations live in `transport/`: `fetch.ts` (every runtime) and `undici.ts` (Node only,
 * loaded on the first call), so that nothing on the fetch path imports undici or `node:*`.
 */
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
  /** The socket error's code (`ECONNREFUSED`): the caller reads it as `err.cause.code`. */
  readonly code: string | undefined;
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    const code = (cause as { code?: unknown } | undefined)?.code;
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/**
 * Rejection of an attempt that the request interceptor in front of `fetch` refused to let out:
 * nothing was sent, and going again would only be refused again (so it is never retried). The
 * interceptor's own error is the `cause`.
 */
export class AttemptRefusedError extends AttemptNotSentError {
  override name = 'AttemptRefusedError';
}

/**
 * An {@link AttemptRefusedError} whose interceptor cannot run on this runtime at all (msw 3 on
 * Node.js 20): the fix is another msw or another Node.js, not a request handler, and the message
 * says that alone.
 */
export class InterceptorUnsupportedError extends AttemptRefusedError {
  override name = 'InterceptorUnsupportedError';
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
export function originOf(location: string | undefined, base: string): string | undefined {
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

const UTF8 = new TextDecoder('utf-8');

/** Body text as UTF-8; a leading byte order mark is dropped (TextDecoder's default). */
export function decodeText(bytes: Uint8Array): string {
  return UTF8.decode(bytes);
}

/** The parts as one array (the part itself when there is one). */
export function concat(parts: readonly Uint8Array[], size: number): Uint8Array {
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
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

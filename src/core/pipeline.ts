import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { EndpointDescriptor, RateLimitBucket } from '../spec/endpoint.js';
import { bucketOf } from '../spec/rate-limits.js';
import { ApiPromiseImpl } from './api-promise.js';
import {
  AbortError,
  ApiError,
  ConnectionError,
  InvalidArgumentError,
  MalformedResponseError,
  MerchantSdkError,
  ResponseValidationError,
  TimeoutError,
} from './errors.js';
import { log, printable, type Logger } from './logger.js';
import { PageIterator } from './pagination.js';
import { errorFromResponse, tryParseJson } from './response.js';
import { decideRetry, parseRetryAfter, type AttemptFailure, type BackoffSettings } from './retry-policy.js';
import { isSignedMethod, sha256Hex, signAttempt } from './signing.js';
import { sleep } from './sleep.js';
import type { TokenManager } from './token-manager.js';
import { AttemptTimeoutError, ResponseTooLargeError, type Transport, type TransportResponse } from './transport.js';
import type { ApiPromise, CallArgs, CallOptions, EndpointCaller, ListArgs, Page, PagePromise, WithResponse } from './types.js';
import { buildQuery, fillPath } from './url.js';

/** Resolved client settings the pipeline runs on. */
export interface PipelineSettings {
  readonly origin: string;
  /** Path prefix of the base URL (usually empty), prepended to every `/v1/...` path. */
  readonly basePath: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly validateResponses: boolean;
  readonly maxResponseBytes: number;
  readonly userAgent: string;
  readonly backoff: BackoffSettings;
  readonly logger: Logger | undefined;
}

/**
 * Optional client-side rate limiter, consulted before each attempt (client option `limiter`).
 * `MemoryRateLimiter` is the per-process implementation; a fleet plugs a shared one (Redis).
 *
 * Contract, for any implementation:
 * - `acquire(bucket, signal)` is called once per attempt (retries included) of every request
 *   except the token exchange, once the client holds a token and has waited out any pause of its
 *   own, right before signing and sending. It resolves when one request of `bucket` may be sent,
 *   and counts that request at once: the service's quotas are per merchant, so a shared
 *   implementation counts across processes, atomically with its check.
 * - When `signal` aborts, the pending `acquire` rejects at once with `signal.reason`, takes no
 *   slot, and leaves nothing (timer, listener, subscription) that keeps the process alive. Any
 *   other rejection fails the call unsent, with that error; a fleet limiter that loses its store
 *   should fall back to counting locally rather than reject (a payment must not fail because a
 *   cache is down).
 * - `settle(bucket)`, when implemented, is called exactly once for every resolved `acquire`,
 *   when that attempt has ended (a response arrived, or it failed or was aborted). The service
 *   counted the request on arrival, before that moment, so a sliding window that holds the slot
 *   until one window after `settle` can never let the next request meet it there, however long
 *   the attempt queued for a socket. Without `settle`, an implementation must hold slots a
 *   margin past the window instead. It must not throw.
 * - `pause(bucket, ms)` is called when the service answered 429 with `Retry-After` for
 *   `bucket` (capped at `maxRetryAfterMs`), whether or not that call retries: every queued and
 *   future `acquire` of that bucket waits until `ms` from now (never shortening a longer
 *   pause); the other buckets keep flowing. It must not throw; a shared implementation
 *   publishes the pause to the other processes on its own time.
 * - Buckets are the spec's four: `deposits`, `members_write`, `orders`, `reads`.
 */
export interface RequestLimiter {
  /** Resolves when a request of `bucket` may be sent, counting it. Rejects with `signal.reason` on abort. */
  acquire(bucket: RateLimitBucket, signal?: AbortSignal): Promise<void>;
  /** Called once per resolved `acquire` when its attempt has ended. */
  settle?(bucket: RateLimitBucket): void;
  /** Called when the service answered 429 for `bucket`: pause it for `ms`. */
  pause?(bucket: RateLimitBucket, ms: number): void;
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// CR, LF and other controls in a header value would split or smuggle headers.
const HEADER_UNSAFE = /[\u0000-\u001f\u007f]/;

/** Validates a member identifier for `x-on-behalf-of` before anything is sent. */
export function checkMemberId(member: unknown): string {
  if (typeof member !== 'string' || member.trim() === '') {
    throw new InvalidArgumentError(
      'member',
      'a member-scoped call needs a non-blank member identifier (external_member_id or mem_<uuid>).',
    );
  }
  if (HEADER_UNSAFE.test(member)) throw new InvalidArgumentError('member', 'must not contain control characters such as CR or LF.');
  if (/[^\u0020-\u00ff]/.test(member)) throw new InvalidArgumentError('member', 'must be Latin-1 text to travel in a header.');
  return member;
}

/** Validates a caller's idempotency key (shape only, as the service does) or makes a v4 one. */
export function resolveIdempotencyKey(given: string | undefined): string {
  if (given === undefined) return randomUUID();
  if (typeof given !== 'string' || !UUID_SHAPE.test(given)) {
    throw new InvalidArgumentError('idempotencyKey', 'must be UUID-shaped (8-4-4-4-12 hex digits).');
  }
  return given;
}

/** One call, prepared once: the exact path and body bytes that every attempt signs and sends. */
interface PreparedCall {
  readonly method: string;
  readonly path: string;
  readonly body: Uint8Array | undefined;
  readonly bodyHash: string;
  readonly signed: boolean;
  readonly idempotencyKey: string | undefined;
  readonly member: string | undefined;
  readonly bucket: RateLimitBucket | 'token';
  readonly extraHeaders: Readonly<Record<string, string>> | undefined;
}

type Auth =
  | { readonly kind: 'token'; readonly tokens: TokenManager }
  | { readonly kind: 'credentials'; readonly clientId: string; readonly apiKey: string };

const PROTECTED_HEADERS = new Set([
  'x-auth-token',
  'authorization',
  'x-timestamp',
  'x-nonce',
  'x-signature',
  'x-idempotency-key',
  'x-on-behalf-of',
  'x-client-id',
  'x-api-key',
  'content-type',
  'content-length',
  'host',
]);

/**
 * The request pipeline: prepare once (URL, body bytes, key), then per attempt take a token, sign
 * with a fresh nonce and timestamp, send, classify by `code` and retry only what the spec allows.
 * It knows nothing of any one endpoint beyond the descriptor's generic fields.
 */
export class Pipeline implements EndpointCaller {
  readonly #settings: PipelineSettings;
  readonly #transport: Transport;
  readonly #signingKey: string;
  #tokens: TokenManager | undefined;
  #limiter: RequestLimiter | undefined;
  /** Service clock minus local clock, learned from `Date` after `timestamp_out_of_range`. */
  #clockOffsetMs = 0;
  /** Buckets paused by a 429 until the given local time (ms). */
  readonly #pausedUntil = new Map<string, number>();

  constructor(settings: PipelineSettings, transport: Transport, signingKey: string) {
    this.#settings = settings;
    this.#transport = transport;
    this.#signingKey = signingKey;
  }

  /** Wires the token manager (which itself uses this pipeline for the exchange). */
  setTokenManager(tokens: TokenManager): void {
    this.#tokens = tokens;
  }

  /** Installs an optional client-side rate limiter. */
  setLimiter(limiter: RequestLimiter | undefined): void {
    this.#limiter = limiter;
  }

  /** Service-clock milliseconds: the local clock corrected by the measured offset. */
  now(): number {
    return Date.now() + this.#clockOffsetMs;
  }

  /** The clock offset currently applied to signatures (ms). */
  get clockOffsetMs(): number {
    return this.#clockOffsetMs;
  }

  call<T>(endpoint: EndpointDescriptor<T>, args: CallArgs = {}): ApiPromise<T> {
    return new ApiPromiseImpl(this.#run(endpoint, args));
  }

  list<T>(endpoint: EndpointDescriptor<Page<T>>, args: ListArgs<T> = {}): PagePromise<T> {
    const start = args.query?.cursor;
    return new PageIterator<T>((cursor) => this.#run(endpoint, { ...args, query: { ...args.query, cursor } }).then((r) => r.data), {
      start: typeof start === 'string' ? start : undefined,
      order: args.order,
      identity: args.identity,
    });
  }

  /**
   * Performs the token exchange with header credentials through the same attempt loop.
   * `signal` aborts it (the token manager does when every caller waiting for it has aborted).
   */
  exchangeToken<T>(endpoint: EndpointDescriptor<T>, clientId: string, apiKey: string, signal?: AbortSignal): Promise<WithResponse<T>> {
    return this.#run(endpoint, signal === undefined ? {} : { options: { signal } }, { kind: 'credentials', clientId, apiKey });
  }

  async #run<T>(endpoint: EndpointDescriptor<T>, args: CallArgs, auth?: Auth): Promise<WithResponse<T>> {
    const prepared = this.#prepare(endpoint, args, auth !== undefined);
    const tokens = this.#tokens;
    if (auth === undefined && tokens === undefined) throw new MerchantSdkError('Pipeline has no token manager.');
    return this.#attempts(endpoint, prepared, args.options, auth ?? { kind: 'token', tokens: tokens! });
  }

  #prepare(endpoint: EndpointDescriptor<unknown>, args: CallArgs, isTokenExchange: boolean): PreparedCall {
    const options = args.options;
    let member: string | undefined;
    if (endpoint.memberScoped || args.member !== undefined) member = checkMemberId(args.member);
    const path = this.#settings.basePath + fillPath(endpoint.path, args.pathParams) + buildQuery(args.query);
    // Serialised once: these exact bytes are hashed, signed and sent on every attempt.
    const body = args.body === undefined ? undefined : Buffer.from(JSON.stringify(args.body), 'utf8');
    const signed = isSignedMethod(endpoint.method);
    const idempotencyKey =
      endpoint.idempotent || options?.idempotencyKey !== undefined ? resolveIdempotencyKey(options?.idempotencyKey) : undefined;
    if (options?.headers) {
      for (const name of Object.keys(options.headers)) {
        if (PROTECTED_HEADERS.has(name.toLowerCase()))
          throw new InvalidArgumentError('headers', `${name} is set by the SDK and cannot be overridden.`);
        if (HEADER_UNSAFE.test(options.headers[name]!))
          throw new InvalidArgumentError('headers', `${name} must not contain control characters.`);
      }
    }
    return {
      method: endpoint.method,
      path,
      body,
      bodyHash: signed ? sha256Hex(body) : '',
      signed,
      idempotencyKey,
      member,
      bucket: isTokenExchange ? 'token' : bucketOf(endpoint.method, path.slice(this.#settings.basePath.length)),
      extraHeaders: options?.headers,
    };
  }

  async #attempts<T>(
    endpoint: EndpointDescriptor<T>,
    call: PreparedCall,
    options: CallOptions | undefined,
    auth: Auth,
  ): Promise<WithResponse<T>> {
    const s = this.#settings;
    const signal = options?.signal;
    const maxRetries = options?.maxRetries ?? s.maxRetries;
    const timeoutMs = options?.timeoutMs ?? s.timeoutMs;
    let retries = 0;
    let unknownRetried = false;
    let tokenRenewed = false;
    let skewCorrected = false;

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new AbortError(call.idempotencyKey, { cause: signal.reason });

      const headers = this.#headers(call);
      let token: string | undefined;
      if (auth.kind === 'token') {
        try {
          const t = auth.tokens.get(signal);
          token = typeof t === 'string' ? t : await t;
        } catch (err) {
          if (signal?.aborted) throw new AbortError(call.idempotencyKey, { cause: err });
          throw err;
        }
        headers['x-auth-token'] = `Bearer ${token}`;
      } else {
        headers['x-client-id'] = auth.clientId;
        headers['x-api-key'] = auth.apiKey;
      }
      // After the token, right before signing and sending: a limiter slot taken before a slow
      // token exchange would start its window too early, and the service (which counts
      // arrivals) could still see the previous window's requests when the next ones arrive.
      const slotTaken = await this.#waitForBucket(call, signal);
      if (call.signed) Object.assign(headers, signAttempt(this.#signingKey, call.method, call.path, call.bodyHash, this.now()));

      const started = performance.now();
      let failure: AttemptFailure;
      let error: Error;
      let response: TransportResponse | undefined;
      try {
        response = await this.#send(call, headers, timeoutMs, signal, attempt);
      } catch (err) {
        if (err instanceof AbortError) throw err;
        error = err as Error;
        failure =
          err instanceof TimeoutError
            ? { kind: 'timeout' }
            : err instanceof MalformedResponseError
              ? { kind: 'malformed', status: err.status }
              : { kind: 'connection' };
      } finally {
        if (slotTaken) this.#settleSlot(call.bucket as RateLimitBucket);
      }

      if (response !== undefined) {
        const durationMs = Math.round(performance.now() - started);
        const requestId = response.headers['x-request-id'];
        if (response.status >= 200 && response.status < 300) {
          log(s.logger, 'debug', 'request succeeded', {
            method: call.method,
            path: call.path,
            status: response.status,
            attempt,
            durationMs,
            requestId,
          });
          return this.#result(endpoint, call, response, attempt);
        }
        const apiError = errorFromResponse(response, call.idempotencyKey, attempt);
        error = apiError;
        if (apiError instanceof ApiError) {
          log(s.logger, 'info', 'request failed', {
            method: call.method,
            path: call.path,
            status: response.status,
            attempt,
            durationMs,
            requestId: apiError.requestId,
            code: printable(apiError.code),
          });
          // Repairs the SDK may make once per call, outside the retry budget (spec: Authentication).
          if (apiError.code === 'invalid_token' && auth.kind === 'token' && !tokenRenewed && token !== undefined) {
            tokenRenewed = true;
            await auth.tokens.invalidate(token);
            continue;
          }
          if (apiError.code === 'timestamp_out_of_range' && !skewCorrected && this.#learnClockOffset(response)) {
            skewCorrected = true;
            continue;
          }
          const retryAfter =
            parseRetryAfter(response.headers['retry-after'], Date.now()) ??
            numberOrUndefined((apiError.extras as { retry_after?: unknown }).retry_after);
          failure = { kind: 'api', code: apiError.code, status: response.status, retryAfterSeconds: retryAfter };
        } else {
          log(s.logger, 'info', 'request failed with a malformed body', {
            method: call.method,
            path: call.path,
            status: response.status,
            attempt,
            durationMs,
            requestId,
          });
          failure = { kind: 'malformed', status: response.status };
        }
      }

      const decision = decideRetry(failure!, {
        retriesSoFar: retries,
        maxRetries,
        unknownRetried,
        mode: endpoint.retry ?? 'spec',
        noRetryCodes: endpoint.noRetryCodes,
        backoff: s.backoff,
      });
      if (!decision.retry) {
        // A 429 says the bucket is full for every call, so it pauses the others even when this
        // call gives up (retries spent, or a Retry-After beyond maxRetryAfterMs: capped there).
        const f = failure!;
        if (f.kind === 'api' && (f.code === 'rate_limited' || f.status === 429) && f.retryAfterSeconds !== undefined) {
          this.#pauseBucket(call.bucket, Math.min(f.retryAfterSeconds * 1000, s.backoff.maxRetryAfterMs));
        }
        throw error!;
      }
      retries++;
      if (decision.unknownCode) unknownRetried = true;
      if (decision.rateLimited) this.#pauseBucket(call.bucket, decision.delayMs);
      log(s.logger, 'warn', 'retrying', {
        method: call.method,
        path: call.path,
        attempt,
        delayMs: decision.delayMs,
        reason: printable(failureLabel(failure!)),
      });
      try {
        await sleep(decision.rateLimited ? 0 : decision.delayMs, signal);
      } catch (err) {
        throw new AbortError(call.idempotencyKey, { cause: err });
      }
    }
  }

  #headers(call: PreparedCall): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#settings.userAgent };
    if (call.extraHeaders) Object.assign(headers, call.extraHeaders);
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.member !== undefined) headers['x-on-behalf-of'] = call.member;
    if (call.idempotencyKey !== undefined) headers['x-idempotency-key'] = call.idempotencyKey;
    return headers;
  }

  /** One attempt with its own timeout (kept by the transport), which also covers reading the body. */
  async #send(
    call: PreparedCall,
    headers: Record<string, string>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    attempt: number,
  ): Promise<TransportResponse> {
    try {
      return await this.#transport.send({
        method: call.method,
        origin: this.#settings.origin,
        path: call.path,
        headers,
        body: call.body,
        signal,
        timeoutMs,
        maxResponseBytes: this.#settings.maxResponseBytes,
      });
    } catch (err) {
      if (signal?.aborted) throw new AbortError(call.idempotencyKey, { cause: err });
      if (err instanceof AttemptTimeoutError)
        throw new TimeoutError(
          `No complete response within ${timeoutMs} ms (${call.method} ${stripQuery(call.path)}); the call may have executed: retry with the same idempotency key.`,
          call.idempotencyKey,
          attempt,
          { cause: err },
        );
      if (err instanceof ResponseTooLargeError) {
        throw new MalformedResponseError(`Response body exceeds ${err.limit} bytes (${call.method} ${stripQuery(call.path)}).`, {
          status: err.status,
          requestId: err.headers['x-request-id'],
          snippet: '',
          idempotencyKey: call.idempotencyKey,
        });
      }
      const reason = err instanceof Error ? err.message : String(err);
      throw new ConnectionError(
        `Connection to the service failed (${call.method} ${stripQuery(call.path)}): ${reason}`,
        call.idempotencyKey,
        attempt,
        { cause: err },
      );
    }
  }

  #result<T>(endpoint: EndpointDescriptor<T>, call: PreparedCall, response: TransportResponse, attempts: number): WithResponse<T> {
    const requestId = response.headers['x-request-id'];
    let json: unknown = null;
    if (response.body !== '') {
      json = tryParseJson(response.body);
      if (json === undefined) {
        throw new MalformedResponseError(
          `HTTP ${response.status} with a body that is not JSON${requestId ? ` [request_id ${requestId}]` : ''}.`,
          {
            status: response.status,
            requestId,
            snippet: response.body.slice(0, 200),
            idempotencyKey: call.idempotencyKey,
          },
        );
      }
    }
    let data = json as T;
    if (this.#settings.validateResponses) {
      const parsed = (endpoint.response as z.ZodType<T>).safeParse(json);
      if (!parsed.success) {
        throw new ResponseValidationError(
          `The response of ${endpoint.id} does not match the documented shape${requestId ? ` [request_id ${requestId}]` : ''}: ${parsed.error.issues
            .slice(0, 3)
            .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
            .join('; ')}`,
          { requestId, status: response.status, issues: parsed.error.issues.map((i) => ({ path: i.path, message: i.message })) },
        );
      }
      data = parsed.data;
    }
    return {
      data,
      response: {
        requestId,
        status: response.status,
        headers: response.headers,
        idempotencyKey: call.idempotencyKey,
        replayed: response.headers['x-idempotent-replay'] === 'true',
        attempts,
      },
    };
  }

  #learnClockOffset(response: TransportResponse): boolean {
    const serverMs = Date.parse(response.headers.date ?? '');
    if (Number.isNaN(serverMs)) return false;
    this.#clockOffsetMs = serverMs - Date.now();
    log(this.#settings.logger, 'warn', 'corrected the signing clock from the service Date header', { offsetMs: this.#clockOffsetMs });
    return true;
  }

  #pauseBucket(bucket: string, ms: number): void {
    const until = Date.now() + ms;
    if ((this.#pausedUntil.get(bucket) ?? 0) < until) this.#pausedUntil.set(bucket, until);
    if (bucket !== 'token') this.#limiter?.pause?.(bucket as RateLimitBucket, ms);
  }

  /** Tells the limiter that an attempt it admitted has ended; a faulty limiter cannot fail the call. */
  #settleSlot(bucket: RateLimitBucket): void {
    try {
      this.#limiter?.settle?.(bucket);
    } catch {
      // The limiter's bookkeeping must never fail a payment.
    }
  }

  /**
   * A 429 pauses every call to its bucket, not only the one that got it. Then the limiter, if
   * any: resolves true when it took a slot, which the caller settles when the attempt ends.
   */
  async #waitForBucket(call: PreparedCall, signal: AbortSignal | undefined): Promise<boolean> {
    try {
      // Re-read after each sleep: a later 429 may have extended the pause, and a timer may fire
      // a millisecond early; Retry-After is honoured to the millisecond.
      for (let until = this.#pausedUntil.get(call.bucket); until !== undefined; until = this.#pausedUntil.get(call.bucket)) {
        const wait = until - Date.now();
        if (wait <= 0) {
          this.#pausedUntil.delete(call.bucket);
          break;
        }
        await sleep(wait, signal);
      }
      if (this.#limiter === undefined || call.bucket === 'token') return false;
      await this.#limiter.acquire(call.bucket, signal);
      return true;
    } catch (err) {
      if (signal?.aborted) throw new AbortError(call.idempotencyKey, { cause: err });
      // A limiter's own failure is not an abort: the call fails unsent with that error.
      throw err;
    }
  }
}

function numberOrUndefined(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined;
}

function stripQuery(path: string): string {
  const q = path.indexOf('?');
  return q === -1 ? path : path.slice(0, q);
}

function failureLabel(f: AttemptFailure): string {
  return f.kind === 'api' ? f.code : f.kind === 'malformed' ? `malformed_${f.status}` : f.kind;
}

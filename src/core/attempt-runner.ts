import type { RateLimitBucket, RetryMode } from '../spec/endpoint.js';
import type { BucketGate } from './bucket-gate.js';
import type { PreparedCall } from './call.js';
import { AbortError, ApiError, ConnectionError, MalformedResponseError, TimeoutError } from './errors.js';
import { log, printable, type Logger } from './logger.js';
import { errorFromResponse } from './response.js';
import { decideRetry, parseRetryAfter, type AttemptFailure, type BackoffSettings } from './retry-policy.js';
import type { ServiceClock } from './service-clock.js';
import { signAttempt } from './signing.js';
import { sleep } from './sleep.js';
import type { TokenManager } from './token-manager.js';
import { AttemptTimeoutError, ResponseTooLargeError, type Transport, type TransportResponse } from './transport.js';

/** Client settings the attempt loop runs on. */
export interface AttemptSettings {
  readonly origin: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  readonly userAgent: string;
  readonly backoff: BackoffSettings;
  readonly logger: Logger | undefined;
}

/** How a call authenticates: a bearer token, or the credentials of the token exchange itself. */
export type Auth =
  | { readonly kind: 'token'; readonly tokens: TokenManager }
  | { readonly kind: 'credentials'; readonly clientId: string; readonly apiKey: string };

/** The endpoint's retry rules (data of its descriptor). */
export interface RetryRules {
  readonly retry?: RetryMode | undefined;
  readonly noRetryCodes?: readonly string[] | undefined;
}

/** A 2xx response and the number of attempts it took. */
export interface Success {
  readonly response: TransportResponse;
  readonly attempts: number;
}

/** What the loop keeps across the attempts of one call. */
interface CallProgress {
  readonly call: PreparedCall;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  attempt: number;
  retries: number;
  unknownRetried: boolean;
  tokenRenewed: boolean;
  skewCorrected: boolean;
}

/** One failed attempt: the error to raise if it is final, and what the retry policy sees. */
interface Failed {
  readonly ok: false;
  readonly error: Error;
  readonly failure: AttemptFailure;
  /** Present when a response arrived. */
  readonly response?: TransportResponse;
  /** The token the attempt carried (for `invalid_token`). */
  readonly token?: string | undefined;
}

/** What one attempt came to. */
type AttemptOutcome = { readonly ok: true; readonly response: TransportResponse } | Failed;

/**
 * The attempt loop every call runs, the token exchange included: per attempt take a token, wait
 * for the bucket, sign with a fresh nonce and timestamp, send, classify by `code`; then repair
 * (token renewal, clock skew: once each), retry what the spec allows with the same key, or raise.
 */
export class AttemptRunner {
  readonly #settings: AttemptSettings;
  readonly #transport: Transport;
  readonly #signingKey: string;
  readonly #clock: ServiceClock;
  readonly #gate: BucketGate;

  constructor(settings: AttemptSettings, transport: Transport, signingKey: string, clock: ServiceClock, gate: BucketGate) {
    this.#settings = settings;
    this.#transport = transport;
    this.#signingKey = signingKey;
    this.#clock = clock;
    this.#gate = gate;
  }

  /** Runs the call's attempts until a 2xx response, or raises the final failure. */
  async run(call: PreparedCall, auth: Auth, rules: RetryRules): Promise<Success> {
    const options = call.options;
    const progress: CallProgress = {
      call,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs ?? this.#settings.timeoutMs,
      maxRetries: options?.maxRetries ?? this.#settings.maxRetries,
      attempt: 0,
      retries: 0,
      unknownRetried: false,
      tokenRenewed: false,
      skewCorrected: false,
    };
    for (;;) {
      progress.attempt++;
      const outcome = await this.#attempt(progress, auth);
      if (outcome.ok) return { response: outcome.response, attempts: progress.attempt };
      if (await this.#repair(outcome, progress, auth)) continue;
      await this.#backOffOrRaise(outcome, progress, rules);
    }
  }

  /** One attempt: token, admission, signature, send, classification. */
  async #attempt(p: CallProgress, auth: Auth): Promise<AttemptOutcome> {
    const { call, signal } = p;
    if (signal?.aborted) throw new AbortError(call.idempotencyKey, { cause: signal.reason });
    const headers = this.#headers(call);
    const token = await this.#authenticate(headers, auth, p);
    // After the token, right before signing and sending: a limiter slot taken before a slow
    // token exchange would start its window too early, and the service (which counts arrivals)
    // could still see the previous window's requests when the next ones arrive.
    const slotTaken = await this.#admit(p);
    if (call.signed) Object.assign(headers, signAttempt(this.#signingKey, call.method, call.path, call.bodyHash, this.#clock.now()));
    const started = performance.now();
    let response: TransportResponse;
    try {
      response = await this.#send(headers, p);
    } catch (err) {
      if (err instanceof AbortError) throw err;
      return { ok: false, error: err as Error, failure: transportFailure(err) };
    } finally {
      if (slotTaken) this.#gate.settle(call.bucket as RateLimitBucket);
    }
    return this.#classify(response, p, token, Math.round(performance.now() - started));
  }

  #headers(call: PreparedCall): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#settings.userAgent };
    if (call.extraHeaders) Object.assign(headers, call.extraHeaders);
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.member !== undefined) headers['x-on-behalf-of'] = call.member;
    if (call.idempotencyKey !== undefined) headers['x-idempotency-key'] = call.idempotencyKey;
    return headers;
  }

  /** Puts the credentials of this attempt in the headers; returns the token used, if any. */
  async #authenticate(headers: Record<string, string>, auth: Auth, p: CallProgress): Promise<string | undefined> {
    if (auth.kind === 'credentials') {
      headers['x-client-id'] = auth.clientId;
      headers['x-api-key'] = auth.apiKey;
      return undefined;
    }
    const pending = auth.tokens.get(p.signal);
    const token = typeof pending === 'string' ? pending : await this.#abortable(pending, p);
    headers['x-auth-token'] = `Bearer ${token}`;
    return token;
  }

  #admit(p: CallProgress): Promise<boolean> {
    return this.#abortable(this.#gate.admit(p.call.bucket, p.signal), p);
  }

  /** An abort while waiting is the caller's abort; any other rejection passes through unchanged. */
  async #abortable<T>(promise: Promise<T>, p: CallProgress): Promise<T> {
    try {
      return await promise;
    } catch (err) {
      if (p.signal?.aborted) throw new AbortError(p.call.idempotencyKey, { cause: err });
      throw err;
    }
  }

  /** One attempt on the wire with its own timeout (kept by the transport), body read included. */
  async #send(headers: Record<string, string>, p: CallProgress): Promise<TransportResponse> {
    const { call, signal } = p;
    try {
      return await this.#transport.send({
        method: call.method,
        origin: this.#settings.origin,
        path: call.path,
        headers,
        body: call.body,
        signal,
        timeoutMs: p.timeoutMs,
        maxResponseBytes: this.#settings.maxResponseBytes,
      });
    } catch (err) {
      throw this.#transportError(err, p);
    }
  }

  #transportError(err: unknown, p: CallProgress): Error {
    const { call, signal } = p;
    const what = `${call.method} ${stripQuery(call.path)}`;
    if (signal?.aborted) return new AbortError(call.idempotencyKey, { cause: err });
    if (err instanceof AttemptTimeoutError) {
      return new TimeoutError(
        `No complete response within ${p.timeoutMs} ms (${what}); the call may have executed: retry with the same idempotency key.`,
        call.idempotencyKey,
        p.attempt,
        { cause: err },
      );
    }
    if (err instanceof ResponseTooLargeError) {
      return new MalformedResponseError(`Response body exceeds ${err.limit} bytes (${what}).`, {
        status: err.status,
        requestId: err.headers['x-request-id'],
        snippet: '',
        idempotencyKey: call.idempotencyKey,
      });
    }
    const reason = err instanceof Error ? err.message : String(err);
    return new ConnectionError(`Connection to the service failed (${what}): ${reason}`, call.idempotencyKey, p.attempt, { cause: err });
  }

  /** A response: success, the service's error by `code`, or a malformed body. */
  #classify(response: TransportResponse, p: CallProgress, token: string | undefined, durationMs: number): AttemptOutcome {
    const { call, attempt } = p;
    const base = { method: call.method, path: call.path, status: response.status, attempt, durationMs };
    if (response.status >= 200 && response.status < 300) {
      log(this.#settings.logger, 'debug', 'request succeeded', { ...base, requestId: response.headers['x-request-id'] });
      return { ok: true, response };
    }
    const error = errorFromResponse(response, call.idempotencyKey, attempt);
    if (!(error instanceof ApiError)) {
      log(this.#settings.logger, 'info', 'request failed with a malformed body', { ...base, requestId: response.headers['x-request-id'] });
      return { ok: false, error, failure: { kind: 'malformed', status: response.status }, response, token };
    }
    log(this.#settings.logger, 'info', 'request failed', { ...base, requestId: error.requestId, code: printable(error.code) });
    const retryAfterSeconds =
      parseRetryAfter(response.headers['retry-after'], Date.now()) ??
      numberOrUndefined((error.extras as { retry_after?: unknown }).retry_after);
    return { ok: false, error, failure: { kind: 'api', code: error.code, status: response.status, retryAfterSeconds }, response, token };
  }

  /** Repairs the SDK may make once per call, outside the retry budget (spec: Authentication). */
  async #repair(failed: Failed, p: CallProgress, auth: Auth): Promise<boolean> {
    if (failed.failure.kind !== 'api') return false;
    const code = failed.failure.code;
    if (code === 'invalid_token' && auth.kind === 'token' && !p.tokenRenewed && failed.token !== undefined) {
      p.tokenRenewed = true;
      await auth.tokens.invalidate(failed.token);
      return true;
    }
    if (code === 'timestamp_out_of_range' && !p.skewCorrected && this.#clock.learnFrom(failed.response?.headers.date)) {
      p.skewCorrected = true;
      return true;
    }
    return false;
  }

  /** Waits before the next attempt when the spec allows a retry; otherwise raises the failure. */
  async #backOffOrRaise(failed: Failed, p: CallProgress, rules: RetryRules): Promise<void> {
    const { failure } = failed;
    const s = this.#settings;
    const decision = decideRetry(failure, {
      retriesSoFar: p.retries,
      maxRetries: p.maxRetries,
      unknownRetried: p.unknownRetried,
      mode: rules.retry ?? 'spec',
      noRetryCodes: rules.noRetryCodes,
      backoff: s.backoff,
    });
    if (!decision.retry) {
      // A 429 says the bucket is full for every call, so it pauses the others even when this
      // call gives up (retries spent, or a Retry-After beyond maxRetryAfterMs: capped there).
      if (isRateLimited(failure) && failure.retryAfterSeconds !== undefined) {
        this.#gate.pause(p.call.bucket, Math.min(failure.retryAfterSeconds * 1000, s.backoff.maxRetryAfterMs));
      }
      throw failed.error;
    }
    p.retries++;
    if (decision.unknownCode) p.unknownRetried = true;
    // A rate-limited retry waits at admission, with every other call of its bucket.
    if (decision.rateLimited) this.#gate.pause(p.call.bucket, decision.delayMs);
    log(s.logger, 'warn', 'retrying', {
      method: p.call.method,
      path: p.call.path,
      attempt: p.attempt,
      delayMs: decision.delayMs,
      reason: printable(failureLabel(failure)),
    });
    try {
      await sleep(decision.rateLimited ? 0 : decision.delayMs, p.signal);
    } catch (err) {
      throw new AbortError(p.call.idempotencyKey, { cause: err });
    }
  }
}

function transportFailure(err: unknown): AttemptFailure {
  if (err instanceof TimeoutError) return { kind: 'timeout' };
  if (err instanceof MalformedResponseError) return { kind: 'malformed', status: err.status };
  return { kind: 'connection' };
}

function isRateLimited(f: AttemptFailure): f is Extract<AttemptFailure, { kind: 'api' }> {
  return f.kind === 'api' && (f.code === 'rate_limited' || f.status === 429);
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

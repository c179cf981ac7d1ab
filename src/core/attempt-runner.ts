import type { RateLimitBucket } from '../spec/endpoint.js';
import type { BucketGate } from './bucket-gate.js';
import type { PreparedCall } from './call.js';
import {
  AbortError,
  AcceptedButUnreadableError,
  ApiError,
  CallInterruptedError,
  ConnectionError,
  MalformedResponseError,
  MerchantSdkError,
  RedirectRefusedError,
  TimeoutError,
  withCallState,
  type CallSent,
  type CallState,
} from './errors.js';
import { log, printable, type LogFields, type Logger } from './logger.js';
import type { Redactor } from './redactor.js';
import { errorFromResponse } from './response.js';
import { decideRetry, parseRetryAfter, retryClassFor, type AttemptFailure, type BackoffSettings, type RetryRules } from './retry-policy.js';
import type { ServiceClock } from './service-clock.js';
import { bodySha256, signAttempt, type SignatureHeaders, type Signer } from './signing.js';
import { sleep } from './sleep.js';
import type { TokenManager } from './token-manager.js';
import {
  AttemptNotSentError,
  AttemptTimeoutError,
  RedirectError,
  ResponseTooLargeError,
  type Transport,
  type TransportResponse,
} from './transport.js';

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

/** What reading a 2xx response may use: the call's state, and the redaction of server text. */
export interface ReadContext {
  readonly state: CallState;
  /** Masks every secret the client holds or this call sent. */
  readonly redact: (text: string) => string;
}

/** Turns the 2xx response into the call's result (parse, validate); throws what it cannot read. */
export type ResultReader<R> = (response: TransportResponse, context: ReadContext) => R;

/** What the loop keeps across the attempts of one call: the call's state, and its budget. */
interface CallProgress {
  readonly call: PreparedCall;
  readonly rules: RetryRules;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  attempt: number;
  /** Attempts handed to the transport (whether or not they left the client). */
  wireAttempts: number;
  retries: number;
  unknownRetried: boolean;
  tokenRenewed: boolean;
  skewCorrected: boolean;
  sent: CallSent;
  status: number | undefined;
  requestId: string | undefined;
  /** Hex sha256 of the body, computed at the first signed attempt and reused by every retry. */
  bodyHash: string | Promise<string> | undefined;
  /** Secrets of this call to mask in server text: its signatures and secret body fields. */
  readonly secrets: string[];
  /** Errors this call's own steps raised (others are copied per call at the boundary). */
  readonly own: WeakSet<Error>;
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

const SENT_ORDER: Readonly<Record<CallSent, number>> = { no: 0, maybe: 1, yes: 2 };

/**
 * The attempt loop every call runs, the token exchange included: per attempt take a token, wait
 * for the bucket, sign with a fresh nonce and timestamp, send, classify by `code`; then repair
 * (token renewal, clock skew: once each), retry what the spec allows with the same key, or raise.
 *
 * The call has one state (key, whether anything may have reached the service, last status and
 * request id) that every outcome carries, whatever step failed last: an error raised by another
 * step (a token renewal, a limiter, a store) is copied per call with this call's state.
 */
export class AttemptRunner {
  readonly #settings: AttemptSettings;
  readonly #transport: Transport;
  readonly #signer: Signer;
  readonly #clock: ServiceClock;
  readonly #gate: BucketGate;
  readonly #redactor: Redactor;

  constructor(
    settings: AttemptSettings,
    transport: Transport,
    signing: { readonly signer: Signer; readonly clock: ServiceClock },
    gate: BucketGate,
    redactor: Redactor,
  ) {
    this.#settings = settings;
    this.#transport = transport;
    this.#signer = signing.signer;
    this.#clock = signing.clock;
    this.#gate = gate;
    this.#redactor = redactor;
  }

  /** Runs the call's attempts until a 2xx response that `read` accepts, or raises the final failure. */
  async run<R>(call: PreparedCall, auth: Auth, rules: RetryRules, read: ResultReader<R>): Promise<R> {
    const p = this.#progress(call, rules);
    try {
      for (;;) {
        p.attempt++;
        const outcome = await this.#attempt(p, auth);
        if (outcome.ok) return this.#read(outcome.response, p, read);
        if (await this.#repair(outcome, p, auth)) continue;
        await this.#backOffOrRaise(outcome, p);
      }
    } catch (err) {
      throw this.#finalize(err, p);
    }
  }

  #progress(call: PreparedCall, rules: RetryRules): CallProgress {
    const options = call.options;
    return {
      call,
      rules,
      signal: options?.signal,
      timeoutMs: options?.timeoutMs ?? this.#settings.timeoutMs,
      maxRetries: options?.maxRetries ?? this.#settings.maxRetries,
      attempt: 0,
      wireAttempts: 0,
      retries: 0,
      unknownRetried: false,
      tokenRenewed: false,
      skewCorrected: false,
      sent: 'no',
      status: undefined,
      requestId: undefined,
      bodyHash: undefined,
      secrets: [...call.secrets],
      own: new WeakSet(),
    };
  }

  /** One attempt: token, admission, signature, send, classification. */
  async #attempt(p: CallProgress, auth: Auth): Promise<AttemptOutcome> {
    const { call, signal } = p;
    if (signal?.aborted) throw this.#own(p, new AbortError(call.idempotencyKey, { cause: signal.reason }));
    const headers = this.#headers(call);
    const token = await this.#authenticate(headers, auth, p);
    // After the token, right before signing and sending: a limiter slot taken before a slow
    // token exchange would start its window too early, and the service (which counts arrivals)
    // could still see the previous window's requests when the next ones arrive.
    const slotTaken = await this.#abortable(this.#gate.admit(call.bucket, signal), p);
    if (call.signed) {
      const signing = this.#sign(p);
      // Only an asynchronous signer (Web Crypto) costs an await; node:crypto's answer is used as is.
      const signature = signing instanceof Promise ? await signing : signing;
      p.secrets.push(signature['x-signature']);
      Object.assign(headers, signature);
    }
    const started = performance.now();
    let sent: AttemptOutcome;
    try {
      sent = await this.#send(headers, p);
    } finally {
      if (slotTaken) this.#gate.settle(call.bucket as RateLimitBucket);
    }
    if (!sent.ok) return sent;
    this.#answered(p, sent.response.status, sent.response.headers['x-request-id']);
    return this.#classify(sent.response, p, token, Math.round(performance.now() - started));
  }

  /** This attempt's signature: a fresh nonce and timestamp over the call's one body hash. */
  #sign(p: CallProgress): SignatureHeaders | Promise<SignatureHeaders> {
    const { call } = p;
    const hash = (p.bodyHash ??= bodySha256(this.#signer, call.body));
    if (typeof hash === 'string') return signAttempt(this.#signer, call.method, call.path, hash, this.#clock.now());
    return hash.then((h) => signAttempt(this.#signer, call.method, call.path, h, this.#clock.now()));
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
    this.#redactor.rememberToken(token);
    headers['x-auth-token'] = `Bearer ${token}`;
    return token;
  }

  /** An abort while waiting is the caller's abort; any other rejection passes through unchanged. */
  async #abortable<T>(promise: Promise<T>, p: CallProgress): Promise<T> {
    try {
      return await promise;
    } catch (err) {
      if (p.signal?.aborted) throw this.#own(p, new AbortError(p.call.idempotencyKey, { cause: err }));
      throw err;
    }
  }

  /**
   * One attempt on the wire with its own deadline (kept by the transport), body read included.
   * A failure says whether the request may have left the client; an abort is raised.
   */
  async #send(headers: Record<string, string>, p: CallProgress): Promise<AttemptOutcome> {
    const { call, signal } = p;
    let onWire = false;
    p.wireAttempts++;
    try {
      const response = await this.#transport.send({
        method: call.method,
        origin: this.#settings.origin,
        path: call.path,
        headers,
        body: call.body,
        signal,
        timeoutMs: p.timeoutMs,
        maxResponseBytes: this.#settings.maxResponseBytes,
        onSent: () => {
          onWire = true;
        },
      });
      return { ok: true, response };
    } catch (err) {
      const sent = onWire && !(err instanceof AttemptNotSentError);
      if (sent) this.#raise(p, 'maybe');
      const error = this.#own(p, this.#transportError(err, p));
      if (error instanceof AbortError) throw error;
      return { ok: false, error, failure: transportFailure(error, sent) };
    }
  }

  #transportError(err: unknown, p: CallProgress): Error {
    const { call, signal } = p;
    const what = `${call.method} ${stripQuery(call.path)}`;
    const cause = this.#sanitize(err, p);
    if (signal?.aborted) return new AbortError(call.idempotencyKey, { cause: signal.reason });
    if (err instanceof AttemptTimeoutError) {
      return new TimeoutError(`No complete response within ${p.timeoutMs} ms (${what}).`, call.idempotencyKey, p.attempt, { cause });
    }
    if (err instanceof RedirectError) {
      if (err.status !== undefined) this.#answered(p, err.status, undefined);
      return new RedirectRefusedError(err.status, err.locationOrigin, call.idempotencyKey);
    }
    if (err instanceof ResponseTooLargeError) return this.#tooLarge(err, p, what);
    const reason = cause instanceof Error ? cause.message : String(cause);
    return new ConnectionError(`Connection to the service failed (${what}): ${printable(reason)}`, call.idempotencyKey, p.attempt, {
      cause,
    });
  }

  #tooLarge(err: ResponseTooLargeError, p: CallProgress, what: string): Error {
    this.#answered(p, err.status, err.headers['x-request-id']);
    const init = { status: err.status, requestId: p.requestId, idempotencyKey: p.call.idempotencyKey };
    const message = `Response body exceeds ${err.limit} bytes (${what}).`;
    if (err.status >= 200 && err.status < 300)
      return new AcceptedButUnreadableError(`HTTP ${err.status}: the call was accepted. ${message}`, { ...init, body: '' });
    return new MalformedResponseError(message, { ...init, snippet: '' });
  }

  /** A copy of a transport's error with every secret masked (its message may quote a header value). */
  #sanitize(err: unknown, p: CallProgress): unknown {
    if (!(err instanceof Error)) return typeof err === 'string' ? this.#redactor.redact(err, p.secrets) : err;
    const copy = new Error(this.#redactor.redact(err.message, p.secrets));
    copy.name = err.name;
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') Object.defineProperty(copy, 'code', { value: code, enumerable: true });
    copy.stack = this.#redactor.redact(err.stack ?? '', p.secrets);
    return copy;
  }

  #redact(text: string | undefined, p: CallProgress): string | undefined {
    return text === undefined ? undefined : this.#redactor.redact(text, p.secrets);
  }

  /** The service answered an attempt: it reached the service. */
  #answered(p: CallProgress, status: number, requestId: string | undefined): void {
    this.#raise(p, 'yes');
    p.status = status;
    p.requestId = this.#redact(requestId, p);
  }

  #raise(p: CallProgress, sent: CallSent): void {
    if (SENT_ORDER[sent] > SENT_ORDER[p.sent]) p.sent = sent;
  }

  /** A response: success, the service's error by `code`, or a malformed body. */
  #classify(response: TransportResponse, p: CallProgress, token: string | undefined, durationMs: number): AttemptOutcome {
    const { call, attempt } = p;
    const fields: LogFields = {
      method: call.method,
      path: call.path,
      status: response.status,
      attempt,
      durationMs,
      requestId: p.requestId,
    };
    if (response.status >= 200 && response.status < 300) {
      this.#log('debug', 'request succeeded', fields);
      return { ok: true, response };
    }
    const error = errorFromResponse(response, {
      idempotencyKey: call.idempotencyKey,
      attempts: attempt,
      redact: (text) => this.#redactor.redact(text, p.secrets),
      redactValue: (value) => this.#redactor.redactValue(value, p.secrets),
      retryClass: (code, status) => retryClassFor(code, status, p.rules),
    });
    this.#own(p, error);
    if (!(error instanceof ApiError)) {
      this.#log('info', 'request failed with a malformed body', fields);
      return { ok: false, error, failure: { kind: 'malformed', status: response.status }, response, token };
    }
    this.#log('info', 'request failed', { ...fields, requestId: error.requestId, code: printable(error.code) });
    const retryAfterSeconds =
      parseRetryAfter(response.headers['retry-after'], Date.now()) ??
      numberOrUndefined((error.extras as { retry_after?: unknown }).retry_after);
    return { ok: false, error, failure: { kind: 'api', code: error.code, status: response.status, retryAfterSeconds }, response, token };
  }

  /** Reads the 2xx response; what it throws is this call's own error. */
  #read<R>(response: TransportResponse, p: CallProgress, read: ResultReader<R>): R {
    try {
      return read(response, { state: this.#snapshot(p), redact: (text) => this.#redactor.redact(text, p.secrets) });
    } catch (err) {
      if (err instanceof Error) this.#own(p, err);
      throw err;
    }
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
    if (code === 'timestamp_out_of_range' && !p.skewCorrected && this.#learnClock(failed, p)) {
      p.skewCorrected = true;
      return true;
    }
    return false;
  }

  #learnClock(failed: Failed, p: CallProgress): boolean {
    try {
      return this.#clock.learnFrom(failed.response?.headers.date);
    } catch (err) {
      throw err instanceof Error ? this.#own(p, err) : err;
    }
  }

  /** Waits before the next attempt when the spec allows a retry; otherwise raises the failure. */
  async #backOffOrRaise(failed: Failed, p: CallProgress): Promise<void> {
    const { failure } = failed;
    const s = this.#settings;
    const decision = decideRetry(failure, {
      retriesSoFar: p.retries,
      maxRetries: p.maxRetries,
      unknownRetried: p.unknownRetried,
      rules: p.rules,
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
    this.#log('warn', 'retrying', {
      method: p.call.method,
      path: p.call.path,
      attempt: p.attempt,
      delayMs: decision.delayMs,
      reason: printable(this.#redactor.redact(failureLabel(failure), p.secrets)),
    });
    try {
      await sleep(decision.rateLimited ? 0 : decision.delayMs, p.signal);
    } catch (err) {
      throw this.#own(p, new AbortError(p.call.idempotencyKey, { cause: err }));
    }
  }

  #own<E extends Error>(p: CallProgress, err: E): E {
    p.own.add(err);
    return err;
  }

  #snapshot(p: CallProgress): CallState {
    return Object.freeze({
      idempotencyKey: p.call.idempotencyKey,
      sent: p.sent,
      status: p.status,
      requestId: p.requestId,
      attempts: p.wireAttempts,
    });
  }

  /**
   * The error the caller gets: this call's own error with its state stamped, or, for an error
   * another step raised (a token renewal shared by many calls, a limiter, a store), a copy that
   * carries this call's state and says whether an earlier attempt may have executed.
   */
  #finalize(err: unknown, p: CallProgress): Error {
    const state = this.#snapshot(p);
    if (err instanceof MerchantSdkError && p.own.has(err)) return withCallState(err, state, ownNote(err, p.call, state));
    const sdkError =
      err instanceof MerchantSdkError
        ? err
        : new CallInterruptedError(
            `A step of the call failed: ${printable(this.#redactor.redact(err instanceof Error ? err.message : String(err), p.secrets))}`,
            { cause: this.#sanitize(err, p) },
          );
    return withCallState(sdkError, state, stepNote(p.call, state), true);
  }

  #log(level: 'debug' | 'info' | 'warn', message: string, fields: LogFields): void {
    log(this.#settings.logger, level, message, fields);
  }
}

/** What the caller of a write should know about an outcome the service may not have given. */
function ownNote(err: MerchantSdkError, call: PreparedCall, state: CallState): string | undefined {
  if (!movesState(call) || !(err instanceof ConnectionError || err instanceof AbortError)) return undefined;
  return sentAdvice(state);
}

/** Writes can execute; reads and the token exchange cannot move money. */
function movesState(call: PreparedCall): boolean {
  return call.signed && call.bucket !== 'token';
}

function sentAdvice(state: CallState): string {
  if (state.sent === 'no') return 'nothing reached the service: calling again is safe';
  return state.idempotencyKey === undefined
    ? 'the call may have executed and has no idempotency key: check its effect before calling again'
    : `the call may have executed: retry with idempotency key ${state.idempotencyKey}`;
}

function stepNote(call: PreparedCall, state: CallState): string | undefined {
  return movesState(call) ? `during ${call.method} ${stripQuery(call.path)}: ${sentAdvice(state)}` : undefined;
}

function transportFailure(err: Error, sent: boolean): AttemptFailure {
  if (err instanceof TimeoutError) return { kind: 'timeout', sent };
  if (err instanceof MalformedResponseError || err instanceof AcceptedButUnreadableError) return { kind: 'malformed', status: err.status };
  if (err instanceof RedirectRefusedError) return { kind: 'malformed', status: err.status ?? 300 };
  return { kind: 'connection', sent };
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

import type { RateLimitBucket } from '../spec/endpoint.js';
import type { BucketGate } from './bucket-gate.js';
import type { PreparedCall } from './call.js';
import {
  deadlineText,
  endingError,
  failureLabel,
  finalError,
  reached,
  retryClassOfFailure,
  stripQuery,
  transportError,
  transportFailure,
} from './call-errors.js';
import { answered, own, raiseSent, snapshot, type AttemptOutcome, type CallProgress, type Failed } from './call-progress.js';
import { remainingMs, waitsUntil } from './deadline.js';
import { AbortError, ApiError, CallInterruptedError, TimeoutError, type CallState } from './errors.js';
import { log, printable, type LogFields, type Logger, type LogLevel } from './logger.js';
import type { Redactor } from './redactor.js';
import { errorFromResponse } from './response.js';
import { decideRetry, parseRetryAfter, rateLimitOf, retryClassFor, type BackoffSettings, type RetryRules } from './retry-policy.js';
import type { ServiceClock } from './service-clock.js';
import { bodySha256, signAttempt, type SignatureHeaders, type Signer } from './signing.js';
import { sleep } from './sleep.js';
import type { Telemetry } from './telemetry.js';
import type { TokenManager } from './token-manager.js';
import { AttemptNotSentError, type Transport, type TransportResponse } from './transport.js';

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

/** What a call's deadline is made of: `timeoutMs × (maxRetries + 1)` from its start. */
export interface CallBudget {
  readonly timeoutMs: number;
  readonly maxRetries: number;
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

/**
 * The attempt loop every call runs, the token exchange included: per attempt take a token, wait
 * for the bucket, sign with a fresh nonce and timestamp, send, classify by `code`; then repair
 * (token renewal, clock skew: once each), retry what the spec allows with the same key, or raise.
 *
 * The call has one state (key, whether anything may have reached the service, last status and
 * request id) that every outcome carries, whatever step failed last (`call-errors.ts`), and one
 * trace: a span with the attempts, waits and repairs as events (`telemetry.ts`).
 */
export class AttemptRunner {
  readonly #settings: AttemptSettings;
  readonly #transport: Transport;
  readonly #signer: Signer;
  readonly #clock: ServiceClock;
  readonly #gate: BucketGate;
  readonly #redactor: Redactor;
  readonly #telemetry: Telemetry;

  constructor(
    settings: AttemptSettings,
    transport: Transport,
    signing: { readonly signer: Signer; readonly clock: ServiceClock },
    gate: BucketGate,
    observers: { readonly redactor: Redactor; readonly telemetry: Telemetry },
  ) {
    this.#settings = settings;
    this.#transport = transport;
    this.#signer = signing.signer;
    this.#clock = signing.clock;
    this.#gate = gate;
    this.#redactor = observers.redactor;
    this.#telemetry = observers.telemetry;
  }

  /** Runs the call's attempts until a 2xx response that `read` accepts, or raises the final failure. */
  async run<R>(call: PreparedCall, auth: Auth, rules: RetryRules, read: ResultReader<R>): Promise<R> {
    // Telemetry registered before this call but not loaded yet: wait, so that this call is traced.
    const ready = this.#telemetry.ready?.();
    if (ready !== undefined) await ready;
    const p = this.#progress(call, rules);
    try {
      for (;;) {
        p.attempt++;
        const outcome = await this.#attempt(p, auth);
        if (outcome.ok) return this.#succeed(outcome.response, p, read);
        if (await this.#repair(outcome, p, auth)) continue;
        await this.#backOffOrRaise(outcome, p);
      }
    } catch (err) {
      throw this.#fail(err, p);
    } finally {
      p.waits?.dispose();
    }
  }

  /** The call's `timeoutMs` and `maxRetries`: its options', else the client's. */
  budgetOf(call: Pick<PreparedCall, 'options'>): CallBudget {
    return {
      timeoutMs: call.options?.timeoutMs ?? this.#settings.timeoutMs,
      maxRetries: call.options?.maxRetries ?? this.#settings.maxRetries,
    };
  }

  #progress(call: PreparedCall, rules: RetryRules): CallProgress {
    const { timeoutMs, maxRetries } = this.budgetOf(call);
    const started = call.startedAt ?? performance.now();
    return {
      call,
      rules,
      signal: call.options?.signal,
      timeoutMs,
      maxRetries,
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
      trace: this.#telemetry.startCall({
        name: call.name,
        method: call.method,
        route: call.route,
        idempotencyKey: call.idempotencyKey,
        parent: call.traceParent,
      }),
      started,
      deadline: started + timeoutMs * (maxRetries + 1),
      waits: undefined,
    };
  }

  /** What a wait of the call ends on (its caller's abort, its deadline), made at the first wait. */
  #waitSignal(p: CallProgress): AbortSignal {
    return (p.waits ??= waitsUntil(p.deadline, p.signal)).signal;
  }

  /** The call's deadline has passed while it waited for something, or before its next attempt. */
  #deadlineError(p: CallProgress, what: string): TimeoutError {
    const { call } = p;
    const message = `The call's deadline (${deadlineText(p)}) passed ${what} (${call.method} ${stripQuery(call.path)}).`;
    return own(p, new TimeoutError(message, call.idempotencyKey, p.attempt));
  }

  /** One attempt: token, admission, signature, send, classification. */
  async #attempt(p: CallProgress, auth: Auth): Promise<AttemptOutcome> {
    const { call, signal } = p;
    if (signal?.aborted) throw own(p, new AbortError(call.idempotencyKey, { cause: signal.reason }));
    if (remainingMs(p.deadline) <= 0) throw this.#deadlineError(p, 'before another attempt');
    const headers = this.#headers(call);
    p.trace.inject(headers);
    const token = await this.#authenticate(headers, auth, p);
    // After the token, right before signing and sending: a limiter slot taken before a slow
    // token exchange would start its window too early, and the service (which counts arrivals)
    // could still see the previous window's requests when the next ones arrive.
    const waitStart = performance.now();
    const admission = this.#gate.admit(call.bucket, () => this.#waitSignal(p), call.subKey);
    const { slotTaken, paused } = await this.#waited(admission, p, 'while waiting for its rate-limit bucket');
    if (paused)
      p.trace.event('rate_limit.wait', { attempt: p.attempt, bucket: call.bucket, waited_ms: Math.round(performance.now() - waitStart) });
    if (call.signed) {
      const signing = this.#sign(p);
      // Only an asynchronous signer (Web Crypto) costs an await; node:crypto's answer is used as is.
      const signature = signing instanceof Promise ? await signing : signing;
      p.secrets.push(signature['x-signature']);
      Object.assign(headers, signature);
    }
    const started = performance.now();
    let wire: AttemptOutcome;
    try {
      wire = await this.#send(headers, p);
    } finally {
      if (slotTaken) this.#gate.settle(call.bucket as RateLimitBucket, call.subKey);
    }
    const durationMs = Math.round(performance.now() - started);
    if (!wire.ok) {
      p.trace.event('attempt', { attempt: p.attempt, 'error.type': wire.error.name, sent: reached(wire.failure), duration_ms: durationMs });
      const where = { method: call.method, path: call.path, attempt: p.attempt, durationMs };
      this.#log('debug', 'request failed', { ...where, error: wire.error.name, sent: reached(wire.failure) });
      return wire;
    }
    answered(p, wire.response.status, this.#redact(wire.response.headers['x-request-id'], p));
    const outcome = this.#classify(wire.response, p, token, durationMs);
    p.trace.event('attempt', {
      attempt: p.attempt,
      'http.response.status_code': wire.response.status,
      'merchant_stablecoin.error.code': !outcome.ok && outcome.failure.kind === 'api' ? outcome.failure.code : undefined,
      'merchant_stablecoin.request_id': p.requestId,
      duration_ms: durationMs,
    });
    return outcome;
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
    let token = auth.tokens.current();
    if (token === undefined) {
      // No usable token in memory: the call waits for a renewal (its own, or one in flight) until
      // its deadline; a renewal shared with other calls goes on for them.
      const before = performance.now();
      // The exchange this call starts is traced as its child.
      token = await this.#waited(auth.tokens.get(this.#waitSignal(p), p.trace.context()), p, 'while waiting for a token');
      p.trace.event('token.wait', { attempt: p.attempt, waited_ms: Math.round(performance.now() - before) });
    }
    this.#redactor.rememberToken(token);
    // Each attempt's token is a secret of this call: masked in what the server answers it, however
    // many renewals happened meanwhile.
    if (!p.secrets.includes(token)) p.secrets.push(token);
    headers['x-auth-token'] = `Bearer ${token}`;
    return token;
  }

  /**
   * An end of a wait by the caller's abort is an `AbortError`; by the call's deadline, a
   * `TimeoutError` that says what it waited for; any other rejection passes through unchanged.
   */
  async #waited<T>(promise: Promise<T> | T, p: CallProgress, what: string): Promise<T> {
    try {
      return await promise;
    } catch (err) {
      if (p.signal?.aborted) throw own(p, new AbortError(p.call.idempotencyKey, { cause: err }));
      if (p.waits?.signal.aborted) throw this.#deadlineError(p, what);
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
    // The attempt has its own timeout, and no more than what is left of the call's deadline.
    const timeoutMs = Math.max(1, Math.min(p.timeoutMs, Math.ceil(remainingMs(p.deadline))));
    p.wireAttempts++;
    try {
      const response = await this.#transport.send({
        method: call.method,
        origin: this.#settings.origin,
        path: call.path,
        headers,
        body: call.body,
        signal,
        timeoutMs,
        maxResponseBytes: this.#settings.maxResponseBytes,
        onSent: () => {
          onWire = true;
        },
      });
      return { ok: true, response };
    } catch (err) {
      const sent = onWire && !(err instanceof AttemptNotSentError);
      if (sent) raiseSent(p, 'maybe');
      const error = own(p, transportError(err, p, this.#redactor));
      // An abort ends the call; so does an interceptor's refusal (going again meets it again).
      if (error instanceof AbortError || error instanceof CallInterruptedError) throw error;
      return { ok: false, error, failure: transportFailure(error, sent) };
    }
  }

  #redact(text: string | undefined, p: CallProgress): string | undefined {
    return text === undefined ? undefined : this.#redactor.redact(text, p.secrets);
  }

  /** A response: success, the service's error by `code`, or a malformed body. */
  #classify(response: TransportResponse, p: CallProgress, token: string | undefined, durationMs: number): AttemptOutcome {
    const { call, attempt } = p;
    // One line per attempt at debug only: built when debug lines are wanted.
    const fields: LogFields | undefined =
      this.#settings.logger?.debug === undefined
        ? undefined
        : { method: call.method, path: call.path, status: response.status, attempt, durationMs, requestId: p.requestId };
    if (response.status >= 200 && response.status < 300) {
      if (fields !== undefined) this.#log('debug', 'request succeeded', fields);
      return { ok: true, response };
    }
    const error = errorFromResponse(response, {
      idempotencyKey: call.idempotencyKey,
      attempts: attempt,
      redact: (text) => this.#redactor.redact(text, p.secrets),
      redactValue: (value) => this.#redactor.redactValue(value, p.secrets),
      retryClass: (code, status) => retryClassFor(code, status, p.rules),
    });
    own(p, error);
    // An HTTP-date Retry-After is the service's clock: read against the service clock.
    const retryAfterHeader = parseRetryAfter(response.headers['retry-after'], this.#clock.now());
    if (!(error instanceof ApiError)) {
      if (fields !== undefined) this.#log('debug', 'request failed with a malformed body', fields);
      // A proxy's 429 page still says the bucket is full: its Retry-After is honoured.
      const failure = { kind: 'malformed', status: response.status, retryAfterSeconds: retryAfterHeader } as const;
      return { ok: false, error, failure, response, token };
    }
    if (fields !== undefined) this.#log('debug', 'request failed', { ...fields, requestId: error.requestId, code: printable(error.code) });
    const retryAfterSeconds = retryAfterHeader ?? numberOrUndefined((error.extras as { retry_after?: unknown }).retry_after);
    return { ok: false, error, failure: { kind: 'api', code: error.code, status: response.status, retryAfterSeconds }, response, token };
  }

  /** Reads the 2xx response and ends the call; what reading throws is this call's own error. */
  #succeed<R>(response: TransportResponse, p: CallProgress, read: ResultReader<R>): R {
    const state = snapshot(p);
    let result: R;
    try {
      result = read(response, { state, redact: (text) => this.#redactor.redact(text, p.secrets) });
    } catch (err) {
      // A reader throws only the SDK's errors (validation, an unreadable body): this call's own.
      throw own(p, err as Error);
    }
    const replayed = response.headers['x-idempotent-replay'] === 'true';
    p.trace.end({ state, outcome: 'success', replayed });
    if (this.#settings.logger?.info !== undefined) this.#log('info', 'call succeeded', { ...callFields(p, state), replayed });
    return result;
  }

  /** The final error, with the call's state; its span and log line end the call. */
  #fail(err: unknown, p: CallProgress): Error {
    const state = snapshot(p);
    const final = finalError(err, p, state, this.#redactor);
    const api: ApiError | undefined = final instanceof ApiError ? (final as ApiError) : undefined;
    const end = { state, outcome: api?.code ?? final.name, code: api?.code, retryClass: api?.retryClass, replayed: api?.replayed };
    p.trace.end({ ...end, errorType: final.name });
    this.#log('info', 'call failed', {
      ...callFields(p, state),
      code: end.code === undefined ? undefined : printable(end.code),
      retryClass: end.retryClass,
      replayed: end.replayed,
      error: final.name,
    });
    return final;
  }

  /** Repairs the SDK may make once per call, outside the retry budget (spec: Authentication). */
  async #repair(failed: Failed, p: CallProgress, auth: Auth): Promise<boolean> {
    // Only the service's answers carry a code; a transport failure has nothing to repair.
    const code = (failed.failure as { readonly code?: string }).code;
    if (code === 'invalid_token' && auth.kind === 'token' && !p.tokenRenewed && failed.token !== undefined) {
      p.tokenRenewed = true;
      p.trace.event('token.renew', { attempt: p.attempt, reason: 'invalid_token' });
      await auth.tokens.invalidate(failed.token);
      return true;
    }
    if (code === 'timestamp_out_of_range' && !p.skewCorrected && this.#learnClock(failed, p)) {
      p.skewCorrected = true;
      p.trace.event('clock.correct', { attempt: p.attempt, offset_ms: this.#clock.offsetMs });
      return true;
    }
    return false;
  }

  #learnClock(failed: Failed, p: CallProgress): boolean {
    try {
      return this.#clock.learnFrom(failed.response?.headers.date);
    } catch (err) {
      throw err instanceof Error ? own(p, err) : err;
    }
  }

  /** Waits before the next attempt when the spec allows a retry; otherwise raises the failure. */
  async #backOffOrRaise(failed: Failed, p: CallProgress): Promise<void> {
    const { failure } = failed;
    const backoff = this.#settings.backoff;
    const decision = decideRetry(failure, {
      retriesSoFar: p.retries,
      maxRetries: p.maxRetries,
      unknownRetried: p.unknownRetried,
      rules: p.rules,
      backoff,
    });
    // A wait that would reach the call's deadline is not begun: the call ends with this failure.
    if (!decision.retry || decision.delayMs >= remainingMs(p.deadline)) {
      // A 429 says the bucket is full for every call, so it pauses the others even when this
      // call gives up (retries spent, its deadline, or a Retry-After beyond maxRetryAfterMs:
      // capped there).
      const retryAfterSeconds = rateLimitOf(failure)?.retryAfterSeconds;
      if (retryAfterSeconds !== undefined) this.#pause(p, Math.min(retryAfterSeconds * 1000, backoff.maxRetryAfterMs));
      throw endingError(failed, p);
    }
    p.retries++;
    if (decision.unknownCode) p.unknownRetried = true;
    const retryClass = retryClassOfFailure(failure, p.rules);
    const reason = printable(this.#redactor.redact(failureLabel(failure), p.secrets));
    this.#telemetry.retry(p.call.name, retryClass);
    p.trace.event('retry', { attempt: p.attempt, delay_ms: decision.delayMs, reason, 'merchant_stablecoin.retry_class': retryClass });
    // A rate-limited retry waits at admission, with every other call of its bucket.
    if (decision.rateLimited) this.#pause(p, decision.delayMs);
    const fields = { endpoint: p.call.name, method: p.call.method, path: p.call.path, attempt: p.attempt, delayMs: decision.delayMs };
    this.#log('warn', 'retrying', { ...fields, reason, retryClass, idempotencyKey: p.call.idempotencyKey });
    // An abort ends the wait early; the next attempt starts by raising it, with the signal's reason.
    await sleep(decision.rateLimited ? 0 : decision.delayMs, p.signal).catch(() => undefined);
  }

  /**
   * A 429 pauses the call's key for every call of this client (and the limiter's): its bucket,
   * or only its sub-limit (one member's QR quotes, the bank search) when it has one, since the
   * spec's sub-limit is the narrower quota that call may have hit.
   */
  #pause(p: CallProgress, ms: number): void {
    const { bucket, subKey } = p.call;
    this.#gate.pause(bucket, ms, subKey);
    this.#telemetry.pause(bucket, ms);
    // The sub-limit's name only: a member id is not a trace attribute.
    const sub = subKey === undefined ? {} : { sub_limit: subKey.split(':')[0]! };
    p.trace.event('rate_limit.pause', { bucket, ...sub, pause_ms: Math.round(ms) });
  }

  #log(level: LogLevel, message: string, fields: LogFields): void {
    log(this.#settings.logger, level, message, fields);
  }
}

/** The fields a call-level log line carries: those of the call's span. */
function callFields(p: CallProgress, state: CallState): LogFields {
  return {
    endpoint: p.call.name,
    method: p.call.method,
    route: p.call.route,
    status: state.status,
    attempts: state.attempts,
    requestId: state.requestId,
    idempotencyKey: state.idempotencyKey,
    sent: state.sent,
    durationMs: Math.round(performance.now() - p.started),
  };
}

/** A body's `retry_after` seconds: a finite number, not negative (JSON reads `1e400` as Infinity). */
function numberOrUndefined(v: unknown): number | undefined {
  return Number.isFinite(v) && (v as number) >= 0 ? (v as number) : undefined;
}

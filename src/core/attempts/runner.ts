import type { RateLimitBucket } from '../../facts/endpoint.js';
import { classify, fail, succeed, type OutcomeContext } from './outcome.js';
import { RetryStep } from './retry.js';
import type { AttemptSettings, Auth, ResultReader } from './types.js';
import type { BucketGate } from '../limits/bucket-gate.js';
import type { PreparedCall } from '../call/call.js';
import { reached, stripQuery, transportError, transportFailure } from './call-errors.js';
import { deadlineText } from '../time/deadline.js';
import { CallRun, type AttemptOutcome } from './call-run.js';
import { remainingMs, waitsUntil, type CallBudget } from '../time/deadline.js';
import { AbortError, CallInterruptedError, TimeoutError } from '../errors/errors.js';
import { log, type LogFields, type LogLevel } from '../telemetry/logger.js';
import type { Redactor } from '../telemetry/redactor.js';
import type { RetryRules } from '../errors/retry-class.js';
import type { ServiceClock } from '../time/service-clock.js';
import { bodySha256, signAttempt, type SignatureHeaders, type Signer } from '../crypto/signing.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { AttemptNotSentError, type Transport } from '../transport/transport.js';

export type { AttemptSettings, Auth, ReadContext, ResultReader } from './types.js';

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
  readonly #outcomes: OutcomeContext;
  readonly #retries: RetryStep;

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
    this.#outcomes = { logger: settings.logger, redactor: this.#redactor, clock: this.#clock };
    this.#retries = new RetryStep({ ...this.#outcomes, backoff: settings.backoff, gate, telemetry: this.#telemetry });
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
        if (outcome.ok) return succeed(this.#outcomes, outcome.response, p, read);
        if (await this.#retries.repair(outcome, p, auth)) continue;
        await this.#retries.backOffOrRaise(outcome, p);
      }
    } catch (err) {
      throw fail(this.#outcomes, err, p);
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

  #progress(call: PreparedCall, rules: RetryRules): CallRun {
    return new CallRun({
      call,
      rules,
      budget: this.budgetOf(call),
      started: call.startedAt ?? performance.now(),
      trace: this.#telemetry.startCall({
        name: call.name,
        method: call.method,
        route: call.route,
        idempotencyKey: call.idempotencyKey,
        parent: call.traceParent,
      }),
    });
  }

  /** What a wait of the call ends on (its caller's abort, its deadline), made at the first wait. */
  #waitSignal(p: CallRun): AbortSignal {
    return (p.waits ??= waitsUntil(p.deadline, p.signal)).signal;
  }

  /** The call's deadline has passed while it waited for something, or before its next attempt. */
  #deadlineError(p: CallRun, what: string): TimeoutError {
    const { call } = p;
    const message = `The call's deadline (${deadlineText(p)}) passed ${what} (${call.method} ${stripQuery(call.path)}).`;
    return p.own(new TimeoutError(message, call.idempotencyKey, p.attempt));
  }

  /** One attempt: token, admission, signature, send, classification. */
  async #attempt(p: CallRun, auth: Auth): Promise<AttemptOutcome> {
    const { call, signal } = p;
    if (signal?.aborted) throw p.own(new AbortError(call.idempotencyKey, { cause: signal.reason }));
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
    const requestId = wire.response.headers['x-request-id'];
    p.answered(wire.response.status, requestId === undefined ? undefined : this.#redactor.redact(requestId, p.secrets));
    const outcome = classify(this.#outcomes, wire.response, p, token, durationMs);
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
  #sign(p: CallRun): SignatureHeaders | Promise<SignatureHeaders> {
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
  async #authenticate(headers: Record<string, string>, auth: Auth, p: CallRun): Promise<string | undefined> {
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
  async #waited<T>(promise: Promise<T> | T, p: CallRun, what: string): Promise<T> {
    try {
      return await promise;
    } catch (err) {
      if (p.signal?.aborted) throw p.own(new AbortError(p.call.idempotencyKey, { cause: err }));
      if (p.waits?.signal.aborted) throw this.#deadlineError(p, what);
      throw err;
    }
  }

  /**
   * One attempt on the wire with its own deadline (kept by the transport), body read included.
   * A failure says whether the request may have left the client; an abort is raised.
   */
  async #send(headers: Record<string, string>, p: CallRun): Promise<AttemptOutcome> {
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
      if (sent) p.raiseSent('maybe');
      const error = p.own(transportError(err, p, this.#redactor));
      // An abort ends the call; so does an interceptor's refusal (going again meets it again).
      if (error instanceof AbortError || error instanceof CallInterruptedError) throw error;
      return { ok: false, error, failure: transportFailure(error, sent) };
    }
  }

  #log(level: LogLevel, message: string, fields: LogFields): void {
    log(this.#settings.logger, level, message, fields);
  }
}

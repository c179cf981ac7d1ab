import type { Auth } from './types.js';
import type { BucketGate } from '../limits/bucket-gate.js';
import { endingError, failureLabel, retryClassOfFailure } from './call-errors.js';
import { type CallRun, type Failed } from './call-run.js';
import { remainingMs } from '../time/deadline.js';
import { log, type Logger } from '../telemetry/logger.js';
import { printable } from '../text.js';
import type { Redactor } from '../telemetry/redactor.js';
import { decideRetry, rateLimitOf, type BackoffSettings } from './retry-policy.js';
import type { ServiceClock } from '../time/service-clock.js';
import { sleep } from '../time/sleep.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** The log line said before each backoff sleep (the test helpers that drive fake time follow it). */
export const RETRYING = 'retrying';

/** What the step after a failed attempt uses of the runner. */
export interface RetryStepDeps {
  readonly backoff: BackoffSettings;
  readonly logger: Logger | undefined;
  readonly clock: ServiceClock;
  readonly gate: BucketGate;
  readonly redactor: Redactor;
  readonly telemetry: Telemetry;
}

/**
 * The step after a failed attempt: the repairs the SDK makes once per call (token renewal, clock
 * skew), else a wait before the next attempt where the spec allows a retry, else the failure
 * raised; a 429 pauses the call's bucket for every call on the way.
 */
export class RetryStep {
  readonly #deps: RetryStepDeps;

  constructor(deps: RetryStepDeps) {
    this.#deps = deps;
  }

  /** Repairs the SDK may make once per call, outside the retry budget (spec: Authentication). */
  async repair(failed: Failed, p: CallRun, auth: Auth): Promise<boolean> {
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
      p.trace.event('clock.correct', { attempt: p.attempt, offset_ms: this.#deps.clock.offsetMs });
      return true;
    }
    return false;
  }

  #learnClock(failed: Failed, p: CallRun): boolean {
    try {
      return this.#deps.clock.learnFrom(failed.response?.headers.date);
    } catch (err) {
      throw err instanceof Error ? p.own(err) : err;
    }
  }

  /** Waits before the next attempt when the spec allows a retry; otherwise raises the failure. */
  async backOffOrRaise(failed: Failed, p: CallRun): Promise<void> {
    const { failure } = failed;
    const backoff = this.#deps.backoff;
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
    const reason = printable(this.#deps.redactor.redact(failureLabel(failure), p.secrets));
    this.#deps.telemetry.retry(p.call.name, retryClass);
    p.trace.event('retry', { attempt: p.attempt, delay_ms: decision.delayMs, reason, 'merchant_stablecoin.retry_class': retryClass });
    // A rate-limited retry waits at admission, with every other call of its bucket.
    if (decision.rateLimited) this.#pause(p, decision.delayMs);
    const fields = { endpoint: p.call.name, method: p.call.method, path: p.call.path, attempt: p.attempt, delayMs: decision.delayMs };
    log(this.#deps.logger, 'warn', RETRYING, { ...fields, reason, retryClass, idempotencyKey: p.call.idempotencyKey });
    // An abort ends the wait early; the next attempt starts by raising it, with the signal's reason.
    await sleep(decision.rateLimited ? 0 : decision.delayMs, p.signal).catch(() => undefined);
  }

  /**
   * A 429 pauses the call's key for every call of this client (and the limiter's): its bucket,
   * or only its sub-limit (one member's QR quotes, the bank search) when it has one, since the
   * spec's sub-limit is the narrower quota that call may have hit.
   */
  #pause(p: CallRun, ms: number): void {
    const { bucket, subKey } = p.call;
    this.#deps.gate.pause(bucket, ms, subKey);
    this.#deps.telemetry.pause(bucket, ms);
    // The sub-limit's name only: a member id is not a trace attribute.
    const sub = subKey === undefined ? {} : { sub_limit: subKey.split(':')[0]! };
    p.trace.event('rate_limit.pause', { bucket, ...sub, pause_ms: Math.round(ms) });
  }
}

import type { PreparedCall } from '../call/call.js';
import { callDeadline, type CallBudget, type CallWaits } from '../time/deadline.js';
import { withCallState, type CallSent, type CallState } from '../errors/call-state.js';
import type { AttemptFailure } from './retry-policy.js';
import type { RetryRules } from '../errors/retry-class.js';
import type { CallTrace } from '../telemetry/telemetry.js';
import type { TransportResponse } from '../transport/transport.js';

/** What a call's run starts from. */
export interface CallRunStart {
  readonly call: PreparedCall;
  readonly rules: RetryRules;
  readonly budget: CallBudget;
  readonly trace: CallTrace;
  /** When the call started (performance.now()). */
  readonly started: number;
}

const SENT_ORDER: Readonly<Record<CallSent, number>> = { no: 0, maybe: 1, yes: 2 };

/**
 * One call's run through the attempt loop: the one object that owns the call's state (attempts,
 * whether it was sent, the last answer), its deadline, its secrets, and the stamping of the error
 * it ends with. Every step of the loop reads and moves it through these methods; an error a step
 * raises is marked as the call's own (`own`), so that the call's end stamps it without a note.
 */
export class CallRun {
  readonly call: PreparedCall;
  readonly rules: RetryRules;
  readonly signal: AbortSignal | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  attempt = 0;
  /** Attempts handed to the transport (whether or not they left the client). */
  wireAttempts = 0;
  retries = 0;
  unknownRetried = false;
  tokenRenewed = false;
  skewCorrected = false;
  sent: CallSent = 'no';
  status: number | undefined = undefined;
  requestId: string | undefined = undefined;
  /** Hex sha256 of the body, computed at the first signed attempt and reused by every retry. */
  bodyHash: string | Promise<string> | undefined = undefined;
  /** Secrets of this call to mask in server text: its signatures and secret body fields. */
  readonly secrets: string[];
  /** The call's trace (a no-op without telemetry). */
  readonly trace: CallTrace;
  /** When the call started (performance.now()), for its log line and duration. */
  readonly started: number;
  /** When the call must have ended (performance.now()): every wait and attempt fits before it. */
  readonly deadline: number;
  /** What the call's waits end on, made at its first wait (and disposed of when it ends). */
  waits: CallWaits | undefined = undefined;
  /** Errors this call's own steps raised (others are copied per call at the boundary). */
  readonly #owned = new WeakSet<Error>();

  constructor(start: CallRunStart) {
    this.call = start.call;
    this.rules = start.rules;
    this.signal = start.call.options?.signal;
    this.timeoutMs = start.budget.timeoutMs;
    this.maxRetries = start.budget.maxRetries;
    this.secrets = [...start.call.secrets];
    this.trace = start.trace;
    this.started = start.started;
    this.deadline = callDeadline(start.started, start.budget);
  }

  /** Moves the call's `sent` forward (never back: once answered, a call stays answered). */
  raiseSent(sent: CallSent): void {
    if (SENT_ORDER[sent] > SENT_ORDER[this.sent]) this.sent = sent;
  }

  /** The service answered an attempt: it reached the service. `requestId` must be redacted already. */
  answered(status: number | undefined, requestId: string | undefined): void {
    this.raiseSent('yes');
    this.status = status;
    this.requestId = requestId;
  }

  /** Marks an error as raised by this call's own steps, and returns it. */
  own<E extends Error>(err: E): E {
    this.#owned.add(err);
    return err;
  }

  /** Whether this call's own steps raised `err`. */
  owns(err: Error): boolean {
    return this.#owned.has(err);
  }

  /** The call's state as its outcome carries it. */
  snapshot(): CallState {
    return Object.freeze({
      idempotencyKey: this.call.idempotencyKey,
      sent: this.sent,
      status: this.status,
      requestId: this.requestId,
      attempts: this.wireAttempts,
    });
  }

  /** A copy of `err` stamped with `state` (the call's, by default), `note` saying which step failed. */
  stamp<E extends Error>(err: E, state: CallState = this.snapshot(), note?: string): E {
    return withCallState(err, state, note);
  }
}

/** One failed attempt: the error to raise if it is final, and what the retry policy sees. */
export interface Failed {
  readonly ok: false;
  readonly error: Error;
  readonly failure: AttemptFailure;
  /** Present when a response arrived. */
  readonly response?: TransportResponse;
  /** The token the attempt carried (for `invalid_token`). */
  readonly token?: string | undefined;
}

/** What one attempt came to. */
export type AttemptOutcome = { readonly ok: true; readonly response: TransportResponse } | Failed;

import type { PreparedCall } from '../call/call.js';
import type { CallWaits } from '../time/deadline.js';
import type { CallSent, CallState } from '../errors/call-state.js';
import type { AttemptFailure } from './retry-policy.js';
import type { RetryRules } from '../errors/retry-class.js';
import type { CallTrace } from '../telemetry/telemetry.js';
import type { TransportResponse } from '../transport/transport.js';

/** What the attempt loop keeps across the attempts of one call: the call's state, and its budget. */
export interface CallProgress {
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
  /** The call's trace (a no-op without telemetry). */
  readonly trace: CallTrace;
  /** When the call started (performance.now()), for its log line and duration. */
  readonly started: number;
  /**
   * When the call must have ended (performance.now()): `timeoutMs × (maxRetries + 1)` after it
   * started. Every wait and attempt of the call fits before it (`deadline.ts`).
   */
  readonly deadline: number;
  /** What the call's waits end on, made at its first wait (and disposed of when it ends). */
  waits: CallWaits | undefined;
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

const SENT_ORDER: Readonly<Record<CallSent, number>> = { no: 0, maybe: 1, yes: 2 };

/** Moves the call's `sent` forward (never back: once answered, a call stays answered). */
export function raiseSent(p: CallProgress, sent: CallSent): void {
  if (SENT_ORDER[sent] > SENT_ORDER[p.sent]) p.sent = sent;
}

/** The service answered an attempt: it reached the service. `requestId` must be redacted already. */
export function answered(p: CallProgress, status: number | undefined, requestId: string | undefined): void {
  raiseSent(p, 'yes');
  p.status = status;
  p.requestId = requestId;
}

/** Marks an error as raised by this call's own steps, and returns it. */
export function own<E extends Error>(p: CallProgress, err: E): E {
  p.own.add(err);
  return err;
}

/** The call's state as its outcome carries it. */
export function snapshot(p: CallProgress): CallState {
  return Object.freeze({
    idempotencyKey: p.call.idempotencyKey,
    sent: p.sent,
    status: p.status,
    requestId: p.requestId,
    attempts: p.wireAttempts,
  });
}

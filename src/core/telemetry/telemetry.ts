import type { CallState } from '../errors/call-state.js';

/** What a trace says about one call when it starts. */
export interface CallStart {
  /** The endpoint's id, e.g. `member.withdrawals.create` (the span name; `recover member.withdrawals.create` for a resend). */
  readonly name: string;
  readonly method: string;
  /** The route template, e.g. `/v1/withdrawals/{id}/confirm` (never the filled path: it holds ids). */
  readonly route: string;
  readonly idempotencyKey: string | undefined;
  /**
   * The trace context the call's span is a child of: that of the call that caused it (a token
   * exchange made for a call is that call's child). Absent: the active context.
   */
  readonly parent?: unknown;
}

/** How a call ended, as a trace records it. */
export interface CallEnd {
  readonly state: CallState;
  /** `success`, the error `code` of an `ApiError`, or the SDK error's class name. */
  readonly outcome: string;
  readonly code?: string | undefined;
  readonly retryClass?: string | undefined;
  readonly replayed?: boolean | undefined;
  /** The error's class name, when the call failed. */
  readonly errorType?: string | undefined;
}

/** Attribute values a trace event may carry (never a secret, a member id or a body). */
export type TraceAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** One call's trace: events along the way, then its end. */
export interface CallTrace {
  /** A point in the call's story: an attempt's outcome, a wait, a repair. */
  event(name: string, attributes: TraceAttributes): void;
  /** Headers to add to an attempt (W3C `traceparent`, when propagation is on). */
  inject(headers: Record<string, string>): void;
  /** Ends the call's span and records its metrics. */
  end(result: CallEnd): void;
  /** The trace context holding this call's span, for a call it causes (its token exchange). */
  context(): unknown;
}

/**
 * Where the pipeline reports what it does. The default does nothing and costs a function call;
 * `otel.ts` reports to OpenTelemetry when it is installed or given.
 */
export interface Telemetry {
  /**
   * Pending while the reporter gets ready (the OpenTelemetry API loading after a registration);
   * a call waits for it before it starts, so that it is traced. Absent or undefined: no wait.
   */
  ready?(): Promise<void> | undefined;
  startCall(start: CallStart): CallTrace;
  /** A retry is scheduled (for the retries counter). */
  retry(name: string, retryClass: string): void;
  /** A 429 paused a rate-limit bucket. */
  pause(bucket: string, ms: number): void;
}

const NOOP_TRACE: CallTrace = {
  event: () => undefined,
  inject: () => undefined,
  end: () => undefined,
  context: () => undefined,
};

/** Telemetry that records nothing. */
export const NO_TELEMETRY: Telemetry = {
  startCall: () => NOOP_TRACE,
  retry: () => undefined,
  pause: () => undefined,
};

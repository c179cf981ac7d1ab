/** The OpenTelemetry API as the SDK sees it: its structural types, the client option, and loading it once per process. */
import type { TraceAttributes } from './telemetry.js';

/** Attribute values OpenTelemetry accepts (as far as the SDK sets them). */
export type OpenTelemetryAttributeValue = string | number | boolean;

/** A span, as far as the SDK uses one (a structural subset of `@opentelemetry/api`'s `Span`). */
export interface OpenTelemetrySpan {
  /** Sets attributes on the span. */
  setAttributes(attributes: Record<string, OpenTelemetryAttributeValue>): unknown;
  /** Adds a timed event. */
  addEvent(name: string, attributes?: Record<string, OpenTelemetryAttributeValue>): unknown;
  /** Sets the span status (`code` 2 is ERROR). */
  setStatus(status: { code: number; message?: string }): unknown;
  /** Ends the span. */
  end(): void;
  /**
   * False for a span nobody records (no tracer provider, or not sampled): the SDK then skips
   * building its attributes and events. Absent counts as recording.
   */
  isRecording?(): boolean;
}

/** The subset of `@opentelemetry/api` the SDK uses, typed structurally so that no type of the package is needed. */
export interface OpenTelemetryApi {
  /** `trace` of `@opentelemetry/api`. */
  readonly trace: {
    /** A tracer for the SDK's spans. */
    getTracer(
      name: string,
      version?: string,
    ): {
      /** Starts a span (one per call, one per token exchange). */
      startSpan(
        name: string,
        options?: { kind?: number; attributes?: Record<string, OpenTelemetryAttributeValue> },
        context?: unknown,
      ): OpenTelemetrySpan;
    };
    /** A context holding `span`, so that the spans it starts are its children. */
    setSpan(context: unknown, span: OpenTelemetrySpan): unknown;
  };
  /** `metrics` of `@opentelemetry/api`. */
  readonly metrics: {
    /** A meter for the SDK's instruments. */
    getMeter(
      name: string,
      version?: string,
    ): {
      /** A counter (calls, retries, pauses). */
      createCounter(
        name: string,
        options?: { description?: string; unit?: string },
      ): {
        /** Adds to the counter. */
        add(value: number, attributes?: Record<string, OpenTelemetryAttributeValue>): void;
      };
      /** A histogram (call durations). */
      createHistogram(
        name: string,
        options?: { description?: string; unit?: string },
      ): {
        /** Records one value. */
        record(value: number, attributes?: Record<string, OpenTelemetryAttributeValue>): void;
      };
    };
  };
  /** `context` of `@opentelemetry/api`. */
  readonly context: {
    /** The active context. */
    active(): unknown;
  };
  /** `propagation` of `@opentelemetry/api`. */
  readonly propagation: {
    /** Writes the context's trace headers into `carrier`. */
    inject(context: unknown, carrier: Record<string, string>): void;
  };
}

/** Client option: how the SDK reports to OpenTelemetry. */
export interface TelemetryOptions {
  /**
   * The `@opentelemetry/api` module (`import * as api from '@opentelemetry/api'`). Default: the
   * SDK loads it itself when it is installed and the application has registered something with
   * it (checked at each call, which waits for the load: the first call after a registration is
   * traced); nothing is loaded before that, nor when it is not installed. Give it where the SDK
   * cannot import it by name (a bundle without `node_modules`).
   */
  readonly api?: OpenTelemetryApi;
  /** `false` turns tracing and metrics off, even when `@opentelemetry/api` is installed. Default true. */
  readonly enabled?: boolean;
  /**
   * Send the W3C trace context (`traceparent`, `tracestate`) of each call's span to the service.
   * Default false: the service is a third party, and the headers name your trace ids.
   */
  readonly propagateContext?: boolean;
}
/** The prefix of every metric and span attribute the SDK names itself. */
export const PREFIX = 'merchant_stablecoin';

/** Drops undefined values: OpenTelemetry attributes cannot hold them. */
export function defined(attributes: TraceAttributes): Record<string, OpenTelemetryAttributeValue> {
  const out: Record<string, OpenTelemetryAttributeValue> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}
/** Module name kept in a variable, so that bundlers do not try to resolve the optional peer. */
const OTEL_MODULE = '@opentelemetry/api';
let loading: Promise<OpenTelemetryApi | undefined> | undefined;

/** Loads `@opentelemetry/api` once per process; undefined when it is not installed. */
export function loadApi(): Promise<OpenTelemetryApi | undefined> {
  return (loading ??= import(/* @vite-ignore */ OTEL_MODULE).then(
    (m: unknown) => {
      // An ES namespace, or a CommonJS module behind `default`.
      const ns = m as Partial<OpenTelemetryApi> & { default?: Partial<OpenTelemetryApi> };
      const api = ns.trace !== undefined ? ns : ns.default;
      return api?.trace !== undefined && api.metrics !== undefined ? (api as OpenTelemetryApi) : undefined;
    },
    () => undefined,
  ));
}

/**
 * Where `@opentelemetry/api` 1.x keeps what an application registered (tracer, meter or
 * propagator provider, context manager, diag logger). It stays undefined until something is
 * registered, and until then every use of the API is a no-op.
 */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

/** Whether the application registered anything with `@opentelemetry/api` 1.x. */
export function otelRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL] !== undefined;
}

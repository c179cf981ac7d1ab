import { SDK_VERSION } from '../../version.js';
import { NO_TELEMETRY, type CallEnd, type CallStart, type CallTrace, type Telemetry, type TraceAttributes } from './telemetry.js';

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

const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;
const PREFIX = 'merchant_stablecoin';

/** Drops undefined values: OpenTelemetry attributes cannot hold them. */
function defined(attributes: TraceAttributes): Record<string, OpenTelemetryAttributeValue> {
  const out: Record<string, OpenTelemetryAttributeValue> = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * Telemetry over `@opentelemetry/api`: one CLIENT span per call named after the SDK method, with
 * the call's state as attributes and its attempts, waits and repairs as events; and counters and
 * a duration histogram. Never a member id, a secret or a body.
 */
class OpenTelemetryReporter implements Telemetry {
  readonly #api: OpenTelemetryApi;
  readonly #tracer: ReturnType<OpenTelemetryApi['trace']['getTracer']>;
  readonly #propagate: boolean;
  readonly #calls;
  readonly #duration;
  readonly #retries;
  readonly #pauses;
  readonly #tokens;

  constructor(api: OpenTelemetryApi, propagate: boolean) {
    this.#api = api;
    this.#propagate = propagate;
    this.#tracer = api.trace.getTracer('merchant-stablecoin', SDK_VERSION);
    const meter = api.metrics.getMeter('merchant-stablecoin', SDK_VERSION);
    this.#calls = meter.createCounter(`${PREFIX}.calls`, { description: 'SDK calls by endpoint and outcome' });
    this.#duration = meter.createHistogram(`${PREFIX}.call.duration`, {
      description: 'SDK call duration, retries and waits included',
      unit: 'ms',
    });
    this.#retries = meter.createCounter(`${PREFIX}.retries`, { description: 'Automatic retries by endpoint and retry class' });
    this.#pauses = meter.createCounter(`${PREFIX}.rate_limit.pauses`, { description: 'Rate-limit bucket pauses after a 429' });
    this.#tokens = meter.createCounter(`${PREFIX}.token.exchanges`, { description: 'Token exchanges by outcome' });
  }

  startCall(start: CallStart): CallTrace {
    const parent = start.parent ?? this.#api.context.active();
    const attributes: Record<string, OpenTelemetryAttributeValue> = {
      'http.request.method': start.method,
      'url.template': start.route,
      [`${PREFIX}.endpoint`]: start.name,
    };
    if (start.idempotencyKey !== undefined) attributes[`${PREFIX}.idempotency_key`] = start.idempotencyKey;
    const span = this.#tracer.startSpan(start.name, { kind: SPAN_KIND_CLIENT, attributes }, parent);
    // With no tracer provider (or an unsampled call) the span records nothing: keep the metrics,
    // skip building attributes and events, so that an installed but unused API costs nothing.
    const recording = span.isRecording?.() !== false;
    const started = performance.now();
    return {
      event: recording ? (name, attrs) => void span.addEvent(name, defined(attrs)) : () => undefined,
      inject: (headers) => {
        if (this.#propagate) this.#api.propagation.inject(this.#api.trace.setSpan(parent, span), headers);
      },
      end: (result) => this.#end(recording ? span : undefined, span, start, result, performance.now() - started),
      context: () => this.#api.trace.setSpan(parent, span),
    };
  }

  #end(recorded: OpenTelemetrySpan | undefined, span: OpenTelemetrySpan, start: CallStart, r: CallEnd, ms: number): void {
    if (recorded !== undefined) this.#describe(recorded, r);
    span.end();
    const attributes = { endpoint: start.name, outcome: r.outcome };
    this.#calls.add(1, attributes);
    this.#duration.record(ms, attributes);
    if (start.name === 'connect.token') this.#tokens.add(1, { outcome: r.outcome });
  }

  /** The call's end state as span attributes and status. */
  #describe(span: OpenTelemetrySpan, r: CallEnd): void {
    span.setAttributes(
      defined({
        'http.response.status_code': r.state.status,
        'error.type': r.errorType === undefined ? undefined : (r.code ?? r.errorType),
        [`${PREFIX}.request_id`]: r.state.requestId,
        [`${PREFIX}.attempts`]: r.state.attempts,
        [`${PREFIX}.call.sent`]: r.state.sent,
        [`${PREFIX}.replayed`]: r.replayed,
        [`${PREFIX}.error.code`]: r.code,
        [`${PREFIX}.retry_class`]: r.retryClass,
      }),
    );
    if (r.errorType !== undefined) span.setStatus({ code: STATUS_ERROR, message: r.outcome });
  }

  retry(name: string, retryClass: string): void {
    this.#retries.add(1, { endpoint: name, retry_class: retryClass });
  }

  pause(bucket: string, ms: number): void {
    void ms;
    this.#pauses.add(1, { bucket });
  }
}

/** Module name kept in a variable, so that bundlers do not try to resolve the optional peer. */
const OTEL_MODULE = '@opentelemetry/api';
let loading: Promise<OpenTelemetryApi | undefined> | undefined;

/** Loads `@opentelemetry/api` once per process; undefined when it is not installed. */
function loadApi(): Promise<OpenTelemetryApi | undefined> {
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
function otelRegistered(): boolean {
  return (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL] !== undefined;
}

/**
 * Reports to the API once it is loaded; until then (and without it) reports nothing. The API is
 * loaded only once the application has registered something with it (checked on each call, so a
 * provider registered after the client was created is picked up): loading it only to report to
 * its no-op tracer cost about 60 ms of a cold start (`npm run bench`). A call that starts after a
 * registration waits for the load ({@link LazyReporter.ready}), so that the first call of a
 * process (a serverless cold start, a short script) is traced, its token exchange included; the
 * application imported the API to register, so the load is usually the module cache's answer.
 */
class LazyReporter implements Telemetry {
  #inner: Telemetry = NO_TELEMETRY;
  #loading: Promise<void> | undefined;
  #loaded = false;
  readonly #propagate: boolean;

  constructor(propagate: boolean) {
    this.#propagate = propagate;
    void this.ready();
  }

  /** Pending while the API loads after a registration was seen; undefined otherwise (no wait). */
  ready(): Promise<void> | undefined {
    if (this.#loaded) return undefined;
    if (this.#loading === undefined) {
      if (!otelRegistered()) return undefined;
      this.#loading = loadApi().then((api) => {
        if (api !== undefined) this.#inner = new OpenTelemetryReporter(api, this.#propagate);
        this.#loaded = true;
      });
    }
    return this.#loading;
  }

  startCall(start: CallStart): CallTrace {
    return this.#inner.startCall(start);
  }

  retry(name: string, retryClass: string): void {
    this.#inner.retry(name, retryClass);
  }

  pause(bucket: string, ms: number): void {
    this.#inner.pause(bucket, ms);
  }
}

/** The client's telemetry from its option. */
export function createTelemetry(options: TelemetryOptions | undefined): Telemetry {
  if (options?.enabled === false) return NO_TELEMETRY;
  const propagate = options?.propagateContext === true;
  if (options?.api !== undefined) return new OpenTelemetryReporter(options.api, propagate);
  return new LazyReporter(propagate);
}

/** Counts a webhook receiver's deliveries by outcome (see `createDeliveryCounter`). */
export interface DeliveryCounter {
  /** One delivery answered with `outcome`; `eventType` when the body was an event. */
  count(outcome: string, eventType: string | undefined): void;
}

/**
 * The webhook receiver's `merchant_stablecoin.webhook.deliveries` counter, by `outcome` and, for a
 * body that was an event, `event_type`. Loaded like the client's telemetry (once something is
 * registered with the API); nothing without it.
 */
export function createDeliveryCounter(options: TelemetryOptions | undefined): DeliveryCounter {
  if (options?.enabled === false) return { count: () => undefined };
  let add: ((value: number, attributes: Record<string, OpenTelemetryAttributeValue>) => void) | undefined;
  const bind = (api: OpenTelemetryApi): void => {
    const counter = api.metrics
      .getMeter('merchant-stablecoin', SDK_VERSION)
      .createCounter(`${PREFIX}.webhook.deliveries`, { description: 'Webhook deliveries by outcome' });
    add = (value, attributes) => counter.add(value, attributes);
  };
  if (options?.api !== undefined) {
    bind(options.api);
    return { count: (outcome, eventType) => add?.(1, defined({ outcome, event_type: eventType })) };
  }
  let loading = false;
  const load = (): void => {
    if (loading || !otelRegistered()) return;
    loading = true;
    void loadApi().then((api) => {
      if (api !== undefined) bind(api);
    });
  };
  load();
  return {
    count: (outcome, eventType) => {
      load();
      add?.(1, defined({ outcome, event_type: eventType }));
    },
  };
}

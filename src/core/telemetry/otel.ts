/** Client tracing over OpenTelemetry: one span per call, its metrics, and the reporter that waits for the API to be registered. */
import { SDK_VERSION } from '../../version.js';
import {
  PREFIX,
  defined,
  loadApi,
  otelRegistered,
  type OpenTelemetryApi,
  type OpenTelemetryAttributeValue,
  type OpenTelemetrySpan,
  type TelemetryOptions,
} from './otel-api.js';
import { NO_TELEMETRY, type CallEnd, type CallStart, type CallTrace, type Telemetry } from './telemetry.js';

const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

/**
 * Telemetry over `@opentelemetry/api`: one CLIENT span per call named after its endpoint id, with
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

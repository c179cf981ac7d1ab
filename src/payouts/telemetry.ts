/**
 * The workflow's log lines, metrics and spans, like the client's: log lines through the
 * merchant's logger, and OpenTelemetry only when given or registered (nothing is loaded before).
 * Nothing here prints a secret: payouts hold none (references, ids, amounts, codes).
 */
import { log, type Logger, type LogFields, type LogLevel } from '../core/telemetry/logger.js';
import { loadApi, otelRegistered, PREFIX, type OpenTelemetryApi, type OpenTelemetrySpan } from '../core/telemetry/otel-api.js';
import { SDK_VERSION } from '../version.js';
import type { PayoutState } from './record.js';

/** A synchronous gauge, where the installed `@opentelemetry/api` has one (1.9 and later). */
interface Gauge {
  record(value: number, attributes?: Record<string, string | number | boolean>): void;
}
type Meter = ReturnType<OpenTelemetryApi['metrics']['getMeter']> & {
  createGauge?: (name: string, options?: { description?: string; unit?: string }) => Gauge;
};

interface Instruments {
  readonly api: OpenTelemetryApi;
  readonly transitions: { add(value: number, attributes?: Record<string, string | number | boolean>): void };
  readonly open: Gauge | undefined;
  readonly oldest: Gauge | undefined;
}

/** What the workflow reports. */
export class PayoutTelemetry {
  readonly #logger: Logger | undefined;
  readonly #given: OpenTelemetryApi | false | undefined;
  #instruments: Promise<Instruments | undefined> | undefined;

  constructor(logger: Logger | undefined, api: OpenTelemetryApi | false | undefined) {
    this.#logger = logger ?? { warn: (m, f) => console.warn(m, f ?? ''), error: (m, f) => console.error(m, f ?? '') };
    this.#given = api;
  }

  /** One log line. */
  log(level: LogLevel, message: string, fields?: LogFields): void {
    log(this.#logger, level, message, fields);
  }

  #load(): Promise<Instruments | undefined> {
    if (this.#given === false) return Promise.resolve(undefined);
    if (this.#instruments !== undefined) return this.#instruments;
    if (this.#given === undefined && !otelRegistered()) return Promise.resolve(undefined);
    const loading = this.#given !== undefined ? Promise.resolve(this.#given) : loadApi();
    this.#instruments = loading.then((api) => {
      if (api === undefined) return undefined;
      const meter = api.metrics.getMeter('merchant-stablecoin', SDK_VERSION) as Meter;
      return {
        api,
        transitions: meter.createCounter(`${PREFIX}.payout.transitions`, {
          description: 'Payout state changes written, by from and to state.',
        }),
        open: meter.createGauge?.(`${PREFIX}.payout.open`, { description: 'Payouts not ended, by state, at the last pass.' }),
        oldest: meter.createGauge?.(`${PREFIX}.payout.oldest_open_age`, {
          description: 'Age of the oldest payout not ended, at the last pass.',
          unit: 's',
        }),
      };
    });
    return this.#instruments;
  }

  /** Counts one state change. */
  async transition(from: PayoutState | null, to: PayoutState): Promise<void> {
    const i = await this.#load();
    i?.transitions.add(1, { from: from ?? 'new', to });
  }

  /** Records the open payouts by state and the age of the oldest one, after a pass. */
  async pass(byState: Readonly<Partial<Record<PayoutState, number>>>, oldestAgeMs: number | undefined): Promise<void> {
    const i = await this.#load();
    if (i === undefined) return;
    for (const [state, count] of Object.entries(byState)) i.open?.record(count, { state });
    i.oldest?.record(oldestAgeMs === undefined ? 0 : Math.round(oldestAgeMs / 1000));
  }

  /** Runs `work` inside a span named `payout.<step>`. */
  async span<T>(step: string, attributes: Record<string, string>, work: () => Promise<T>): Promise<T> {
    const i = await this.#load();
    const span: OpenTelemetrySpan | undefined = i?.api.trace
      .getTracer('merchant-stablecoin', SDK_VERSION)
      .startSpan(`payout.${step}`, { attributes });
    try {
      return await work();
    } catch (err) {
      span?.setStatus({ code: 2, message: err instanceof Error ? err.name : 'error' });
      throw err;
    } finally {
      span?.end();
    }
  }
}

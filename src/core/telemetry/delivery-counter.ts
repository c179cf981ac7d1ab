/** The webhook receiver's delivery counter: the one metric it reports, loaded like the client's telemetry. */
import { SDK_VERSION } from '../../version.js';
import {
  PREFIX,
  defined,
  loadApi,
  otelRegistered,
  type OpenTelemetryApi,
  type OpenTelemetryAttributeValue,
  type TelemetryOptions,
} from './otel-api.js';

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

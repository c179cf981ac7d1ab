/**
 * Observability: the call's story in OpenTelemetry. The SDK reports to `@opentelemetry/api` (an
 * optional peer) when it is installed; here the providers export to memory, and the example
 * prints what a trace backend would show for a withdrawal whose first attempt timed out at the
 * gateway after it executed: one span, its attempts and retry as events, the replay, the metrics.
 *
 *   npx tsx examples/observability.ts
 */
import * as otel from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createSandbox } from '../src/testing/index.js';

// 1. Providers, registered once at start-up (in production: NodeSDK and an OTLP exporter).
const spans = new InMemorySpanExporter();
otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
const metricsOut = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const meters = new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metricsOut, exportIntervalMillis: 60_000 })] });
otel.metrics.setGlobalMeterProvider(meters);

// 2. The client: `telemetry.api` hands the module over (without it the SDK loads it itself).
const sandbox = createSandbox();
sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '300' } } });
const client = sandbox.client({ telemetry: { api: otel }, backoff: { baseDelayMs: 10, maxDelayMs: 50 } });

try {
  // The gateway times out after the withdrawal executed: the SDK retries with the same key.
  sandbox.faults.inject({ method: 'POST', path: '/v1/withdrawals' }, { kind: 'status', status: 504, when: 'after' });
  const order = await client.member('alice').withdrawals.create({ asset: 'USDT', amount: '25', to_address: 'TQ7x1Vb9' });
  console.log(`withdrawal ${order.id} ${order.status}`);

  for (const span of spans.getFinishedSpans()) {
    const a = span.attributes;
    console.log(
      `span ${span.name}: status ${String(a['http.response.status_code'])}, attempts ${String(a['merchant_stablecoin.attempts'])}, replayed ${String(a['merchant_stablecoin.replayed'])}, sent ${String(a['merchant_stablecoin.call.sent'])}`,
    );
    for (const e of span.events) console.log(`  event ${e.name} ${JSON.stringify(e.attributes)}`);
  }

  await meters.forceFlush();
  const metrics = metricsOut.getMetrics().flatMap((rm) => rm.scopeMetrics.flatMap((sm) => sm.metrics));
  for (const m of metrics) {
    for (const p of m.dataPoints)
      if (typeof p.value === 'number') console.log(`metric ${m.descriptor.name} ${JSON.stringify(p.attributes)} = ${p.value}`);
  }
} finally {
  await client.close();
  await meters.shutdown();
}

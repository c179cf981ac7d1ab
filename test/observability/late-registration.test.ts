/**
 * Default telemetry (no `api` option): the SDK loads `@opentelemetry/api` only once the
 * application has registered something with it, so a provider registered after the client was
 * created traces the calls that follow, from the first; before that nothing is recorded.
 */
import * as otel from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { wireClient } from '../helpers/client.js';
import { envelope, headersFor } from '../webhooks/helpers.js';
import { startWireServer, type WireServer, ORDER, WITHDRAWAL } from '../helpers/wire-server.js';

const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
  // A process where the application registered nothing with OpenTelemetry.
  delete (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL];
});
afterEach(async () => {
  otel.trace.disable();
  otel.metrics.disable();
  delete (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL];
  await server.close();
});

describe('default telemetry and a provider registered late', () => {
  it('records nothing before registration; the first call after it is traced', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const client = wireClient(server.url);
    const spans = new InMemorySpanExporter();
    try {
      await client.member('ext-late-1').withdrawals.create(WITHDRAWAL);
      otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
      expect(spans.getFinishedSpans()).toEqual([]);
      // The API loads at the first call after registration, and that call waits for it.
      await client.member('ext-late-1').withdrawals.create(WITHDRAWAL);
      expect(spans.getFinishedSpans().map((s) => s.name)).toEqual(['member.withdrawals.create']);
      const span = spans.getFinishedSpans().find((s) => s.name === 'member.withdrawals.create');
      expect(span?.attributes['merchant_stablecoin.endpoint']).toBe('member.withdrawals.create');
    } finally {
      await client.close();
    }
  });
});

class TestReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe('a webhook receiver with default telemetry and a meter provider registered late', () => {
  it('counts nothing before registration; the deliveries after it are counted', async () => {
    const handler = createWebhookHandler({ onEvent: () => undefined, logger: {} });
    const deliver = async (): Promise<void> => {
      const env = envelope('card.status.updated', { object: 'card', id: 'crd_late', status: 'active', status_version: 1 });
      expect((await handler.handle(JSON.stringify(env), headersFor(env))).status).toBe(200);
    };
    await deliver();
    const reader = new TestReader();
    otel.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    const processed = async (): Promise<number> => {
      const { resourceMetrics } = await reader.collect();
      const found = resourceMetrics.scopeMetrics
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'merchant_stablecoin.webhook.deliveries');
      return (found?.dataPoints ?? []).filter((d) => d.attributes['outcome'] === 'processed').reduce((n, d) => n + Number(d.value), 0);
    };
    expect(await processed()).toBe(0);
    // The API loads on the first delivery after registration; deliveries while it loads are not counted.
    await vi.waitFor(
      async () => {
        await deliver();
        expect(await processed()).toBeGreaterThanOrEqual(1);
      },
      { timeout: 30_000, interval: 0 },
    );
  });
});

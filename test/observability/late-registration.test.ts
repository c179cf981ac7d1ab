/**
 * Default telemetry (no `api` option): the SDK loads `@opentelemetry/api` only once the
 * application has registered something with it, so a provider registered after the client was
 * created still traces the calls that follow; before that nothing is recorded.
 */
import * as otel from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { wireClient } from '../helpers/client.js';
import { startWireServer, type WireServer } from '../helpers/wire-server.js';

const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const ORDER = { id: 'wdr_1', status: 'locked', asset: 'USDT', amount: '25.50', ledger_scale: 6, to_address: 'TQ7x1Vb9' };
const WITHDRAWAL = { asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9' } as const;

let server: WireServer;
beforeEach(async () => {
  server = await startWireServer();
  // A process where the application registered nothing with OpenTelemetry.
  delete (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL];
});
afterEach(async () => {
  otel.trace.disable();
  delete (globalThis as Record<symbol, unknown>)[OTEL_GLOBAL];
  await server.close();
});

describe('default telemetry and a provider registered late', () => {
  it('records nothing before registration; the calls after it are traced', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const client = wireClient(server.url);
    const spans = new InMemorySpanExporter();
    try {
      await client.member('ext-late-1').withdrawals.create(WITHDRAWAL);
      otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
      expect(spans.getFinishedSpans()).toEqual([]);
      // The API loads on the first call after registration; calls made while it loads are not traced.
      await vi.waitFor(
        async () => {
          await client.member('ext-late-1').withdrawals.create(WITHDRAWAL);
          expect(spans.getFinishedSpans().map((s) => s.name)).toContain('withdrawals.create');
        },
        { timeout: 30_000, interval: 0 },
      );
      const span = spans.getFinishedSpans().find((s) => s.name === 'withdrawals.create');
      expect(span?.attributes['merchant_stablecoin.endpoint']).toBe('withdrawals.create');
    } finally {
      await client.close();
    }
  });
});

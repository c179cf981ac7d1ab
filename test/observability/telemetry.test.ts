/**
 * Tracing and metrics through the OpenTelemetry SDK's in-memory exporters, over a loopback server:
 * what an on-call engineer reads of a call (spans, events, metrics, log lines), and that no
 * secret or member id is ever among it.
 */
import * as otel from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LogFields, MerchantClient, MerchantClientOptions } from '../../src/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { wireClient } from '../helpers/client.js';
import { freezeClock } from '../helpers/time.js';
import { SAMPLES } from '../resources/samples.js';
import { envelope, headersFor } from '../webhooks/helpers.js';
import { API_KEY, SIGNING_KEY, apiError, startWireServer, type WireServer, ORDER, WITHDRAWAL } from '../helpers/wire-server.js';

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

const spans = new InMemorySpanExporter();
const reader = new TestReader();
beforeAll(() => {
  otel.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  otel.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  otel.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

const MEMBER = 'ext-member-7f3a';
const PIN = '8642';

let server: WireServer;
let client: MerchantClient;
const logs: Array<{ level: string; message: string; fields: LogFields | undefined; args: number }> = [];
const logger = Object.fromEntries(
  (['debug', 'info', 'warn', 'error'] as const).map((level) => [
    level,
    (...args: unknown[]) => logs.push({ level, message: String(args[0]), fields: args[1] as LogFields | undefined, args: args.length }),
  ]),
);
function traced(options: Partial<MerchantClientOptions> = {}): MerchantClient {
  return wireClient(server.url, { telemetry: { api: otel }, logger, logLevel: 'debug', ...options });
}

beforeEach(async () => {
  server = await startWireServer();
  spans.reset();
  logs.length = 0;
  client = traced();
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const byName = (name: string): ReadableSpan[] => spans.getFinishedSpans().filter((s) => s.name === name);
const attr = (s: ReadableSpan, k: string): unknown => s.attributes[`merchant_stablecoin.${k}`];
/** The events of a span, without the waits (whose presence depends on what was cached). */
const eventsOf = (s: ReadableSpan): string[] => s.events.map((e) => e.name).filter((n) => !n.endsWith('.wait'));

async function metric(name: string): Promise<Array<{ attributes: Record<string, unknown>; value: unknown }>> {
  const { resourceMetrics }: { resourceMetrics: ResourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === `merchant_stablecoin.${name}`);
  return (found?.dataPoints ?? []).map((d) => ({ attributes: d.attributes, value: d.value }));
}
const count = async (name: string, match: Record<string, unknown>): Promise<number> =>
  (await metric(name))
    .filter((d) => Object.entries(match).every(([k, v]) => d.attributes[k] === v))
    .reduce((n, d) => n + (typeof d.value === 'number' ? d.value : (d.value as { count: number }).count), 0);

describe('a successful call', () => {
  it('is one CLIENT span named after the SDK method, with the call state as attributes, and a token exchange span of its own', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const before = await count('calls', { endpoint: 'member.withdrawals.create', outcome: 'success' });
    const { response } = await client.member(MEMBER).withdrawals.create(WITHDRAWAL).withResponse();

    const [span] = byName('member.withdrawals.create');
    expect(span).toBeDefined();
    expect(span!.kind).toBe(otel.SpanKind.CLIENT);
    expect(span!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.template': '/v1/withdrawals',
      'http.response.status_code': 201,
      'merchant_stablecoin.endpoint': 'member.withdrawals.create',
      'merchant_stablecoin.idempotency_key': response.idempotencyKey,
      'merchant_stablecoin.request_id': response.requestId,
      'merchant_stablecoin.attempts': 1,
      'merchant_stablecoin.call.sent': 'yes',
      'merchant_stablecoin.replayed': false,
    });
    expect(span!.status.code).toBe(otel.SpanStatusCode.UNSET);
    expect(eventsOf(span!)).toContain('attempt');
    expect(byName('connect.token')).toHaveLength(1);
    expect(await count('calls', { endpoint: 'member.withdrawals.create', outcome: 'success' })).toBe(before + 1);
    expect(await count('call.duration', { endpoint: 'member.withdrawals.create', outcome: 'success' })).toBeGreaterThanOrEqual(1);
    expect(await count('token.exchanges', { outcome: 'success' })).toBeGreaterThanOrEqual(1);
  });

  it('log lines carry the span fields, and nothing undefined', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const { response } = await client.member(MEMBER).withdrawals.create(WITHDRAWAL).withResponse();
    const line = logs.find((l) => l.message === 'call succeeded' && l.fields?.['endpoint'] === 'member.withdrawals.create');
    expect(line?.fields).toMatchObject({
      endpoint: 'member.withdrawals.create',
      method: 'POST',
      route: '/v1/withdrawals',
      status: 201,
      attempts: 1,
      requestId: response.requestId,
      idempotencyKey: response.idempotencyKey,
      sent: 'yes',
      replayed: false,
    });
    for (const l of logs) {
      expect(l.args).toBe(l.fields === undefined ? 1 : 2);
      for (const v of Object.values(l.fields ?? {})) expect(v).not.toBeUndefined();
    }
  });
});

describe('the token exchange a call causes', () => {
  it("is traced as that call's child, with no application span around it", async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const [call] = byName('member.withdrawals.create');
    const [exchange] = byName('connect.token');
    // The call is a root span; the exchange it waited for is its child in the same trace.
    expect(call!.parentSpanContext).toBeUndefined();
    expect(exchange!.spanContext().traceId).toBe(call!.spanContext().traceId);
    expect(exchange!.parentSpanContext?.spanId).toBe(call!.spanContext().spanId);
  });

  it('belongs to the call that started it: a later call that finds the token causes none', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const calls = byName('member.withdrawals.create');
    const exchanges = byName('connect.token');
    expect(calls).toHaveLength(2);
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.parentSpanContext?.spanId).toBe(calls[0]!.spanContext().spanId);
    // The second call is a trace of its own, with no exchange under it.
    expect(calls[1]!.spanContext().traceId).not.toBe(calls[0]!.spanContext().traceId);
  });
});

describe('a retried call', () => {
  it('has an event per attempt and a retry event with its class and wait; the retries counter moves', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(502, 'upstream_error'), { status: 201, body: ORDER }]);
    const before = await count('retries', { endpoint: 'member.withdrawals.create', retry_class: 'same_key' });
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const [span] = byName('member.withdrawals.create');
    expect(eventsOf(span!)).toEqual(['attempt', 'retry', 'attempt']);
    const retry = span!.events.find((e) => e.name === 'retry')!;
    expect(retry.attributes).toMatchObject({ attempt: 1, reason: 'upstream_error', 'merchant_stablecoin.retry_class': 'same_key' });
    expect(typeof retry.attributes!['delay_ms']).toBe('number');
    expect(span!.events.find((e) => e.name === 'attempt')!.attributes).toMatchObject({
      attempt: 1,
      'http.response.status_code': 502,
      'merchant_stablecoin.error.code': 'upstream_error',
    });
    expect(attr(span!, 'attempts')).toBe(2);
    expect(await count('retries', { endpoint: 'member.withdrawals.create', retry_class: 'same_key' })).toBe(before + 1);
  });
});

describe('each failed attempt says whether it may have reached the service', () => {
  it('a body over the size cap and a reset after sending: sent true; a refused connection: sent false', async () => {
    server.on('POST', '/v1/withdrawals', [{ status: 502, body: 'y'.repeat(600) }, { reset: true }, { status: 201, body: ORDER }]);
    await client.close();
    client = traced({ maxRetries: 3, maxResponseBytes: 400 });
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const [span] = byName('member.withdrawals.create');
    const failed = span!.events.filter((e) => e.name === 'attempt' && e.attributes!['sent'] !== undefined);
    expect(failed.map((e) => e.attributes!['sent'])).toEqual([true, true]);

    // Nothing listens on the port: the token exchange's attempts never left the client.
    const closed = await startWireServer();
    const url = closed.url;
    await closed.close();
    const refused = wireClient(url, { telemetry: { api: otel }, maxRetries: 1 });
    try {
      await expect(refused.member(MEMBER).withdrawals.create(WITHDRAWAL)).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      await refused.close();
    }
    const token = byName('connect.token').at(-1)!;
    const tokenAttempts = token.events.filter((e) => e.name === 'attempt');
    expect(tokenAttempts.map((e) => e.attributes!['sent'])).toEqual([false, false]);
  });
});

describe('a 429 on a call that gives up', () => {
  it('still pauses its bucket for the others (by status or by code, whatever the status), and a 503 with Retry-After does not', async () => {
    await client.close();
    client = traced({ maxRetries: 0 });
    const rateLimited = {
      status: 429,
      headers: { 'retry-after': '0' },
      body: { error: { code: 'rate_limited', message: 'slow', retry_after: 0 } },
    };
    const byStatusOnly = { status: 429, headers: { 'retry-after': '0' }, body: { type: 'api_error', code: 'too_many', message: 'slow' } };
    // A proxy may rewrite the status: the code still says the bucket is full.
    const byCodeOnly = { ...apiError(503, 'rate_limited'), headers: { 'retry-after': '0' } };
    server.on('POST', '/v1/withdrawals', [
      rateLimited,
      byStatusOnly,
      { ...apiError(503, 'service_unavailable'), headers: { 'retry-after': '0' } },
      byCodeOnly,
    ]);
    const before = await count('rate_limit.pauses', { bucket: 'orders' });
    for (let i = 0; i < 4; i++) await expect(client.member(MEMBER).withdrawals.create(WITHDRAWAL)).rejects.toThrow();
    const pauses = byName('member.withdrawals.create').map((s) => s.events.filter((e) => e.name === 'rate_limit.pause').length);
    expect(pauses).toEqual([1, 1, 0, 1]);
    expect(await count('rate_limit.pauses', { bucket: 'orders' })).toBe(before + 3);
  });
});

describe('a 429 pause', () => {
  it('is a rate_limit.pause event with its bucket, and the pauses counter moves for that bucket', async () => {
    server.on('POST', '/v1/withdrawals', [
      { status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 'rate_limited', message: 'slow', retry_after: 0 } } },
      { status: 201, body: ORDER },
    ]);
    const before = await count('rate_limit.pauses', { bucket: 'orders' });
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const [span] = byName('member.withdrawals.create');
    expect(eventsOf(span!)).toContain('rate_limit.pause');
    // Exactly these: a call without a sub-limit names none.
    expect(span!.events.find((e) => e.name === 'rate_limit.pause')!.attributes).toEqual({ bucket: 'orders', pause_ms: 0 });
    expect(span!.events.find((e) => e.name === 'retry')!.attributes).toMatchObject({ 'merchant_stablecoin.retry_class': 'after_wait' });
    expect(await count('rate_limit.pauses', { bucket: 'orders' })).toBe(before + 1);
  });
  it("a call that waits out its sub-limit's pause has a rate_limit.wait event; calls that did not wait have none", async () => {
    let elapsed: number;
    await client.close();
    freezeClock();
    try {
      // A call's deadline bounds its wait for the pause: room for the 60 s.
      client = traced({ maxRetries: 0, timeoutMs: 120_000 });
      server.on('POST', '/v1/qrpay/quotes', [
        { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '60' } },
        { body: SAMPLES['member.qrpay.quote']!.reply },
      ]);
      const quote = () =>
        client.member(MEMBER).qrpay.quote({
          funding_source: 'member',
          code_value: '000201',
          currency: 'THB',
          amount: '350.00',
          preferred_asset: 'USDT',
          payer: { custName: 'A' },
        });
      await expect(quote()).rejects.toMatchObject({ code: 'rate_limited' });
      // The member's quotes are paused for 60 s of the frozen clock: the next one waits it out.
      const t0 = performance.now();
      const waiting = quote();
      while (server.calls().length < 2) await vi.advanceTimersByTimeAsync(1000);
      await waiting;
      elapsed = performance.now() - t0;
      await quote();
    } finally {
      vi.useRealTimers();
    }
    const quotes = byName('member.qrpay.quote');
    const waits = quotes.map((s) => s.events.filter((e) => e.name === 'rate_limit.wait').length);
    expect(waits).toEqual([0, 1, 0]);
    // The pause names the sub-limit (never the member); the wait says how long it took, on the monotonic clock.
    expect(quotes[0]!.events.find((e) => e.name === 'rate_limit.pause')!.attributes).toEqual({
      bucket: 'orders',
      sub_limit: 'qrpay_quotes',
      pause_ms: 60_000,
    });
    const wait = quotes[1]!.events.find((e) => e.name === 'rate_limit.wait')!.attributes!;
    expect(wait).toEqual({ attempt: 1, bucket: 'orders', waited_ms: expect.any(Number) });
    expect(wait['waited_ms']).toBeGreaterThanOrEqual(0);
    expect(wait['waited_ms']).toBeLessThanOrEqual(Math.ceil(elapsed));
  });
  it('a token exchange that waits out its own 429 pause has a rate_limit.wait event', async () => {
    await client.close();
    freezeClock();
    try {
      client = traced();
      server.onToken([
        { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '60' } },
        { body: { auth_token: 'tok_late', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] } },
      ]);
      server.on('GET', '/v1/assets', { body: {} });
      const call = client.request({ method: 'GET', path: '/v1/assets' });
      while (server.tokenExchanges() < 2) await vi.advanceTimersByTimeAsync(1000);
      await call;
    } finally {
      vi.useRealTimers();
    }
    const [exchange] = byName('connect.token');
    expect(exchange!.events.filter((e) => e.name === 'rate_limit.wait')).toHaveLength(1);
    expect(server.calls().map((c) => c.headers['x-auth-token'])).toEqual(['Bearer tok_late']);
  });
});

describe('a token renewal', () => {
  it('is a token.renew event on the call, and a second token exchange span', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(401, 'invalid_token'), { status: 201, body: ORDER }]);
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const [span] = byName('member.withdrawals.create');
    expect(eventsOf(span!)).toEqual(['attempt', 'token.renew', 'attempt']);
    expect(span!.events.find((e) => e.name === 'token.renew')!.attributes).toEqual({ attempt: 1, reason: 'invalid_token' });
    expect(byName('connect.token')).toHaveLength(2);
    expect(byName('connect.token').every((s) => s.attributes['http.response.status_code'] === 200)).toBe(true);
    // Each attempt waited for a token exchange: the first (cold client) and the renewed one.
    expect(span!.events.filter((e) => e.name === 'token.wait').map((e) => e.attributes!['attempt'])).toEqual([1, 2]);
  });
});

describe('a clock correction', () => {
  it("is a clock.correct event with the offset learnt from the service's Date", async () => {
    const ahead = new Date(Date.now() + 120_000).toUTCString();
    server.on('POST', '/v1/withdrawals', [
      { ...apiError(401, 'timestamp_out_of_range'), headers: { date: ahead } },
      { status: 201, body: ORDER },
    ]);
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const [span] = byName('member.withdrawals.create');
    expect(eventsOf(span!)).toEqual(['attempt', 'clock.correct', 'attempt']);
    const correction = span!.events.find((e) => e.name === 'clock.correct')!.attributes!;
    expect(Object.keys(correction).sort()).toEqual(['attempt', 'offset_ms']);
    expect(correction['attempt']).toBe(1);
    // The Date header has whole seconds: the offset is 120 s give or take the second it was cut to.
    expect(Math.abs((correction['offset_ms'] as number) - 120_000)).toBeLessThanOrEqual(2_000);
  });
});

describe('a replayed result', () => {
  it('the span and the success line say replayed only when the service says x-idempotent-replay: true', async () => {
    server.on('POST', '/v1/withdrawals', [
      { status: 201, headers: { 'x-idempotent-replay': 'false' }, body: ORDER },
      { status: 201, headers: { 'x-idempotent-replay': 'true' }, body: ORDER },
    ]);
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    expect(byName('member.withdrawals.create').map((s) => attr(s, 'replayed'))).toEqual([false, true]);
    const lines = logs.filter((l) => l.message === 'call succeeded' && l.fields?.['endpoint'] === 'member.withdrawals.create');
    expect(lines.map((l) => l.fields?.['replayed'])).toEqual([false, true]);
  });
});

describe('waits and durations', () => {
  it('token.wait, each attempt and the call line: at least 0, and never more than the call took as the caller saw it', async () => {
    server.on('POST', '/v1/withdrawals', { status: 201, body: ORDER });
    const t0 = performance.now();
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    const elapsed = Math.ceil(performance.now() - t0);
    const [span] = byName('member.withdrawals.create');
    const measured = span!.events.flatMap((e) =>
      ['waited_ms', 'duration_ms']
        .filter((k) => e.attributes?.[k] !== undefined)
        .map((k) => ({ event: e.name, value: e.attributes![k] as number })),
    );
    expect(measured.map((m) => m.event)).toEqual(['token.wait', 'attempt']);
    expect(span!.events.find((e) => e.name === 'token.wait')!.attributes).toEqual({ attempt: 1, waited_ms: expect.any(Number) });
    const line = logs.find((l) => l.message === 'call succeeded' && l.fields?.['endpoint'] === 'member.withdrawals.create')!;
    for (const value of [...measured.map((m) => m.value), line.fields!['durationMs'] as number]) {
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(elapsed);
    }
  });
});

describe("a 429 body's retry_after, when no Retry-After header came", () => {
  it.each([
    ['2 seconds', '2', 2_000],
    ['0 seconds', '0', 0],
    ['a negative number', '-1', undefined],
    ['a string', '"2"', undefined],
    ['1e400 (Infinity once parsed)', '1e400', undefined],
  ])('%s: pause %s ms', async (_name, value, pauseMs) => {
    // Raw JSON, as the service would send it.
    server.on('POST', '/v1/withdrawals', {
      status: 429,
      body: `{"type":"rate_limit_error","code":"rate_limited","message":"slow down","request_id":"req_429","retry_after":${value}}`,
    });
    await client.close();
    client = traced({ maxRetries: 0 });
    await expect(client.member(MEMBER).withdrawals.create(WITHDRAWAL)).rejects.toMatchObject({ code: 'rate_limited' });
    const [span] = byName('member.withdrawals.create');
    const pause = span!.events.find((e) => e.name === 'rate_limit.pause');
    expect(pause?.attributes?.['pause_ms']).toBe(pauseMs);
  });
});

describe('a failure after a possible execution', () => {
  it('ends the span in error with the code, the retry class and the call state', async () => {
    server.on('POST', '/v1/withdrawals', apiError(504, 'upstream_timeout'));
    const err = await client
      .member(MEMBER)
      .withdrawals.create(WITHDRAWAL)
      .catch((e: unknown) => e as { idempotencyKey: string });
    const [span] = byName('member.withdrawals.create');
    expect(span!.status).toMatchObject({ code: otel.SpanStatusCode.ERROR, message: 'upstream_timeout' });
    expect(span!.attributes).toMatchObject({
      'error.type': 'upstream_timeout',
      'merchant_stablecoin.error.code': 'upstream_timeout',
      'merchant_stablecoin.retry_class': 'same_key',
      'merchant_stablecoin.call.sent': 'yes',
      'merchant_stablecoin.attempts': 3,
      'merchant_stablecoin.idempotency_key': err.idempotencyKey,
    });
    expect(await count('calls', { endpoint: 'member.withdrawals.create', outcome: 'upstream_timeout' })).toBeGreaterThanOrEqual(1);
    const line = logs.find((l) => l.message === 'call failed');
    expect(line?.fields).toMatchObject({
      endpoint: 'member.withdrawals.create',
      code: 'upstream_timeout',
      retryClass: 'same_key',
      sent: 'yes',
      attempts: 3,
    });
  });

  it('a timeout after sending says maybe, with the error type', async () => {
    server.on('POST', '/v1/withdrawals', { stallBody: true, status: 201, body: ORDER });
    const c = traced({ timeoutMs: 200, maxRetries: 0 });
    await c
      .member(MEMBER)
      .withdrawals.create(WITHDRAWAL)
      .catch(() => undefined);
    await c.close();
    const span = byName('member.withdrawals.create').at(-1)!;
    expect(span.attributes).toMatchObject({ 'error.type': 'TimeoutError', 'merchant_stablecoin.call.sent': 'maybe' });
    expect(span.status.code).toBe(otel.SpanStatusCode.ERROR);
  });
});

describe('propagation and switches', () => {
  it('sends no traceparent by default; with propagateContext the header carries the call span', async () => {
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    await client.assets.list();
    expect(server.calls()[0]!.headers['traceparent']).toBeUndefined();
    const propagating = traced({ telemetry: { api: otel, propagateContext: true } });
    await propagating.assets.list();
    await propagating.close();
    const sent = server.calls().at(-1)!.headers['traceparent'];
    const span = byName('assets.list').at(-1)!;
    expect(sent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  it('enabled: false records nothing', async () => {
    server.on('GET', '/v1/assets', { body: { data: [], next_cursor: null, has_more: false } });
    const off = traced({ telemetry: { api: otel, enabled: false } });
    await off.assets.list();
    await off.close();
    expect(spans.getFinishedSpans()).toHaveLength(0);
  });
});

describe('a span nobody records', () => {
  it('gets no attributes or events, is still ended, and the call metrics still move', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(502, 'upstream_error'), { status: 201, body: ORDER }]);
    const touched: string[] = [];
    let ended = 0;
    // What `@opentelemetry/api` hands out with no tracer provider, or for an unsampled call.
    const unrecorded = {
      isRecording: () => false,
      setAttributes: () => touched.push('setAttributes'),
      addEvent: () => touched.push('addEvent'),
      setStatus: () => touched.push('setStatus'),
      end: () => void ended++,
    };
    const api = { ...otel, trace: { ...otel.trace, getTracer: () => ({ startSpan: () => unrecorded }) } };
    const quiet = traced({ telemetry: { api } });
    const before = await count('calls', { endpoint: 'member.withdrawals.create', outcome: 'success' });
    const retriesBefore = await count('retries', { endpoint: 'member.withdrawals.create', retry_class: 'same_key' });
    await quiet.member(MEMBER).withdrawals.create(WITHDRAWAL);
    await quiet.close();
    expect(touched).toEqual([]);
    expect(ended).toBe(2); // the token exchange and the call
    expect(await count('calls', { endpoint: 'member.withdrawals.create', outcome: 'success' })).toBe(before + 1);
    expect(await count('retries', { endpoint: 'member.withdrawals.create', retry_class: 'same_key' })).toBe(retriesBefore + 1);
    expect(server.calls().filter((c) => c.url === '/v1/withdrawals')).toHaveLength(2);
  });
});

describe('secrets and members', () => {
  it('no attribute, event or metric holds a key, a token, a signature, a PIN or a member id', async () => {
    server.on('POST', '/v1/withdrawals', [apiError(500, 'api_error'), { status: 201, body: ORDER }]);
    server.on('POST', '/v1/cards/crd_1/activate', (req) => ({
      ...apiError(400, 'state_invalid', { message: `${req.headers['x-signature']} ${PIN} ${API_KEY}` }),
      headers: { 'x-request-id': `${req.headers['x-auth-token']}` },
    }));
    await client.member(MEMBER).withdrawals.create(WITHDRAWAL);
    await client
      .member(MEMBER)
      .cards.activate('crd_1', { expiry: '07/29', pin: PIN })
      .catch(() => undefined);
    const tokens = server.requests.map((r) => (r.headers['x-auth-token'] ?? '').replace('Bearer ', '')).filter((t) => t !== '');
    const signatures = server.requests.map((r) => r.headers['x-signature']).filter((s): s is string => s !== undefined);
    const secrets = [API_KEY, SIGNING_KEY, PIN, MEMBER, ...new Set(tokens), ...signatures];
    const values: string[] = [];
    for (const s of spans.getFinishedSpans()) {
      values.push(s.name, ...Object.values(s.attributes).map(String));
      for (const e of s.events) values.push(e.name, ...Object.values(e.attributes ?? {}).map(String));
    }
    const { resourceMetrics } = await reader.collect();
    for (const m of resourceMetrics.scopeMetrics.flatMap((x) => x.metrics)) {
      for (const d of m.dataPoints) values.push(...Object.values(d.attributes).map(String));
    }
    expect(values.length).toBeGreaterThan(30);
    for (const secret of secrets) expect(values.filter((v) => v.includes(secret))).toEqual([]);
  });
});

describe('the webhook receiver', () => {
  it('counts deliveries by outcome and event type; its log lines carry no stray undefined', async () => {
    const handler = createWebhookHandler({ onEvent: () => undefined, telemetry: { api: otel }, logger });
    const before = await count('webhook.deliveries', {});
    const env = envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 1 });
    const body = JSON.stringify(env);
    expect((await handler.handle(body, headersFor(env))).status).toBe(200);
    expect((await handler.handle(body, headersFor(env))).status).toBe(200);
    expect((await handler.handle('not json', headersFor(env))).status).toBe(400);
    expect(await count('webhook.deliveries', { outcome: 'processed', event_type: 'card.status.updated' })).toBe(1);
    expect(await count('webhook.deliveries', { outcome: 'duplicate', event_type: 'card.status.updated' })).toBe(1);
    expect(await count('webhook.deliveries', { outcome: 'invalid_event' })).toBe(1);
    expect((await count('webhook.deliveries', {})) - before).toBe(3);
    const webhookLines = logs.filter((l) => l.message.startsWith('webhooks:'));
    expect(webhookLines.length).toBeGreaterThan(0);
    for (const line of webhookLines) {
      expect(line.args === 1 || line.fields !== undefined).toBe(true);
      for (const value of Object.values(line.fields ?? {})) expect(value).not.toBeUndefined();
    }
  });
});

/**
 * The webhook handler's settings, its time bound and what it tells the store and the logger for
 * each outcome (spec: Events > Delivery contract: a 10-second delivery timeout, any 2xx
 * acknowledges, anything else is delivered again). Driven through `handler.handle()`, the
 * framework-neutral entry point, on a frozen clock where time matters.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import {
  DEFAULT_HANDLER_TIMEOUT_MS,
  DELIVERY_TIMEOUT_MS,
  WebhookSignatureError,
  WebhookTimeoutError,
  createWebhookHandler,
  type ClaimResult,
  type EventStore,
  type WebhookEventContext,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { envelope, headersFor, post, recordingLogger, startReceiver, type Receiver } from './helpers.js';

afterEach(() => {
  vi.useRealTimers();
});

const card = () => envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 1 });

/** A store that records what the handler asks of it. */
function recordingStore(claimResult: unknown = 'claimed') {
  const calls: string[] = [];
  const store: EventStore = {
    claim: (id, ttl) => {
      calls.push(`claim ${id} ${ttl}`);
      return claimResult as ClaimResult;
    },
    complete: (id) => void calls.push(`complete ${id}`),
    release: (id) => void calls.push(`release ${id}`),
  };
  return { calls, store };
}

function handlerWith(options: Partial<WebhookHandlerOptions> & Pick<WebhookHandlerOptions, 'onEvent'>) {
  const log = recordingLogger();
  const handler = createWebhookHandler({ verify: () => true, logLevel: 'debug', ...options, logger: log.logger });
  return { handler, log };
}

const fieldsOf = (env: { event_id: string; event_type: string }) => ({ eventId: env.event_id, eventType: env.event_type });

describe('settings', () => {
  it('onEvent and verify must be functions', () => {
    for (const bad of [undefined, {}, { onEvent: 'x' }] as unknown[]) {
      expect(() => createWebhookHandler(bad as WebhookHandlerOptions)).toThrow(
        expect.objectContaining({ name: 'InvalidArgumentError', argument: 'onEvent', message: 'onEvent: must be a function.' }),
      );
    }
    expect(() => createWebhookHandler({ onEvent: () => undefined, verify: 'hmac' as never })).toThrow(
      expect.objectContaining({ argument: 'verify', message: 'verify: must be a function.' }),
    );
  });

  it('timeoutMs must be above 0 and below the 10-second delivery timeout', () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    expect(DEFAULT_HANDLER_TIMEOUT_MS).toBe(8000);
    for (const timeoutMs of [0, -1, 10_000, 10_001, Number.NaN]) {
      let err: unknown;
      try {
        createWebhookHandler({ onEvent: () => undefined, timeoutMs, logger: {} });
      } catch (e) {
        err = e;
      }
      expect(err, String(timeoutMs)).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).argument).toBe('timeoutMs');
      expect((err as Error).message).toContain('below 10000 ms');
    }
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 9999, logger: {} })).not.toThrow();
    // The body deadline must stay below timeoutMs: at 1 ms, only one given below it fits.
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 1, bodyTimeoutMs: 0.5, logger: {} })).not.toThrow();
  });

  it('claimTtlMs must exceed timeoutMs, and maxBodyBytes must be positive', () => {
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 5000, claimTtlMs: 5000 })).toThrow(
      expect.objectContaining({ argument: 'claimTtlMs', message: 'claimTtlMs: must exceed timeoutMs.' }),
    );
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 5000, claimTtlMs: 5001, logger: {} })).not.toThrow();
    // The default lease (60 s) exceeds any allowed timeoutMs.
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 9999, logger: {} })).not.toThrow();
    for (const maxBodyBytes of [0, -5, Number.NaN]) {
      expect(() => createWebhookHandler({ onEvent: () => undefined, maxBodyBytes, logger: {} })).toThrow(
        expect.objectContaining({ argument: 'maxBodyBytes', message: 'maxBodyBytes: must be a positive number of bytes.' }),
      );
    }
  });

  it('claims with the lease: 60 s by default, or claimTtlMs', async () => {
    const env = card();
    for (const [claimTtlMs, expected] of [
      [undefined, 60_000],
      [20_000, 20_000],
    ] as const) {
      const { calls, store } = recordingStore();
      const { handler } = handlerWith({ onEvent: () => undefined, store, ...(claimTtlMs ? { claimTtlMs } : {}) });
      await handler.handle(JSON.stringify(env), headersFor(env));
      expect(calls).toEqual([`claim ${env.event_id} ${expected}`, `complete ${env.event_id}`]);
    }
  });

  it('reads bodies up to 256 KiB by default over node:http, and refuses more with 413', async () => {
    const env = card();
    const { handler } = handlerWith({ onEvent: () => undefined });
    const receiver: Receiver = await startReceiver(handler);
    try {
      const json = JSON.stringify(env);
      // JSON allows trailing whitespace: a valid event of exactly the limit, then one byte more.
      const atLimit = json + ' '.repeat(256 * 1024 - json.length);
      expect((await post(receiver.url, atLimit, headersFor(env))).status).toBe(200);
      expect((await post(receiver.url, `${atLimit} `, headersFor(card()))).status).toBe(413);
    } finally {
      await receiver.close();
    }
  });
});

describe('what onEvent receives', () => {
  it('the event, lower-case headers, an unaborted signal and the deadline: arrival plus timeoutMs', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: Date.UTC(2026, 0, 1) });
    const env = card();
    let got: WebhookEventContext | undefined;
    const { handler } = handlerWith({
      timeoutMs: 3000,
      onEvent: (event, context) => {
        expect(event.event_id).toBe(env.event_id);
        got = context;
      },
    });
    const r = await handler.handle(JSON.stringify(env), { ...headersFor(env), 'X-Custom': 'v' });
    expect(r.status).toBe(200);
    expect(got!.deadline).toBe(Date.UTC(2026, 0, 1) + 3000);
    expect(got!.signal.aborted).toBe(false);
    expect(got!.headers['x-custom']).toBe('v');
    expect(got!.headers['z-event-id']).toBe(env.event_id);
  });
});

describe('the time bound', () => {
  it('onEvent may use up to timeoutMs; beyond it the delivery is answered 503 and its signal aborted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: Date.UTC(2026, 0, 1) });
    for (const [takes, status] of [
      [999, 200],
      [1001, 503],
    ] as const) {
      const env = card();
      let signal: AbortSignal | undefined;
      const { handler } = handlerWith({
        timeoutMs: 1000,
        onEvent: (_e, ctx) => {
          signal = ctx.signal;
          return new Promise((resolve) => setTimeout(resolve, takes));
        },
      });
      const answer = handler.handle(JSON.stringify(env), headersFor(env));
      await vi.advanceTimersByTimeAsync(takes);
      const r = await answer;
      expect(r.status, `onEvent taking ${takes} ms`).toBe(status);
      expect(signal!.aborted).toBe(status === 503);
      if (status === 503) {
        expect(signal!.reason).toBeInstanceOf(WebhookTimeoutError);
        expect((signal!.reason as WebhookTimeoutError).timeoutMs).toBe(1000);
        expect(r.body).toEqual({ received: false, error: 'timeout', message: 'Processing exceeded 1000 ms; deliver again.' });
      }
    }
  });

  it('warns when onEvent finishes at 75% of timeoutMs or later (by default), not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: Date.UTC(2026, 0, 1) });
    for (const [takes, warned] of [
      [749, false],
      [750, true],
    ] as const) {
      const env = card();
      const { handler, log } = handlerWith({ timeoutMs: 1000, onEvent: () => new Promise((resolve) => setTimeout(resolve, takes)) });
      const answer = handler.handle(JSON.stringify(env), headersFor(env));
      await vi.advanceTimersByTimeAsync(takes);
      expect((await answer).status).toBe(200);
      const warning = log.lines.find((l) => l.level === 'warn' && l.message.includes('close to the bound'));
      expect(Boolean(warning), `onEvent taking ${takes} ms`).toBe(warned);
      if (warned) {
        expect(warning!.message).toBe(
          `webhooks: onEvent took ${takes} ms, close to the bound of 1000 ms (the service times out at 10 s). Move slow work to a queue.`,
        );
        expect(warning!.fields).toEqual({ ...fieldsOf(env), durationMs: takes });
      }
    }
  });

  it('a late success completes the claim, a late failure releases it, each logged', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: Date.UTC(2026, 0, 1) });
    for (const outcome of ['succeeds', 'fails'] as const) {
      const env = card();
      const { calls, store } = recordingStore();
      let finish!: () => void;
      const { handler, log } = handlerWith({
        timeoutMs: 100,
        store,
        onEvent: () =>
          new Promise<void>((resolve, reject) => {
            finish = outcome === 'succeeds' ? resolve : () => reject(new Error('db gone'));
          }),
      });
      const answer = handler.handle(JSON.stringify(env), headersFor(env));
      await vi.advanceTimersByTimeAsync(100);
      expect((await answer).status).toBe(503);
      const timeoutLine = log.lines.find((l) => l.level === 'error' && l.message.includes('did not finish within 100 ms'));
      expect(timeoutLine?.fields).toEqual({ ...fieldsOf(env), durationMs: 100 });
      expect(calls).toEqual([`claim ${env.event_id} 60000`]);
      finish();
      await vi.advanceTimersByTimeAsync(0);
      if (outcome === 'succeeds') {
        expect(calls.at(-1)).toBe(`complete ${env.event_id}`);
        expect(log.lines.at(-1)).toEqual({
          level: 'warn',
          message: 'webhooks: onEvent finished after the delivery was answered 503; recorded as processed',
          fields: fieldsOf(env),
        });
      } else {
        expect(calls.at(-1)).toBe(`release ${env.event_id}`);
        expect(log.lines.at(-1)).toEqual({
          level: 'error',
          message:
            'webhooks: onEvent failed after the delivery timed out; claim released so that the redelivery is processed: Error: db gone',
          fields: fieldsOf(env),
        });
      }
    }
  });
});

describe('each outcome: the answer, the store and the log line', () => {
  it('processed: 200, completed, logged at debug', async () => {
    const env = card();
    const { calls, store } = recordingStore();
    const { handler, log } = handlerWith({ store, onEvent: () => undefined });
    const r = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(r).toMatchObject({ status: 200, outcome: 'processed', body: { received: true } });
    expect(r.event?.event_id).toBe(env.event_id);
    expect(calls).toEqual([`claim ${env.event_id} 60000`, `complete ${env.event_id}`]);
    expect(log.lines).toEqual([{ level: 'debug', message: 'webhooks: event processed', fields: fieldsOf(env) }]);
  });

  it('duplicate: 200 without processing, logged at debug', async () => {
    const env = card();
    const { calls, store } = recordingStore('duplicate');
    let processed = 0;
    const { handler, log } = handlerWith({ store, onEvent: () => void processed++ });
    const r = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(r).toMatchObject({ status: 200, outcome: 'duplicate', body: { received: true, duplicate: true } });
    expect(processed).toBe(0);
    expect(calls).toEqual([`claim ${env.event_id} 60000`]);
    expect(log.lines).toEqual([
      { level: 'debug', message: 'webhooks: duplicate delivery acknowledged without processing', fields: fieldsOf(env) },
    ]);
  });

  it('in progress elsewhere: 409, logged at info', async () => {
    const env = card();
    const { store } = recordingStore('in_progress');
    const { handler, log } = handlerWith({ store, onEvent: () => undefined });
    const r = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(r).toMatchObject({
      status: 409,
      outcome: 'in_progress',
      body: { received: false, error: 'in_progress', message: 'The event is being processed; deliver again later.' },
    });
    expect(log.lines).toEqual([
      {
        level: 'info',
        message: 'webhooks: event already being processed; answered 409 so that the service retries later',
        fields: fieldsOf(env),
      },
    ]);
  });

  it('a store answering something else is a store error: 503, nothing processed', async () => {
    const env = card();
    const { store } = recordingStore('maybe');
    let processed = 0;
    const { handler, log } = handlerWith({ store, onEvent: () => void processed++ });
    const r = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(r).toMatchObject({
      status: 503,
      outcome: 'store_error',
      body: { received: false, error: 'store_error', message: 'The receiver could not record the event; deliver again.' },
    });
    expect(processed).toBe(0);
    expect(log.lines).toEqual([
      {
        level: 'error',
        message: `webhooks: event store claim returned "maybe", expected 'claimed', 'duplicate' or 'in_progress'`,
        fields: fieldsOf(env),
      },
    ]);
  });

  it('a store whose claim throws: 503 (the service delivers again), nothing processed, logged at warn with the cause', async () => {
    const env = card();
    const { handler, log } = handlerWith({
      store: { claim: () => Promise.reject(new Error('redis down')), complete: () => undefined, release: () => undefined },
      onEvent: () => undefined,
    });
    const r = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(r).toMatchObject({
      status: 503,
      outcome: 'store_error',
      event: { event_id: env.event_id },
      body: { received: false, error: 'store_error', message: 'The receiver could not record the event; deliver again.' },
    });
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message:
          'webhooks: the event store could not answer; answered 503 without processing, so that the service delivers the event again: Error: redis down',
        fields: fieldsOf(env),
      },
    ]);
  });

  it('onEvent fails: 500, released, logged at error with the cause', async () => {
    const env = card();
    const { calls, store } = recordingStore();
    const { handler, log } = handlerWith({
      store,
      onEvent: () => {
        throw new TypeError('bad row');
      },
    });
    const r = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(r).toMatchObject({
      status: 500,
      outcome: 'failed',
      body: { received: false, error: 'failed', message: 'The receiver failed to process the event; deliver again.' },
    });
    expect(calls).toEqual([`claim ${env.event_id} 60000`, `release ${env.event_id}`]);
    expect(log.lines).toEqual([
      {
        level: 'error',
        message: 'webhooks: onEvent failed; claim released so that the redelivery is processed: TypeError: bad row',
        fields: fieldsOf(env),
      },
    ]);
  });

  it('onEvent stopping on its abort signal is logged at info, not as a failure', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: Date.UTC(2026, 0, 1) });
    const env = card();
    const { calls, store } = recordingStore();
    const { handler, log } = handlerWith({
      timeoutMs: 50,
      store,
      onEvent: (_e, { signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    });
    const answer = handler.handle(JSON.stringify(env), headersFor(env));
    await vi.advanceTimersByTimeAsync(50);
    expect((await answer).status).toBe(503);
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.at(-1)).toBe(`release ${env.event_id}`);
    expect(log.lines.at(-1)).toEqual({
      level: 'info',
      message: 'webhooks: onEvent stopped on its abort signal; claim released so that the redelivery is processed',
      fields: fieldsOf(env),
    });
  });

  it('a store that cannot complete or release: the answer stands, the problem is logged', async () => {
    const broken = (claim: ClaimResult): EventStore => ({
      claim: () => claim,
      complete: () => Promise.reject(new Error('write failed')),
      release: () => Promise.reject(new Error('write failed')),
    });
    const env = card();
    const ok = handlerWith({ store: broken('claimed'), onEvent: () => undefined });
    expect((await ok.handler.handle(JSON.stringify(env), headersFor(env))).status).toBe(200);
    expect(ok.log.lines).toEqual([
      {
        level: 'error',
        message: 'webhooks: event processed but the store could not record it: Error: write failed',
        fields: fieldsOf(env),
      },
    ]);
    const failing = handlerWith({
      store: broken('claimed'),
      onEvent: () => {
        throw new Error('nope');
      },
    });
    expect((await failing.handler.handle(JSON.stringify(env), headersFor(env))).status).toBe(500);
    expect(failing.log.lines.at(-1)).toEqual({
      level: 'error',
      message: 'webhooks: could not release the claim (it frees when its lease expires): Error: write failed',
      fields: fieldsOf(env),
    });
  });

  it('verify rejecting: 401, logged at warn with its reason and the event id header', async () => {
    const env = card();
    for (const [verify, reason] of [
      [() => false, 'verify returned false.'],
      [() => Promise.resolve('yes'), 'verify returned false.'],
      [
        () => {
          throw new WebhookSignatureError('stale timestamp');
        },
        'stale timestamp',
      ],
      [
        () => {
          throw new RangeError('no key');
        },
        'verify threw: RangeError: no key',
      ],
    ] as const) {
      let processed = 0;
      const { handler, log } = handlerWith({ verify: verify as () => boolean, onEvent: () => void processed++ });
      const r = await handler.handle(JSON.stringify(env), headersFor(env));
      expect(r).toEqual({
        status: 401,
        outcome: 'invalid_signature',
        body: { received: false, error: 'invalid_signature', message: 'Signature verification failed.' },
      });
      expect(processed).toBe(0);
      expect(log.lines).toEqual([
        { level: 'warn', message: `webhooks: delivery rejected by verify: ${reason}`, fields: { eventId: env.event_id } },
      ]);
    }
  });

  it('a malformed event: 400 with the parse message, logged at warn with the reason', async () => {
    const env = card();
    const { handler, log } = handlerWith({ onEvent: () => undefined });
    const r = await handler.handle('{not json', headersFor(env));
    expect(r).toMatchObject({ status: 400, outcome: 'invalid_event', body: { received: false, error: 'invalid_event' } });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'warn', fields: { eventId: env.event_id, reason: 'invalid_json' } });
    expect(log.lines[0]!.message).toMatch(/^webhooks: malformed delivery answered 400: /);
  });

  it('a body that is not raw bytes: 500, logged at error naming the cause', async () => {
    const env = card();
    const { handler, log } = handlerWith({ onEvent: () => undefined });
    const r = await handler.handle(env as unknown as string, headersFor(env));
    expect(r).toMatchObject({
      status: 500,
      outcome: 'raw_body_required',
      body: { received: false, error: 'raw_body_required', message: 'The receiver is misconfigured (the body was not raw).' },
    });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.level).toBe('error');
    expect(log.lines[0]!.message).toMatch(/^webhooks: WebhookParseError: The webhook body was an object/);
  });

  it('a verify hook may be omitted: then a warning at creation, and deliveries are processed', async () => {
    const log = recordingLogger();
    const handler = createWebhookHandler({ onEvent: () => undefined, logger: log.logger });
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'warn' });
    expect(log.lines[0]!.message).toMatch(/^webhooks: no verify hook, so deliveries are not authenticated\./);
    const env = card();
    expect((await handler.handle(JSON.stringify(env), headersFor(env))).status).toBe(200);
  });

  it('an unexpected failure inside the handler is answered 500 and logged, never thrown', async () => {
    const env = card();
    const { handler, log } = handlerWith({ onEvent: () => undefined });
    // Headers whose iteration throws: a framework bug the handler must survive.
    const hostile = {
      get: () => null,
      forEach: () => {
        throw new Error('headers exploded');
      },
    };
    const r = await handler.handle(JSON.stringify(env), hostile);
    expect(r).toEqual({
      status: 500,
      outcome: 'failed',
      body: { received: false, error: 'failed', message: 'The receiver failed; deliver again.' },
    });
    expect(log.lines).toEqual([
      {
        level: 'error',
        message: 'webhooks: unexpected failure while handling a delivery',
        fields: { error: 'Error: headers exploded' },
      },
    ]);
  });
});

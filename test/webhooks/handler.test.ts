import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import {
  MemoryEventStore,
  StatusTracker,
  WebhookTimeoutError,
  createWebhookHandler,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';
import { deliver, envelope, headersFor, post, recordingLogger, shuffled, startReceiver, type Envelope, type Receiver } from './helpers.js';

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function serve(options: Omit<WebhookHandlerOptions, 'logger'>) {
  const log = recordingLogger();
  const handler = createWebhookHandler({ ...options, logger: log.logger });
  receiver = await startReceiver(handler);
  return { url: receiver.url, log, handler };
}

const card = (id: string, status: string, version: number): Envelope =>
  envelope('card.status.updated', { object: 'card', id, status, status_version: version });

describe('createWebhookHandler over node:http', () => {
  it('processes each event id once under duplicates', async () => {
    const seen: string[] = [];
    const { url } = await serve({ onEvent: (e) => void seen.push(e.event_id) });
    const events = [card('crd_1', 'active', 1), card('crd_2', 'frozen', 1), card('crd_3', 'active', 2)];
    const copies = events.flatMap((e) => [e, e, e]);
    const answers = [];
    for (const env of shuffled(copies, 7)) answers.push(...(await deliver(url, env)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(seen.sort()).toEqual(events.map((e) => e.event_id).sort());
    expect(answers.filter((a) => (a.body as { duplicate?: boolean }).duplicate === true)).toHaveLength(6);
  });

  it('answers duplicates arriving concurrently with 2xx once processed, or non-2xx while in progress', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    let onStarted!: () => void;
    const started = new Promise<void>((r) => (onStarted = r));
    const { url } = await serve({
      onEvent: async () => {
        calls++;
        onStarted();
        await gate;
      },
    });
    const env = card('crd_1', 'active', 1);
    const first = post(url, JSON.stringify(env), headersFor(env));
    // Once the first delivery holds the claim (its onEvent runs), send the copy.
    await started;
    const second = await post(url, JSON.stringify(env), headersFor(env));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ received: false, error: 'in_progress' });
    release();
    expect((await first).status).toBe(200);
    expect((await post(url, JSON.stringify(env), headersFor(env))).status).toBe(200);
    expect(calls).toBe(1);
  });

  it('a failing handler answers 500 and gets the event again, processing it on redelivery', async () => {
    let attempts = 0;
    const processed: string[] = [];
    const { url, log } = await serve({
      onEvent: (e) => {
        attempts++;
        if (attempts === 1) throw new Error('database down');
        processed.push(e.event_id);
      },
    });
    const env = card('crd_1', 'active', 1);
    const answers = await deliver(url, env, 5);
    expect(answers.map((a) => a.status)).toEqual([500, 200]);
    expect(answers[0]?.body).toMatchObject({ received: false, error: 'failed' });
    expect(JSON.stringify(answers[0]?.body)).not.toContain('database down');
    expect(processed).toEqual([env.event_id]);
    expect(log.lines.some((l) => l.level === 'error' && l.message.includes('claim released') && l.message.includes('database down'))).toBe(
      true,
    );
    expect((await deliver(url, env))[0]?.body).toEqual({ received: true, duplicate: true });
  });

  it('the final tracked status is the highest version under shuffled, duplicated delivery', async () => {
    const tracker = new StatusTracker();
    const { url } = await serve({ onEvent: (e) => void tracker.applyEvent(e) });
    const statuses = ['unactivated', 'active', 'frozen', 'unfreezing', 'active', 'frozen', 'unfreezing', 'active'];
    const events = statuses.map((s, i) => card('crd_7', s, i + 1));
    for (const seed of [1, 2, 3]) {
      for (const env of shuffled([...events, ...events], seed)) await deliver(url, env);
    }
    expect(tracker.get('card:crd_7')).toMatchObject({ status: 'active', statusVersion: 8 });
  });

  it('unknown event types reach onEvent as unknown', async () => {
    const got: WebhookEvent[] = [];
    const { url } = await serve({ onEvent: (e) => void got.push(e) });
    const env = envelope('wealth.order.settled', {
      object: 'earn_order',
      id: 'ern_1',
      status: 'settled',
      status_version: 3,
      product: 'p1',
    });
    expect((await deliver(url, env))[0]?.status).toBe(200);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ known: false, event_type: 'wealth.order.settled', data: { id: 'ern_1', product: 'p1' } });
  });

  it('bounds onEvent time: answers 503, aborts its signal, releases the claim, and processes the redelivery', async () => {
    let attempts = 0;
    let reason: unknown;
    const { url, log } = await serve({
      timeoutMs: 50,
      onEvent: (_e, { signal }) => {
        attempts++;
        if (attempts > 1) return;
        // Never finishes on its own; stops when aborted, as a well-behaved handler should.
        return new Promise<void>((_, reject) =>
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            reject(signal.reason);
          }),
        );
      },
    });
    const env = card('crd_1', 'active', 1);
    const answers = await deliver(url, env, 5);
    expect(answers.map((a) => a.status)).toEqual([503, 200]);
    expect(answers[0]?.body).toMatchObject({ error: 'timeout' });
    expect(reason).toBeInstanceOf(WebhookTimeoutError);
    expect(attempts).toBe(2);
    expect(log.lines.some((l) => l.level === 'error' && l.message.includes('did not finish within 50 ms'))).toBe(true);
  });

  it('a handler that outlives its bound holds the claim until it settles, then counts as processed', async () => {
    let finish!: () => void;
    const done = new Promise<void>((r) => (finish = r));
    let calls = 0;
    const store = new MemoryEventStore();
    const { url, log } = await serve({
      timeoutMs: 20,
      store,
      onEvent: async () => {
        calls++;
        await done; // ignores its abort signal
      },
    });
    const env = card('crd_1', 'active', 1);
    expect((await deliver(url, env))[0]?.status).toBe(503);
    expect((await deliver(url, env))[0]?.status).toBe(409);
    finish();
    await log.logged('recorded as processed');
    expect((await deliver(url, env))[0]?.body).toEqual({ received: true, duplicate: true });
    expect(calls).toBe(1);
  });

  it('logs a warning when onEvent finishes close to the bound', async () => {
    const { url, log } = await serve({ timeoutMs: 5000, warnAfterMs: 0, onEvent: () => undefined });
    await deliver(url, card('crd_1', 'active', 1));
    expect(log.lines.some((l) => l.level === 'warn' && l.message.includes('close to the bound of 5000 ms'))).toBe(true);
  });
});

describe('verification and malformed deliveries', () => {
  it('calls verify first with the exact bytes; a rejection answers 401 and nothing is parsed or processed', async () => {
    const seen: Array<{ body: string; sig: string | undefined }> = [];
    let processed = 0;
    const { url } = await serve({
      verify: (raw, headers) => {
        seen.push({ body: new TextDecoder().decode(raw), sig: headers['z-signature'] });
        return headers['z-signature'] === 'good';
      },
      onEvent: () => void processed++,
    });
    const env = card('crd_1', 'active', 1);
    const body = ` ${JSON.stringify(env, null, 2)}\n`;
    expect((await post(url, body, headersFor(env, { 'z-signature': 'bad' }))).status).toBe(401);
    // Not JSON at all: still 401, because verify runs before parsing.
    expect((await post(url, 'not json', { 'z-signature': 'bad' })).status).toBe(401);
    expect((await post(url, body, headersFor(env, { 'z-signature': 'good' }))).status).toBe(200);
    expect(seen[0]?.body).toBe(body);
    expect(processed).toBe(1);
  });

  it('a verify hook that throws or resolves false is a rejection', async () => {
    for (const verify of [
      () => Promise.resolve(false),
      () => {
        throw new Error('no key');
      },
    ]) {
      const handler = createWebhookHandler({ verify, onEvent: () => undefined, logger: {} });
      const env = card('crd_1', 'active', 1);
      const r = await handler.handle(JSON.stringify(env), headersFor(env));
      expect(r).toMatchObject({ status: 401, outcome: 'invalid_signature' });
    }
  });

  it('answers 400 only for what cannot be an event (not JSON, no event_id, header id differs), without calling onEvent', async () => {
    let processed = 0;
    const { url } = await serve({ onEvent: () => void processed++ });
    const env = card('crd_1', 'active', 1);
    const bad = await post(url, JSON.stringify(env), headersFor(env, { 'z-event-id': 'evt_someoneelse' }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ received: false, error: 'invalid_event' });
    expect((await post(url, '{"event_type":"x"}', headersFor({ event_id: 'evt_1', event_type: 'x' }))).status).toBe(400);
    expect((await post(url, '{not json', headersFor({ event_id: 'evt_1', event_type: 'x' }))).status).toBe(400);
    expect((await post(url, '[1,2]', headersFor({ event_id: 'evt_1', event_type: 'x' }))).status).toBe(400);
    expect(processed).toBe(0);
  });

  it('refuses bodies over maxBodyBytes with 413, and non-POST with 405', async () => {
    const { url } = await serve({ maxBodyBytes: 100, onEvent: () => undefined });
    const env = card('crd_1', 'active', 1);
    expect((await post(url, JSON.stringify(env), headersFor(env))).status).toBe(413);
    const get = await post(url, '', {}, 'PUT');
    expect(get.status).toBe(405);
    expect(get.headers['allow']).toBe('POST');
  });

  it('a body already parsed by a JSON middleware is answered 500 with a log line naming the cause', async () => {
    const log = recordingLogger();
    const handler = createWebhookHandler({ onEvent: () => undefined, logger: log.logger });
    const env = card('crd_1', 'active', 1);
    receiver = await startReceiver((req, res) => {
      Object.assign(req, { body: env }); // what express.json() leaves behind
      handler(req, res);
    });
    const r = await post(receiver.url, JSON.stringify(env), headersFor(env));
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ error: 'raw_body_required' });
    expect(log.lines.some((l) => l.message.includes('pass the raw body, not req.body parsed by a JSON middleware'))).toBe(true);
  });

  it('uses a raw Buffer body left by express.raw()', async () => {
    let processed = 0;
    const handler = createWebhookHandler({ onEvent: () => void processed++, logger: {} });
    receiver = await startReceiver((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        Object.assign(req, { body: Buffer.concat(chunks) });
        handler(req, res);
      });
    });
    const env = card('crd_1', 'active', 1);
    expect((await post(receiver.url, JSON.stringify(env), headersFor(env))).status).toBe(200);
    expect(processed).toBe(1);
  });

  it('a store failure answers 503 and processes nothing', async () => {
    let processed = 0;
    const handler = createWebhookHandler({
      logger: {},
      onEvent: () => void processed++,
      store: { claim: () => Promise.reject(new Error('redis down')), complete: () => undefined, release: () => undefined },
    });
    const env = card('crd_1', 'active', 1);
    expect(await handler.handle(JSON.stringify(env), headersFor(env))).toMatchObject({ status: 503, outcome: 'store_error' });
    expect(processed).toBe(0);
  });

  it('warns once at creation when there is no verify hook', () => {
    const log = recordingLogger();
    createWebhookHandler({ onEvent: () => undefined, logger: log.logger });
    expect(log.lines.filter((l) => l.level === 'warn' && l.message.includes('not authenticated'))).toHaveLength(1);
  });

  it('rejects a time bound at or above the 10-second delivery timeout', () => {
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 10_000 })).toThrow(InvalidArgumentError);
    expect(() => createWebhookHandler({ onEvent: () => undefined, timeoutMs: 5000, claimTtlMs: 5000 })).toThrow(InvalidArgumentError);
  });
});

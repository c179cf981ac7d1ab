/**
 * The receiver's edges through its public `handle()`: settings refused at construction, a verify
 * hook that throws something else than a signature error, headers as frameworks hand them over
 * (arrays, undefined values, mixed case), and an event store that misbehaves.
 */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors/errors.js';
import { StatusTracker, createWebhookHandler, type EventStore } from '../../src/webhooks/index.js';
import { envelope, headersFor, recordingLogger } from './helpers.js';

const card = () => envelope('card.status.updated', { object: 'card', id: 'crd_1', status: 'active', status_version: 1 });

describe('createWebhookHandler edges', () => {
  it('refuses a maxBodyBytes that is not positive and a verify that is not a function', () => {
    expect(() => createWebhookHandler({ onEvent: () => undefined, maxBodyBytes: 0 })).toThrow(InvalidArgumentError);
    expect(() => createWebhookHandler({ onEvent: () => undefined, verify: 5 as never })).toThrow(/verify/);
  });

  it('a verify hook that throws a plain error is a 401, its cause named in the log, onEvent never called', async () => {
    const log = recordingLogger();
    let handled = 0;
    const handler = createWebhookHandler({
      onEvent: () => void handled++,
      verify: () => {
        throw new TypeError('keys not loaded');
      },
      logger: log.logger,
    });
    const env = card();
    const res = await handler.handle(JSON.stringify(env), headersFor(env));
    expect(res.status).toBe(401);
    expect(handled).toBe(0);
    expect(log.lines.map((l) => l.message).join('\n')).toContain('verify threw: TypeError: keys not loaded');
  });

  it('reads headers given as arrays, with undefined values and in any case', async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler({ onEvent: (e) => void seen.push(e.event_id), logger: {} });
    const env = card();
    const headers = {
      'Content-Type': ['application/json'],
      'Z-Event-Id': [env.event_id],
      'z-event-type': env.event_type,
      'x-absent': undefined,
    };
    const res = await handler.handle(JSON.stringify(env), headers);
    expect(res.status).toBe(200);
    expect(seen).toEqual([env.event_id]);
    // Two values of one header are joined: an id header that no longer equals the body's is refused.
    const again = await handler.handle(JSON.stringify(env), { 'z-event-id': [env.event_id, 'evt_other'], 'Z-Event-Id': undefined });
    expect(again.status).toBe(400);
  });

  it('a store whose claim answers something unknown is a 503 store_error; complete and release failures are logged', async () => {
    const log = recordingLogger();
    const odd: EventStore = { claim: () => 'maybe' as never, complete: () => undefined, release: () => undefined };
    const strange = createWebhookHandler({ onEvent: () => undefined, store: odd, logger: log.logger });
    const env = card();
    expect((await strange.handle(JSON.stringify(env), headersFor(env))).body).toMatchObject({ received: false, error: 'store_error' });

    const failing: EventStore = {
      claim: () => 'claimed',
      complete: () => Promise.reject(new Error('redis down on complete')),
      release: () => Promise.reject(new Error('redis down on release')),
    };
    const processed = createWebhookHandler({ onEvent: () => undefined, store: failing, logger: log.logger });
    expect((await processed.handle(JSON.stringify(env), headersFor(env))).status).toBe(200);
    const refused = createWebhookHandler({
      onEvent: () => {
        throw new Error('handler bug');
      },
      store: failing,
      logger: log.logger,
    });
    expect((await refused.handle(JSON.stringify(env), headersFor(env))).status).toBe(500);
    const text = log.lines.map((l) => l.message).join('\n');
    expect(text).toContain('claim returned "maybe"');
    expect(text).toContain('redis down on complete');
    expect(text).toContain('redis down on release');
  });
});

describe('StatusTracker.delete', () => {
  it('forgets a resource, so an older version applies again', () => {
    const tracker = new StatusTracker();
    expect(tracker.apply('card:crd_1', 'active', 5)).toBe(true);
    expect(tracker.delete('card:crd_1')).toBe(true);
    expect(tracker.delete('card:crd_1')).toBe(false);
    expect(tracker.apply('card:crd_1', 'unactivated', 1)).toBe(true);
  });
});

describe('the bytes verify receives', () => {
  const secret = 'whsec_runtime_neutral';
  /** A verify hook as it runs on every runtime: TextEncoder and Web Crypto, no Buffer. */
  const webCryptoVerify = async (raw: Uint8Array, headers: Record<string, string | undefined>): Promise<boolean> => {
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, raw));
    return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('') === headers['z-signature'];
  };
  const signed = async (body: string): Promise<string> => {
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    return Array.from(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(body))), (b) =>
      b.toString(16).padStart(2, '0'),
    ).join('');
  };

  it('are the exact bytes of a string, a Uint8Array view or a Buffer; a Web Crypto hook accepts them and refuses one changed byte', async () => {
    const env = card();
    const body = JSON.stringify({ ...env, note: 'café ✓' });
    const headers = headersFor(env, { 'z-signature': await signed(body) });
    const processed: string[] = [];
    const handler = createWebhookHandler({ onEvent: (e) => void processed.push(e.event_id), verify: webCryptoVerify, logger: {} });
    // A view into a larger buffer: only its own bytes count.
    const padded = new TextEncoder().encode(`xx${body}yy`);
    const view = new Uint8Array(padded.buffer, 2, padded.byteLength - 4);
    expect((await handler.handle(view, headers)).status).toBe(200);
    expect((await handler.handle(body, headers)).outcome).toBe('duplicate');
    expect((await handler.handle(Buffer.from(body), headers)).outcome).toBe('duplicate');
    expect((await handler.handle(body.replace('café', 'cafe'), headers)).status).toBe(401);
    expect(processed).toEqual([env.event_id]);
  });

  it('are a Buffer on Node, so that a hook written for Node (toString with an encoding) keeps working', async () => {
    const seen: string[] = [];
    const handler = createWebhookHandler({
      onEvent: () => undefined,
      verify: (raw) => {
        expect(Buffer.isBuffer(raw)).toBe(true);
        seen.push((raw as Buffer).toString('utf8'));
        return true;
      },
      logger: {},
    });
    const env = card();
    const body = JSON.stringify(env);
    expect((await handler.handle(new TextEncoder().encode(body), headersFor(env))).status).toBe(200);
    expect(seen).toEqual([body]);
  });
});

import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  KNOWN_EVENT_TYPES,
  NAMED_EVENT_TYPES,
  WebhookParseError,
  isEventType,
  parseEvent,
  type Card3dsReceivedEvent,
  type WebhookEvent,
} from '../../src/webhooks/index.js';
import { MerchantSdkError } from '../../src/core/errors/errors.js';
import { envelope, headersFor } from './helpers.js';

function parse(env: object & { event_id: string; event_type: string }, headers = headersFor(env)): WebhookEvent {
  return parseEvent(JSON.stringify(env), headers);
}

function parseError(fn: () => unknown): WebhookParseError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookParseError);
    expect(err).toBeInstanceOf(MerchantSdkError);
    return err as WebhookParseError;
  }
  throw new Error('expected a WebhookParseError');
}

describe('parseEvent: typed events', () => {
  it('card.3ds.received with every field', () => {
    const env = envelope('card.3ds.received', {
      object: 'card',
      id: 'crd_1',
      status: 'received',
      otp_code: '123456',
      application_id: 'cap_9',
      expires_at: '2026-09-01T10:05:00Z',
    });
    const event = parse(env);
    expect(event.known).toBe(true);
    if (!isEventType(event, 'card.3ds.received')) throw new Error('narrowing failed');
    expectTypeOf(event).toEqualTypeOf<Card3dsReceivedEvent>();
    expect(event.data.otp_code).toBe('123456');
    expect(event.data.application_id).toBe('cap_9');
    expect(event.data.expires_at).toBe('2026-09-01T10:05:00Z');
    expect(event.event_id).toBe(env.event_id);
  });

  it('card.3ds.received without the optional application_id and expires_at', () => {
    const event = parse(envelope('card.3ds.received', { object: 'card', id: 'crd_1', status: 'received', otp_code: '1' }));
    if (!event.known || event.event_type !== 'card.3ds.received') throw new Error('expected 3ds');
    expect(event.data.application_id).toBeUndefined();
    expect(event.data.expires_at).toBeUndefined();
  });

  it('card.3ds.received without otp_code is malformed', () => {
    const err = parseError(() => parse(envelope('card.3ds.received', { object: 'card', id: 'crd_1', status: 'received' })));
    expect(err.reason).toBe('invalid_event_data');
    expect(err.issues.map((i) => i.path.join('.'))).toContain('data.otp_code');
  });

  it('exchange.order.executed (status_version always 0)', () => {
    const event = parse(
      envelope('exchange.order.executed', {
        object: 'exchange_order',
        id: '6f1c0a5e-0000-4000-8000-000000000001',
        status: 'executed',
        status_version: 0,
      }),
    );
    if (!event.known || event.event_type !== 'exchange.order.executed') throw new Error('expected exchange');
    expectTypeOf(event.data.status_version).toEqualTypeOf<0>();
    expect(event.data.status).toBe('executed');
  });

  it('exchange.order.executed with another status_version is malformed', () => {
    const err = parseError(() =>
      parse(envelope('exchange.order.executed', { object: 'exchange_order', id: 'u', status: 'executed', status_version: 3 })),
    );
    expect(err.reason).toBe('invalid_event_data');
  });

  it('card.topup.credited, including the initial first:<uuid> id', () => {
    for (const id of ['ctp_1', 'first:2b0f9c1e-0000-4000-8000-000000000002']) {
      const event = parse(envelope('card.topup.credited', { object: 'card_topup', id, status: 'credited' }));
      expect(event.known && event.event_type === 'card.topup.credited' && event.data.id).toBe(id);
    }
  });

  it('named-only events type the envelope and pass data through', () => {
    for (const type of NAMED_EVENT_TYPES) {
      const event = parse(envelope(type, { object: 'card', id: 'crd_1', status: 'active', status_version: 4, reason_hint: 'x' }));
      expect(event.known).toBe(true);
      expect(event.event_type).toBe(type);
      expect(event.data.status_version).toBe(4);
      expect(event.data['reason_hint']).toBe('x');
    }
  });

  it('unknown envelope fields pass through', () => {
    const event = parse(envelope('card.activated', { object: 'card', id: 'crd_1', status: 'active' }, { api_version: '2026-09' }));
    expect(event['api_version']).toBe('2026-09');
  });
});

describe('parseEvent: unknown event types', () => {
  it('returns them as known: false instead of rejecting', () => {
    const event = parse(envelope('card.closed.v2', { object: 'card', id: 'crd_1', status: 'closed', status_version: 9 }));
    expect(event.known).toBe(false);
    expect(event.event_type).toBe('card.closed.v2');
    expect(event.data.status).toBe('closed');
    expect((KNOWN_EVENT_TYPES as readonly string[]).includes(event.event_type)).toBe(false);
  });

  it('narrows known types after checking known', () => {
    const event = parse(envelope('card.3ds.received', { object: 'card', id: 'crd_1', status: 'received', otp_code: '77' }));
    if (!event.known) throw new Error('expected known');
    switch (event.event_type) {
      case 'card.3ds.received':
        expectTypeOf(event.data.otp_code).toEqualTypeOf<string>();
        expect(event.data.otp_code).toBe('77');
        break;
      default:
        throw new Error('expected 3ds');
    }
  });
});

describe('parseEvent: headers', () => {
  const env = envelope('card.activated', { object: 'card', id: 'crd_1', status: 'active' });

  it('rejects a z-event-id that differs from the body', () => {
    const err = parseError(() => parse(env, headersFor(env, { 'z-event-id': 'evt_other' })));
    expect(err.reason).toBe('header_mismatch');
    expect(err.message).toContain('z-event-id');
  });

  it('rejects a z-event-type that differs from the body', () => {
    const err = parseError(() => parse(env, headersFor(env, { 'z-event-type': 'card.status.updated' })));
    expect(err.reason).toBe('header_mismatch');
    expect(err.message).toContain('z-event-type');
  });

  it('rejects missing event headers', () => {
    const err = parseError(() => parse(env, { 'content-type': 'application/json' }));
    expect(err.reason).toBe('missing_header');
  });

  it('matches header names without regard to case, and accepts Fetch Headers', () => {
    expect(parse(env, { 'Z-Event-Id': env.event_id, 'Z-EVENT-TYPE': env.event_type }).event_id).toBe(env.event_id);
    const headers = new Headers({ 'z-event-id': env.event_id, 'z-event-type': env.event_type });
    expect(parseEvent(JSON.stringify(env), headers).event_type).toBe('card.activated');
  });
});

describe('parseEvent: malformed input', () => {
  const env = envelope('card.activated', { object: 'card', id: 'crd_1', status: 'active' });

  it('names the usual cause when given a parsed object', () => {
    const err = parseError(() => parseEvent(env as unknown as string, headersFor(env)));
    expect(err.reason).toBe('raw_body_required');
    expect(err.message).toContain('pass the raw body, not req.body parsed by a JSON middleware');
  });

  it('accepts the raw bytes as a Buffer or Uint8Array', () => {
    const bytes = Buffer.from(JSON.stringify(env));
    expect(parseEvent(bytes, headersFor(env)).event_id).toBe(env.event_id);
    expect(parseEvent(new Uint8Array(bytes), headersFor(env)).event_id).toBe(env.event_id);
  });

  it('rejects invalid JSON and invalid UTF-8', () => {
    expect(parseError(() => parseEvent('{"event_id":', headersFor(env))).reason).toBe('invalid_json');
    expect(parseError(() => parseEvent(Buffer.from([0x7b, 0xff, 0x7d]), headersFor(env))).reason).toBe('invalid_utf8');
  });

  it('rejects envelopes missing fields or with wrong types', () => {
    const cases: Array<[string, unknown]> = [
      ['event_id', 'abc'],
      ['livemode', 'false'],
      ['created_at', undefined],
    ];
    for (const [field, value] of cases) {
      const bad = { ...env, [field]: value };
      const err = parseError(() => parseEvent(JSON.stringify(bad), headersFor(env)));
      expect(err.reason).toBe('invalid_envelope');
      expect(err.issues[0]?.path).toEqual([field]);
    }
    const noVersion = { ...env, data: { ...env.data, status_version: 1.5 } };
    expect(parseError(() => parseEvent(JSON.stringify(noVersion), headersFor(env))).issues[0]?.path).toEqual(['data', 'status_version']);
    expect(parseError(() => parseEvent('[]', headersFor(env))).reason).toBe('invalid_envelope');
  });

  it('says in the message which field failed and why', () => {
    const empty = { ...env, created_at: '' };
    const emptyErr = parseError(() => parseEvent(JSON.stringify(empty), headersFor(env)));
    expect(emptyErr.message).toContain('created_at: Too small: expected string of at least 1');
    const wrongObject = envelope('card.topup.credited', { object: 'card', id: 'ctp_1', status: 'credited' });
    const literalErr = parseError(() => parse(wrongObject));
    expect(literalErr.reason).toBe('invalid_event_data');
    expect(literalErr.message).toContain('data.object: Invalid input: expected "card_topup"');
  });
});

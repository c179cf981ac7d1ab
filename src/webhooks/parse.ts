import type * as z from 'zod/mini';
import { tryParseJson } from '../core/attempts/response.js';
import { SCHEMA_PARSE_CONTEXT } from '../core/attempts/result.js';
import { WebhookParseError, type WebhookIssue } from './errors.js';
import { isKnownEventType } from './event-types.js';
import type { WebhookEvent } from './events.js';
import { normalizeHeaders, type WebhookHeaders } from './headers.js';
import { decodeUtf8, toRawBytes } from './raw-body.js';
import { card3dsReceivedDataSchema, cardTopupCreditedDataSchema, envelopeSchema, exchangeOrderExecutedDataSchema } from './schemas.js';

/** Schemas of the `data` of the types whose payload the spec shows. */
const DATA_SCHEMAS: Readonly<Record<string, z.ZodMiniType>> = {
  'card.3ds.received': card3dsReceivedDataSchema,
  'exchange.order.executed': exchangeOrderExecutedDataSchema,
  'card.topup.credited': cardTopupCreditedDataSchema,
};

function issuesOf(error: z.core.$ZodError, prefix: readonly PropertyKey[] = []): WebhookIssue[] {
  return error.issues.map((i) => ({ path: [...prefix, ...i.path], message: i.message }));
}

function describe(issues: readonly WebhookIssue[]): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

/**
 * Parses one webhook delivery into a typed event.
 *
 * Validates the envelope (Events > Delivery contract), checks that the `z-event-id` and
 * `z-event-type` headers match the body, and types `data` by `event_type`: the three types
 * whose payload the spec shows get their extra fields typed, the types it only names get the
 * envelope typed with `data` passed through, and any other type comes back as an
 * {@link UnknownEvent} (`known: false`), not as an error.
 *
 * It does not verify `z-signature` (the spec does not publish the procedure): do that first,
 * with the service's scheme, or pass `verify` to `createWebhookHandler`.
 *
 * @param rawBody - The exact body received (string or bytes), never a parsed object.
 * @param headers - The request headers (any casing; Node, Express, Fastify or Fetch).
 * @throws WebhookParseError when the body or headers are malformed (answer 400), or when the
 *   body is not raw (`raw_body_required`).
 */
export function parseEvent(rawBody: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  const json = readJson(rawBody);
  const envelope = envelopeSchema.safeParse(json, SCHEMA_PARSE_CONTEXT);
  if (!envelope.success) {
    const issues = issuesOf(envelope.error);
    throw new WebhookParseError('invalid_envelope', `The webhook body is not an event envelope: ${describe(issues)}.`, issues);
  }
  const event = envelope.data;
  checkHeaders(normalizeHeaders(headers), event.event_id, event.event_type);
  return typeData(event);
}

/**
 * What the webhook handler does once `verify` passed: only a body that cannot be an event is
 * refused (not JSON, no `event_id`, a `z-event-id` header that differs from it); anything else
 * that {@link parseEvent} would refuse comes back as a {@link NonConformingEvent} with its issues.
 *
 * @throws WebhookParseError when the body cannot be an event.
 */
export function receiveEvent(rawBody: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  const json = readJson(rawBody);
  const body = isRecord(json) ? json : {};
  const normalized = normalizeHeaders(headers);
  const eventId = checkEventId(body, normalized);
  try {
    return parseEvent(rawBody, normalized);
  } catch (err) {
    if (!(err instanceof WebhookParseError)) throw err;
    const bodyType = body['event_type'];
    return {
      ...body,
      event_id: eventId,
      event_type: typeof bodyType === 'string' ? bodyType : (normalized['z-event-type']?.trim() ?? ''),
      data: isRecord(body['data']) ? body['data'] : {},
      known: false,
      conforms: false,
      issues: err.issues.length > 0 ? err.issues : [{ path: [], message: err.message }],
    };
  }
}

/** The body's event id, which must be there and equal the `z-event-id` header when that is sent. */
function checkEventId(body: Readonly<Record<string, unknown>>, headers: Readonly<Record<string, string>>): string {
  const eventId = body['event_id'];
  if (typeof eventId !== 'string' || eventId.trim() === '') {
    throw new WebhookParseError('invalid_envelope', 'The webhook body has no event_id, so it cannot be an event.', [
      { path: ['event_id'], message: 'an event id string is required' },
    ]);
  }
  const headerId = headers['z-event-id']?.trim();
  if (headerId !== undefined && headerId !== '' && headerId !== eventId) {
    throw new WebhookParseError(
      'header_mismatch',
      `The z-event-id header (${truncate(headerId)}) does not match the body (${truncate(eventId)}).`,
    );
  }
  return eventId;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readJson(rawBody: string | Uint8Array): unknown {
  const text = decodeUtf8(toRawBytes(rawBody));
  // Parsed as the client parses responses: a `__proto__` member never becomes a prototype.
  const json = tryParseJson(text);
  if (json === undefined) throw new WebhookParseError('invalid_json', 'The webhook body is not valid JSON.');
  return json;
}

function typeData(event: z.output<typeof envelopeSchema>): WebhookEvent {
  if (!isKnownEventType(event.event_type)) return { ...event, known: false };
  const schema = DATA_SCHEMAS[event.event_type];
  if (schema === undefined) return { ...event, known: true } as WebhookEvent;
  const data = schema.safeParse(event.data, SCHEMA_PARSE_CONTEXT);
  if (!data.success) {
    const issues = issuesOf(data.error, ['data']);
    throw new WebhookParseError(
      'invalid_event_data',
      `The data of ${event.event_type} ${event.event_id} does not match the spec: ${describe(issues)}.`,
      issues,
    );
  }
  return { ...event, data: data.data, known: true } as WebhookEvent;
}

function checkHeaders(headers: Readonly<Record<string, string>>, eventId: string, eventType: string): void {
  for (const [name, expected] of [
    ['z-event-id', eventId],
    ['z-event-type', eventType],
  ] as const) {
    const value = headers[name];
    if (value === undefined || value.trim() === '') {
      throw new WebhookParseError('missing_header', `The ${name} header is missing; the service sends it with every delivery.`);
    }
    if (value.trim() !== expected) {
      throw new WebhookParseError(
        'header_mismatch',
        `The ${name} header (${truncate(value)}) does not match the body (${truncate(expected)}).`,
      );
    }
  }
}

function truncate(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
}

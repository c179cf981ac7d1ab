import type * as z from 'zod/mini';
import type { WebhookIssue } from './errors.js';
import type { KnownEventType, NamedEventType } from './event-types.js';
import type {
  card3dsReceivedDataSchema,
  cardTopupCreditedDataSchema,
  eventDataSchema,
  exchangeOrderExecutedDataSchema,
} from './schemas.js';

/** `data` fields every event carries: identifiers and status only, never amounts. */
export interface EventData extends z.infer<typeof eventDataSchema> {}
/** `data` of `card.3ds.received`. `otp_code` is a secret of the end user: never log it. */
export interface Card3dsReceivedData extends z.infer<typeof card3dsReceivedDataSchema> {}
/** `data` of `exchange.order.executed`. */
export interface ExchangeOrderExecutedData extends z.infer<typeof exchangeOrderExecutedDataSchema> {}
/** `data` of `card.topup.credited`. */
export interface CardTopupCreditedData extends z.infer<typeof cardTopupCreditedDataSchema> {}

/** Envelope fields of every event (Events > Delivery contract). Unknown fields pass through. */
export interface EventEnvelope<TType extends string, TData extends EventData> {
  /** `evt_<hex>`; the deduplication key, equal to the `z-event-id` header. */
  readonly event_id: string;
  /** Event type, equal to the `z-event-type` header. */
  readonly event_type: TType;
  /** ISO 8601, as sent. */
  readonly created_at: string;
  /** The merchant the event belongs to. */
  readonly merchant_id: string;
  /** False for sandbox events. */
  readonly livemode: boolean;
  /** Identifiers and status of the resource; fetch the resource for anything else. */
  readonly data: TData;
  /** Envelope fields the spec does not list. */
  readonly [extra: string]: unknown;
}

/** An event of a type the spec names (`known: true`), discriminated on `event_type`. */
export type KnownEvent<TType extends KnownEventType, TData extends EventData> = EventEnvelope<TType, TData> & {
  /** True: the type is one the spec names. */
  readonly known: true;
};

/** A 3DS or OTP code from the issuing provider was stored. Not a card status change. */
export type Card3dsReceivedEvent = KnownEvent<'card.3ds.received', Card3dsReceivedData>;
/** An internal exchange was executed (terminal; `status_version` is always 0). */
export type ExchangeOrderExecutedEvent = KnownEvent<'exchange.order.executed', ExchangeOrderExecutedData>;
/** Card top-up funds reached the card or its shared limit pool. */
export type CardTopupCreditedEvent = KnownEvent<'card.topup.credited', CardTopupCreditedData>;
/** An event the spec names without a payload shape: envelope typed, `data` passed through. */
export type NamedEvent<TType extends NamedEventType = NamedEventType> = TType extends NamedEventType ? KnownEvent<TType, EventData> : never;

/**
 * An event of a type the spec does not name. Returned, never rejected (Versioning: new event
 * types are added without notice); show or ignore it. Check `known` before switching on
 * `event_type`, so that TypeScript narrows the known types.
 */
export type UnknownEvent = EventEnvelope<string, EventData> & {
  /** False: the type is not one the spec names. */
  readonly known: false;
};

/**
 * A delivery that passed `verify` and carries an event id, but does not match the SDK's typing:
 * an envelope field or `data` missing or of another type, the `data` of a typed event deviating
 * from the spec (no `otp_code`, a non-zero `status_version` on `exchange.order.executed`, a null
 * `external_member_id`, ...), or a `z-event-type` header that differs from the body.
 *
 * The webhook handler hands it to `onEvent` instead of answering 400, because the service would
 * redeliver a refused event until it gives up, and the event would be lost. Every field is as
 * received (`data` may be any JSON value); `issues` says what differs. Narrow with
 * {@link isNonConformingEvent}. `parseEvent` throws for such a body instead.
 */
export interface NonConformingEvent {
  /** False: the event cannot be handled as one of the typed events. */
  readonly known: false;
  /** False: marks this variant (see {@link isNonConformingEvent}). */
  readonly conforms: false;
  /** `event_id` of the body, equal to the `z-event-id` header when that is present. */
  readonly event_id: string;
  /** `event_type` of the body when it is a string, else the `z-event-type` header, else `''`. */
  readonly event_type: string;
  /**
   * The body's `data` as received when it is a JSON object, else `{}` (then an issue at `data`
   * says what was received). Its fields are `unknown` until checked.
   */
  readonly data: Readonly<Record<string, unknown>>;
  /** What differs from the SDK's typing, with paths (`['data', 'otp_code']`). */
  readonly issues: readonly WebhookIssue[];
  /** Every other field of the body, as received. */
  readonly [extra: string]: unknown;
}

/** An event of a type the spec names. */
export type KnownWebhookEvent = Card3dsReceivedEvent | ExchangeOrderExecutedEvent | CardTopupCreditedEvent | NamedEvent;

/**
 * What {@link parseEvent} returns: narrow with `event.known`, then switch on `event.event_type`
 * (or use {@link isEventType}).
 *
 * @example
 * if (!event.known) return log('ignored', event.event_type);
 * switch (event.event_type) {
 *   case 'card.3ds.received': showOtp(event.data.otp_code); break;
 * }
 */
export type WebhookEvent = KnownWebhookEvent | UnknownEvent | NonConformingEvent;

/**
 * Whether an event is a {@link NonConformingEvent}: it passed `verify` but does not match the
 * SDK's typing. Read its `issues`; its fields are as received.
 */
export function isNonConformingEvent(event: WebhookEvent): event is NonConformingEvent {
  return (event as { readonly conforms?: unknown }).conforms === false && Array.isArray((event as { readonly issues?: unknown }).issues);
}

/** The `data` fields every event carries, read leniently (a field of another type is absent). */
interface EventDataFields {
  readonly object?: string;
  readonly id?: string;
  readonly external_member_id?: string;
  readonly status?: string;
  readonly status_version?: number;
}

/** Reads the common `data` fields of any event, conforming or not. */
export function dataFieldsOf(event: WebhookEvent): EventDataFields {
  const d: Readonly<Record<string, unknown>> = event.data;
  const text = (key: string): string | undefined => (typeof d[key] === 'string' ? d[key] : undefined);
  const version = d['status_version'];
  return {
    ...optional('object', text('object')),
    ...optional('id', text('id')),
    ...optional('external_member_id', text('external_member_id')),
    ...optional('status', text('status')),
    ...optional('status_version', typeof version === 'number' && Number.isInteger(version) ? version : undefined),
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The known event of a given type. */
export type WebhookEventOf<TType extends KnownEventType> = Extract<
  KnownWebhookEvent,
  {
    /** The event type to select. */
    event_type: TType;
  }
>;

/**
 * Narrows an event to one known type.
 *
 * @example
 * if (isEventType(event, 'card.topup.credited')) enableSpending(event.data.id);
 */
export function isEventType<TType extends KnownEventType>(event: WebhookEvent, type: TType): event is WebhookEventOf<TType> {
  return event.known && event.event_type === type;
}

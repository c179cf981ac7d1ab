/**
 * Event types of the spec (Events > Event types, Other events named), as data.
 *
 * - Typed: the three events whose `data` the spec shows, with their extra fields.
 * - Named only: events the spec names "without payload shape"; the envelope is typed and the
 *   rest of `data` passes through.
 *
 * The spec's list is not complete ("Complete list of event types ... not shown") and new types
 * are added without notice (Versioning), so any other type is an unknown event, never an error.
 */
export const TYPED_EVENT_TYPES = ['card.3ds.received', 'exchange.order.executed', 'card.topup.credited'] as const;

/** Events named by the spec without a payload shape. */
export const NAMED_EVENT_TYPES = ['card.status.updated', 'card.activated', 'card.application.approved', 'kyc.result.updated'] as const;

/** Every event type the spec names. */
export const KNOWN_EVENT_TYPES = [...TYPED_EVENT_TYPES, ...NAMED_EVENT_TYPES] as const;

/** An event type whose `data` the spec shows. */
export type TypedEventType = (typeof TYPED_EVENT_TYPES)[number];
/** An event type the spec names without a payload shape. */
export type NamedEventType = (typeof NAMED_EVENT_TYPES)[number];
/** An event type the spec names. */
export type KnownEventType = (typeof KNOWN_EVENT_TYPES)[number];

const KNOWN = new Set<string>(KNOWN_EVENT_TYPES);

/** Whether `type` is one of the event types the spec names. */
export function isKnownEventType(type: string): type is KnownEventType {
  return KNOWN.has(type);
}

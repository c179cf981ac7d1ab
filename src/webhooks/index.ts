/**
 * Webhook receiving for the Merchant Stablecoin Account API (spec: Events): parse and type
 * deliveries, deduplicate on `z-event-id`, acknowledge only processed events, merge statuses
 * forward only, and read the resource an event points at (payloads never carry amounts).
 *
 * @packageDocumentation
 */
export { parseEvent } from './parse.js';
export {
  isEventType,
  isNonConformingEvent,
  type NonConformingEvent,
  type WebhookEvent,
  type KnownWebhookEvent,
  type UnknownEvent,
  type WebhookEventOf,
  type EventEnvelope,
  type KnownEvent,
  type NamedEvent,
  type Card3dsReceivedEvent,
  type ExchangeOrderExecutedEvent,
  type CardTopupCreditedEvent,
  type EventData,
  type Card3dsReceivedData,
  type ExchangeOrderExecutedData,
  type CardTopupCreditedData,
} from './events.js';
export {
  KNOWN_EVENT_TYPES,
  TYPED_EVENT_TYPES,
  NAMED_EVENT_TYPES,
  isKnownEventType,
  type KnownEventType,
  type TypedEventType,
  type NamedEventType,
} from './event-types.js';
export { normalizeHeaders, type WebhookHeaders, type WebhookHeaderMap } from './headers.js';
export {
  WebhookParseError,
  WebhookSignatureError,
  WebhookTimeoutError,
  UnsupportedEventResourceError,
  type WebhookParseErrorReason,
  type WebhookIssue,
} from './errors.js';
export type {
  EventStore,
  EventStoreReceiver,
  ClaimResult,
  TransactionalEventStore,
  TransactionalClaim,
  TransactionalClaimOptions,
  TransactionalEndOptions,
} from './event-store.js';
export { MemoryEventStore, type MemoryEventStoreOptions } from './memory-event-store.js';
export { createWebhookHandler, type WebhookHandler } from './handler.js';
export {
  DELIVERY_TIMEOUT_MS,
  DEFAULT_HANDLER_TIMEOUT_MS,
  DEFAULT_BODY_TIMEOUT_MS,
  type WebhookHandlerOptions,
  type WebhookEventContext,
  type WebhookVerifier,
} from './handler-options.js';
export type { TransactionalEventContext, TransactionalWebhookHandlerOptions } from './transactional-options.js';
export type { NodeRequestLike, NodeResponseLike } from './node-types.js';
export { OUTCOME_STATUS, type WebhookOutcome, type WebhookResponse, type WebhookResponseBody } from './responses.js';
export {
  StatusTracker,
  eventResourceKey,
  type TrackedStatus,
  type StatusTrackerOptions,
  type PolledStatusOptions,
} from './status-tracker.js';
export { DEFAULT_TERMINAL_STATES } from './terminal-states.js';
export {
  fetchEventResource,
  eventResourceRoute,
  EVENT_RESOURCE_ROUTES,
  type EventResourceRoute,
  type EventResourceClient,
  type FetchEventResourceOptions,
} from './fetch-resource.js';

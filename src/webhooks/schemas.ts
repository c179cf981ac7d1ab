import * as z from 'zod/mini';

/**
 * Schemas of the webhook envelope and of the events whose `data` the spec shows (Events).
 * Objects are loose: fields the spec adds later pass through unchanged.
 */

/** `data` fields every event carries (Events > Delivery contract, Envelope). */
export const eventDataSchema = z.looseObject({
  /** Resource kind. */
  object: z.string().check(z.minLength(1)),
  /** Resource identifier. */
  id: z.string().check(z.minLength(1)),
  /** The merchant's member id. */
  external_member_id: z.string(),
  /** Resource status after the event. */
  status: z.string(),
  /** Lets a receiver merge forward only. */
  status_version: z.int(),
});

/** The envelope (Events > Delivery contract). `event_id` is `evt_<hex>`. */
export const envelopeSchema = z.looseObject({
  event_id: z.string().check(z.regex(/^evt_\S+$/, 'must be evt_<hex>')),
  event_type: z.string().check(z.minLength(1)),
  /** ISO 8601, kept as sent. */
  created_at: z.string().check(z.minLength(1)),
  merchant_id: z.string(),
  livemode: z.boolean(),
  data: eventDataSchema,
});

/**
 * `card.3ds.received`: `data.object` `card`, `data.id` `crd_<id>`, `status` `received`, with
 * `otp_code`, `application_id` (`cap_<id>`, omitted when the card has no originating
 * application) and `expires_at` (only when the upstream supplied it).
 */
export const card3dsReceivedDataSchema = z.looseObject({
  ...eventDataSchema.shape,
  /** `card`. */
  object: z.literal('card'),
  /** `received`. */
  status: z.literal('received'),
  /** Short code for manual entry: a secret of the end user, never log it. */
  otp_code: z.string(),
  /** `cap_<id>`; omitted when the card has no originating application. */
  application_id: z.optional(z.string()),
  /** ISO 8601 (a timestamp, by the spec's conventions); only when the upstream supplied it. */
  expires_at: z.optional(z.string()),
});

/** `exchange.order.executed`: `exchange_order`, status `executed`, `status_version` always 0. */
export const exchangeOrderExecutedDataSchema = z.looseObject({
  ...eventDataSchema.shape,
  /** `exchange_order`. */
  object: z.literal('exchange_order'),
  /** `executed`. */
  status: z.literal('executed'),
  /** Always 0. */
  status_version: z.literal(0),
});

/**
 * `card.topup.credited`: `card_topup`, status `credited`. `data.id` is the top-up order id, or
 * `first:<application uuid>` for the initial top-up at issuance (no `ctp_` row).
 */
export const cardTopupCreditedDataSchema = z.looseObject({
  ...eventDataSchema.shape,
  /** `card_topup`. */
  object: z.literal('card_topup'),
  /** `credited`. */
  status: z.literal('credited'),
});

import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { integer, looseResultSchema, openEnum } from './common.js';

/** Card states seen (States and transitions > Card). */
const CARD_STATUSES = [
  'unactivated',
  'active',
  'frozen',
  'unfreezing',
  'risk_frozen',
  'suspended',
  'closing',
  'closed',
  'expired',
] as const;

const cardStatusSchema = openEnum(CARD_STATUSES);

/**
 * A card status (unknown values kept).
 *
 * @useDeclaredType
 */
export type CardStatus = z.infer<typeof cardStatusSchema>;

/** Card status response (`unfreeze`, `activate`): `{id, status}`. */
export const cardStatusResultSchema = looseObject({
  /** `crd_<uuid>`. */
  id: z.string(),
  /** New card status (`unfreezing` after unfreeze, `active` after activation). */
  status: cardStatusSchema,
});

/** A card status response. */
export interface CardStatusResult extends z.infer<typeof cardStatusResultSchema> {}

/** Card limits response: `{id, accepted}` (recorded; the upstream is updated asynchronously). */
export const cardLimitsResultSchema = looseObject({
  /** `crd_<uuid>`. */
  id: z.string(),
  /** True: the change is recorded (the upstream is updated asynchronously). */
  accepted: z.boolean(),
});

/** A card limits response. */
export interface CardLimitsResult extends z.infer<typeof cardLimitsResultSchema> {}

/** Close phases (States and transitions > Card close phase). */
const CLOSE_PHASES = ['idle', 'sweeping', 'freezing', 'closing', 'blocked_hold', 'blocked_fee'] as const;

/** Card close precheck, camelCase on the wire (Resources > Card close precheck). */
export const cardCloseCheckSchema = looseObject({
  /** Integer-like amount string in minor units at `scale`. */
  balance: z.string(),
  /** Balance minus withdrawable; may include administrative freezes. */
  held: z.string(),
  /** Unsettled authorizations only: use this one for the close button. */
  authHeld: z.string(),
  /** Amount a balance return can take now, minor units at `scale`. */
  withdrawable: z.string(),
  /** Whether a close may be submitted (stays false below the minimum retained balance). */
  canClose: z.boolean(),
  /** True means a balance return is in progress. */
  pendingWithdraw: z.boolean(),
  /** Whether a close was already requested. */
  closeRequested: z.boolean(),
  /** `idle`, `sweeping`, `freezing`, `closing`, `blocked_hold` or `blocked_fee`. */
  closePhase: openEnum(CLOSE_PHASES),
  /** Decimal places of the minor-unit amounts. */
  scale: integer,
  /** Card currency. */
  currency: z.string(),
});

/** A card close precheck. */
export interface CardCloseCheck extends z.infer<typeof cardCloseCheckSchema> {}

/**
 * A card record. Not shown beyond the card states and `limits_updatable` ("card details");
 * typed as implied, never checked: every field comes through as received.
 */
export const cardRecordSchema = z.extend(looseResultSchema, {
  /** Card status (unknown values kept). */
  status: z.optional(cardStatusSchema),
  /** False: `updateLimits` returns `product_not_available`. */
  limits_updatable: z.optional(z.boolean()),
});

/** A card record (loosely typed). */
export interface CardRecord extends z.infer<typeof cardRecordSchema> {}

import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { decimalString, integer, isoTimestamp, looseResultSchema, openEnum } from './common.js';

/** Remittance order states (States and transitions > Remittance order). */
const REMITTANCE_STATUSES = [
  'reviewing',
  'dispatching',
  'submitting',
  'processing',
  'needs_reconfirm',
  'completed',
  'failed',
  'canceled',
  'refunded',
] as const;

/**
 * A remittance order status (unknown values kept).
 *
 * @useDeclaredType
 */
export type RemittanceStatus = z.infer<typeof remittanceStatusSchema>;
const remittanceStatusSchema = openEnum(REMITTANCE_STATUSES);

/** `waiting_on` values of the pending action. */
const WAITING_ON_VALUES = ['member', 'review', 'none'] as const;

/** `action.kind = slippage`: the price moved at dispatch and the user must reconfirm. */
const slippageActionSchema = looseObject({
  /** Discriminant: `slippage`. */
  kind: z.literal('slippage'),
  /** How far the price moved, in basis points. */
  moved_bps: integer,
  /** Slippage tolerance, in basis points. */
  slippage_bps: integer,
  /** Total before the move. */
  old_total: decimalString,
  /** Send it unchanged to `reconfirm` to accept. */
  new_total: decimalString,
  /** Show this one to the user. */
  extra_charge: decimalString,
  /** At least `extra_charge`; use it for the balance check. */
  extra_locked: decimalString,
  /** The member's available balance for the check. */
  available: decimalString,
  /** `false` means no confirm button. */
  can_accept: z.boolean(),
  /** Empty, `insufficient_balance` or `too_many_rounds`. */
  reject_reason: openEnum(['', 'insufficient_balance', 'too_many_rounds']),
  /** ISO 8601; the reconfirmation window is 4 hours. */
  deadline: isoTimestamp,
});

/** A slippage action. */
export interface SlippageAction extends z.infer<typeof slippageActionSchema> {}

/** One document item of a supplement round. */
const supplementItemSchema = looseObject({
  /** Key of the requested document. */
  field_key: z.string(),
  /** Label to show the end user. */
  label: z.string(),
  /** For example `file`. */
  type: z.string(),
  /** Whether the item is required. */
  required: z.boolean(),
  /** Whether the item was submitted. */
  submitted: z.boolean(),
});

/** `action.kind = supplement`: documents are requested from the end user. */
export const supplementActionSchema = looseObject({
  /** Discriminant: `supplement`. */
  kind: z.literal('supplement'),
  /** Supplement round number. */
  round: integer,
  /** `PENDING` (awaiting upload) or `SUBMITTED` (awaiting review). */
  status: openEnum(['PENDING', 'SUBMITTED']),
  /** Identifies whether the service or the upstream reviews. */
  source: z.string(),
  /** Message to show the end user. */
  message: z.string(),
  /** Documents requested. */
  items: z.array(supplementItemSchema),
  /** Hosted upload address for the end user. */
  submit_url: z.string(),
  /** ISO 8601. */
  created_at: isoTimestamp,
  /** ISO 8601, or `""` while not submitted. */
  submitted_at: z.string(),
  /** Always null: no automatic cancellation. */
  deadline: z.null(),
});

/** A supplement action. */
export interface SupplementAction extends z.infer<typeof supplementActionSchema> {}

/** The action kinds this SDK version knows (Known kinds: `slippage` and `supplement`). */
export const KNOWN_ACTION_KINDS: readonly string[] = ['slippage', 'supplement'];

/**
 * An action of a kind this SDK version does not know (Versioning: new action types are added
 * without notice). `kind` and every field are kept unchanged so the caller can show it.
 * A known kind with a malformed body does not fall back here: it fails validation.
 */
export const unknownActionSchema = looseObject({
  /** The kind as the service sent it; show the action unchanged. */
  kind: z.string().check(z.refine((kind) => !KNOWN_ACTION_KINDS.includes(kind), 'known action kind with an invalid shape')),
});

/** An action of an unknown kind. */
export interface UnknownAction extends z.infer<typeof unknownActionSchema> {}

/** A pending action: slippage, supplement, or an unknown kind. */
export const pendingActionSchema = z.union([slippageActionSchema, supplementActionSchema, unknownActionSchema]);

/**
 * A pending action. Narrow with {@link isSlippageAction} / {@link isSupplementAction}.
 *
 * @useDeclaredType
 */
export type PendingAction = z.infer<typeof pendingActionSchema>;

/** Whether the action is a slippage reconfirmation. */
export function isSlippageAction(action: PendingAction | null): action is SlippageAction {
  return action !== null && action.kind === 'slippage';
}

/** Whether the action is a document supplement request. */
export function isSupplementAction(action: PendingAction | null): action is SupplementAction {
  return action !== null && action.kind === 'supplement';
}

/** Whether the action is of a kind this SDK does not know (show it unchanged). */
export function isUnknownAction(action: PendingAction | null): action is UnknownAction {
  return action !== null && !KNOWN_ACTION_KINDS.includes(action.kind);
}

/** `GET /v1/remittances/{id}/pending-action` (Resources > Remittance pending action). */
export const pendingActionResultSchema = looseObject({
  /** The remittance order id. */
  id: z.string(),
  /** `member` (action non-null), `review` (documents under review) or `none`. */
  waiting_on: openEnum(WAITING_ON_VALUES),
  /** Null when nothing is required of the user. */
  action: z.nullable(pendingActionSchema),
});

/** The pending user action of a remittance. */
export interface PendingActionResult extends z.infer<typeof pendingActionResultSchema> {}

/** A personal remittance account application (Resources). */
export const personalAccountApplicationSchema = looseObject({
  /** `vpa_<n>`. */
  id: z.string(),
  /** `reviewing`. */
  status: openEnum(['reviewing']),
  /** True only on the 200 reuse response. */
  reused: z.optional(z.boolean()),
});

/** A personal remittance account application. */
export interface PersonalAccountApplication extends z.infer<typeof personalAccountApplicationSchema> {}

/** `POST /v1/remittances/{id}/cancel` result: `{id, status: canceled}`. */
export const remittanceCancelResultSchema = looseObject({
  /** `rmt_<uuid>`. */
  id: z.string(),
  /** `canceled`. */
  status: remittanceStatusSchema,
});

/** A remittance cancel result. */
export interface RemittanceCancelResult extends z.infer<typeof remittanceCancelResultSchema> {}

/**
 * A remittance order record. Its fields are not shown beyond the states; `id` and `status` are
 * typed as optional (as implied, never checked), and every field comes through as received.
 */
export const remittanceRecordSchema = z.extend(looseResultSchema, {
  /** Order status (unknown values kept). */
  status: z.optional(remittanceStatusSchema),
});

/** A remittance order (loosely typed). */
export interface RemittanceRecord extends z.infer<typeof remittanceRecordSchema> {}

/** A corridor: country, currency, payment method and its clearing systems. */
export const corridorSchema = looseObject({
  /** Payee country. */
  country: z.string(),
  /** Payout currency. */
  currency: z.string(),
  /** Payment method. */
  payment_method: z.string(),
  /** Send one as `clearing_system` exactly as returned (letter case preserved). */
  clearing_systems: z.array(z.string()),
});

/** A remittance corridor. */
export interface Corridor extends z.infer<typeof corridorSchema> {}

/** A bank directory entry. */
export const bankEntrySchema = looseObject({
  /** BIC. */
  swift_code: z.string(),
  /** Bank name. */
  bank_name: z.string(),
  /** May be null. */
  address: z.nullable(z.string()),
  /** City. */
  city: z.string(),
  /** Two-letter country code. */
  country_code: z.string(),
  /** May be empty. */
  branch: z.string(),
});

/** A bank directory entry. */
export interface BankEntry extends z.infer<typeof bankEntrySchema> {}

/** `GET /v1/remit/swift-search` result. */
export const swiftSearchResultSchema = looseObject({
  /** True when the directory is not configured or unreachable (not the same as no match). */
  unavailable: z.boolean(),
  /** Matches; values only prefill, the user's values prevail. */
  banks: z.array(bankEntrySchema),
});

/** A bank directory search result. */
export interface SwiftSearchResult extends z.infer<typeof swiftSearchResultSchema> {}

/** One text of the agreement. */
const agreementTextSchema = looseObject({
  /** May differ from the requested language (fallback through `en`, then `zh-Hans`). */
  lang: z.string(),
  /** Title. */
  title: z.string(),
  /** Full text to show the end user. */
  body: z.string(),
});

/** `GET /v1/remit/vp/agreement` result. */
export const agreementSchema = looseObject({
  /** The agreement text to show in full before applying. */
  agreement: agreementTextSchema,
  /** May be null. */
  intro: z.nullable(agreementTextSchema),
});

/** The personal remittance agreement. */
export interface Agreement extends z.infer<typeof agreementSchema> {}

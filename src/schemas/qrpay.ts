import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { decimalString, integer, isoTimestamp, looseResultSchema } from './common.js';

/** One asset quoted for a QR payment (Resources > QR payment quote, quote item). */
export const qrQuoteItemSchema = looseObject({
  /** Asset code. */
  asset: z.string(),
  /** Decimal places of the amounts of this item. */
  ledger_scale: integer,
  /** Decimal places for display only. */
  display_scale: integer,
  /** Indicative; payments obtain a fresh quote. */
  customer_total: decimalString,
  /** Same-asset fee, already included in `customer_total` (`0` when the fee is in another asset). */
  fee: decimalString,
  /** Whether balances cover the plan. */
  sufficient: z.boolean(),
  /** Merchant-funded quotes only. */
  fee_asset: z.optional(z.string()),
  /** Merchant-funded quotes only; debited additionally in `fee_asset`. */
  fee_amount: z.optional(decimalString),
  /** Merchant-funded quotes only. */
  fee_ledger_scale: z.optional(integer),
});

/** One quoted asset. */
export interface QrQuoteItem extends z.infer<typeof qrQuoteItemSchema> {}

/** A QR payment quote (Resources > QR payment quote). */
export const qrQuoteSchema = looseObject({
  /** Payee name. */
  payee: z.string(),
  /** Fiat currency on the acquiring side. */
  acquirer_currency: z.string(),
  /** Fiat amount; not comparable to `customer_total`. */
  acquirer_amount: decimalString,
  /** ISO 8601, or `""` when the upstream supplied none. */
  expires_at: isoTimestamp,
  /** Asset chosen from the member's payment priorities. */
  chosen: qrQuoteItemSchema,
  /** Every asset quoted upstream and enabled here. */
  options: z.array(qrQuoteItemSchema),
  /** Empty, or an error code that payments will return immediately (applies to `chosen` only). */
  blocked_reason: z.string(),
});

/** A QR payment quote. */
export interface QrQuote extends z.infer<typeof qrQuoteSchema> {}

/**
 * `POST /v1/qrpay/decode` result. Its shape is not shown; the prose names `amount_editable`
 * (implied boolean, in the quote's `currency` rule) and `required_payer_fields` (its element type
 * is not shown, so it is left `unknown`). Typed as implied, never checked: every field comes
 * through as received.
 */
export const qrDecodeResultSchema = z.extend(looseResultSchema, {
  /** True for custom-amount codes: only then may the quote send `currency` and `amount`. */
  amount_editable: z.optional(z.boolean()),
  /** Non-empty means the code cannot proceed through this API (element type not shown). */
  required_payer_fields: z.optional(z.unknown()),
});

/** A decoded QR code (loosely typed). */
export interface QrDecodeResult extends z.infer<typeof qrDecodeResultSchema> {}

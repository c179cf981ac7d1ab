import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { decimalString, integer, isoTimestamp, openEnum } from './common.js';

/** A merchant asset conversion (Resources > Merchant conversion). */
export const merchantConversionSchema = looseObject({
  /** `mcv_<uuid>`. */
  id: z.string(),
  /** Asset debited. */
  from_asset: z.string(),
  /** Asset credited. */
  to_asset: z.string(),
  /** Amount debited, at `ledger_scale_from`. */
  from_amount: decimalString,
  /** Amount credited, at `ledger_scale_to`. */
  to_amount: decimalString,
  /** Rate from the service's price list (not the member retail price). */
  rate: decimalString,
  /** Asset of the fee, chosen by the `fee_side` setting. */
  fee_asset: z.string(),
  /** Fee charged in `fee_asset`. */
  fee_amount: decimalString,
  /** Decimal places of `from_amount`. */
  ledger_scale_from: integer,
  /** Decimal places of `to_amount`. */
  ledger_scale_to: integer,
  /** ISO 8601 with milliseconds. */
  created_at: isoTimestamp,
  /** Present (true) only on the 200 funds-layer idempotency hit after the 24-hour window. */
  duplicated: z.optional(z.boolean()),
});

/** A merchant conversion. */
export interface MerchantConversion extends z.infer<typeof merchantConversionSchema> {}

/** Top-up channels (`chain` or `fiat`). */
const TOPUP_CHANNELS = ['chain', 'fiat'] as const;
/** Top-up declaration statuses the spec names (states after posting: not shown). */
const TOPUP_STATUSES = ['pending'] as const;

/** A prepaid top-up declaration (Resources > Prepaid top-up declaration). */
export const topupDeclarationSchema = looseObject({
  /** UUID. */
  id: z.string(),
  /** Asset code. */
  asset: z.string(),
  /** `chain` or `fiat` (anything but exactly `fiat` was stored as `chain`). */
  channel: openEnum(TOPUP_CHANNELS),
  /** The amount exactly as supplied. */
  amount_text: z.string(),
  /** Always `pending` on creation. */
  status: openEnum(TOPUP_STATUSES),
});

/** A prepaid top-up declaration. */
export interface TopupDeclaration extends z.infer<typeof topupDeclarationSchema> {}

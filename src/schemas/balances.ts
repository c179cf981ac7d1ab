import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { decimalString, integer, pageShape } from './common.js';

/**
 * One balance row per asset (Resources > Balance row). The eight buckets are decimal strings at
 * `ledger_scale`; the member's total is their sum (`balanceTotal` in the money helpers).
 */
export const balanceRowSchema = looseObject({
  /** Asset code (uppercase). */
  asset: z.string(),
  /** The only directly spendable bucket; every order-creation endpoint debits it. */
  available: decimalString,
  /** Incoming deposits detected but unconfirmed. Always 0 under `merchant_hosted`. */
  pending: decimalString,
  /** Frozen by operations or risk control. Merchants have no unlock endpoint. */
  frozen: decimalString,
  /** Segregated during disputes, legal or anti-money-laundering handling (kept apart from `frozen`). */
  isolated: decimalString,
  /** Business holds of asynchronous orders (remittances); ends settled or back in `available`. */
  locked: decimalString,
  /** Funds already sent to the card issuer; only card-issuing endpoints move them. */
  card: decimalString,
  /** Principal invested in wealth products. */
  earn: decimalString,
  /** Moved from `available` by a withdrawal debit; leaves only by confirm or fail. */
  withdrawing: decimalString,
  /** Decimal places of the ledger: parse and send amounts of this asset at this scale. */
  ledger_scale: integer,
  /** Decimal places for display only; never use it for parsing. */
  display_scale: integer,
});

/** A member's balance in one asset. */
export interface BalanceRow extends z.infer<typeof balanceRowSchema> {}

/**
 * The `GET /v1/balances` body: the list envelope plus the transitional `balances` copy of `data`
 * (the spec: "New clients read `data`"). The copy is never read, so it is never validated either:
 * a copy that deviates, or disappears, cannot break a call. It is passed through as received.
 */
export const balancesEnvelopeSchema = looseObject({
  ...pageShape(balanceRowSchema),
  /** Transitional duplicate of `data`, passed through unvalidated. Never read it: it will be removed. */
  balances: z.optional(z.unknown()),
});

/** The member balances envelope. Read `data`; `balances` is a transitional duplicate, unvalidated. */
export interface BalancesEnvelope extends z.infer<typeof balancesEnvelopeSchema> {}

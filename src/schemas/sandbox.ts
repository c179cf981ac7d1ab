import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { decimalString, integer } from './common.js';

/** Sandbox faucet credit (Resources > Other response shapes). */
export const faucetCreditSchema = looseObject({
  /** True when credited. */
  ok: z.boolean(),
  /** Asset credited. */
  asset: z.string(),
  /** Amount credited to the merchant prepaid account. */
  credited: decimalString,
  /** Decimal places of `credited`. */
  ledger_scale: integer,
  /** `jrn_` journal of the posting. */
  journal_id: z.string(),
  /** Present (true) on idempotent hits; nothing new was posted. */
  duplicated: z.optional(z.boolean()),
});

/** A sandbox faucet credit. */
export interface FaucetCredit extends z.infer<typeof faucetCreditSchema> {}

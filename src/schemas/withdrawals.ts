import * as z from 'zod/mini';
import { looseObject } from './loose-object.js';
import { decimalString, integer, openEnum } from './common.js';

/** Withdrawal states the spec names (`locked` after creation; final state names not shown). */
const WITHDRAWAL_STATUSES = ['locked'] as const;

/** A withdrawal order (Resources > Withdrawal order). */
export const withdrawalOrderSchema = looseObject({
  /** `wdr_<uuid>`. */
  id: z.string(),
  /** `locked` after creation (final state names are not shown by the spec). */
  status: openEnum(WITHDRAWAL_STATUSES),
  /** Uppercase asset code. */
  asset: z.string(),
  /** Debited amount, a decimal string at `ledger_scale`. */
  amount: decimalString,
  /** Decimal places of `amount`. */
  ledger_scale: integer,
  /** Up to 200 characters; snapshotted unchanged, immutable afterwards. */
  to_address: z.string(),
});

/** A withdrawal order. */
export interface WithdrawalOrder extends z.infer<typeof withdrawalOrderSchema> {}

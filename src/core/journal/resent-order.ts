import { WITHDRAWALS_CREATE } from '../../facts/endpoints.js';
import type { WithdrawalOrder } from '../../schemas/withdrawals.js';
import type { RecoveredIntent } from './report.js';

/**
 * The withdrawal order a recovered withdrawal created: `r.result` typed, for an intent that
 * `recover()` sent again (`outcome: 'resent'`) and that is a withdrawal (`POST /v1/withdrawals`);
 * `undefined` for anything else. The answer to the resend was checked as a withdrawal order (unless
 * the client was made with `validateResponses: false`), so no cast is needed to store it.
 *
 * The intent is recognised by its method and path, as the journal row holds them, so rows
 * written under any SDK endpoint name are read the same.
 *
 * @example
 * await client.recover({
 *   onIntent: async (r) => {
 *     const order = resentWithdrawalOrder(r);
 *     if (order !== undefined) await payouts.markSent(r.intent.key, order);
 *   },
 * });
 */
export function resentWithdrawalOrder(r: RecoveredIntent): WithdrawalOrder | undefined {
  if (r.outcome !== 'resent') return undefined;
  const { method, path } = r.intent;
  if (method !== WITHDRAWALS_CREATE.method || path.split('?')[0] !== WITHDRAWALS_CREATE.path) return undefined;
  return r.result as WithdrawalOrder;
}

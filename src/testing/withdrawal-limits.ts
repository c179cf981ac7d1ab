/**
 * Per-member withdrawal limits (spec: `POST /v1/withdrawals` answers `limit_exceeded` with
 * member scope; Extra fields: `limit_type` `single` or `daily`, `limit_scope`). The spec gives
 * no values and no window; the sandbox's choices: limits are seeded per member and asset
 * (`state.setWithdrawalLimits`), `single` is checked before `daily`, and the daily limit counts
 * the member's withdrawals in that asset created on the same UTC calendar day of the sandbox
 * clock, failed ones excepted (their funds went back to `available`).
 */
import { fail } from './errors.js';
import type { Dec } from './money.js';
import type { MemberRecord, Store } from './store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the member already withdrew in `asset` on the UTC day of `now`. */
function withdrawnToday(store: Store, member: MemberRecord, asset: string, now: number): Dec | undefined {
  const dayStart = now - (now % DAY_MS);
  let sum: Dec | undefined;
  for (const w of store.withdrawals.values()) {
    if (w.memberId !== member.id || w.asset !== asset || w.status === 'failed' || w.created_at < dayStart) continue;
    sum = sum === undefined ? w.amount : sum.plus(w.amount);
  }
  return sum;
}

/** Refuses a withdrawal of `amount` that the member's own limits do not allow. */
export function checkMemberWithdrawLimit(store: Store, member: MemberRecord, asset: string, amount: Dec, now: number): void {
  const limit = member.withdrawLimits.get(asset);
  if (limit === undefined) return;
  if (limit.single !== undefined && amount.gt(limit.single)) {
    fail('limit_exceeded', 'The amount is above the member’s single withdrawal limit.', {
      extra: { limit_type: 'single', limit_scope: 'member' },
    });
  }
  const today = withdrawnToday(store, member, asset, now);
  if (limit.daily !== undefined && amount.plus(today ?? 0).gt(limit.daily)) {
    fail('limit_exceeded', 'The member’s daily withdrawal limit is reached.', { extra: { limit_type: 'daily', limit_scope: 'member' } });
  }
}

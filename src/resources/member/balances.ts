import type { ApiPromise, CallOptions } from '../../core/types.js';
import type { BalanceRow, BalancesEnvelope } from '../../schemas/balances.js';
import { BALANCES_LIST } from '../../facts/endpoints.js';
import { mapApiPromise } from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Balances of one member (`GET /v1/balances`). */
export class MemberBalances {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * The member's balance rows, one per asset (`GET /v1/balances`): the envelope's `data` array,
   * never the transitional `balances` copy.
   *
   * Scope `balances:read`. Member-scoped. Read: no idempotency key, moves no funds.
   *
   * Rules: only assets for which the member already has account rows are returned (a member who
   * never received funds gets `[]`); not paginated. The total of an asset is the sum of its eight
   * buckets (`balanceTotal`); only `available` is spendable.
   *
   * Errors: 400 `member_context_required`, 404 `member_not_found`.
   */
  list(options?: CallOptions): ApiPromise<BalanceRow[]> {
    return mapApiPromise(this.envelope(options), (envelope) => envelope.data);
  }

  /**
   * The whole `GET /v1/balances` envelope (`data`, `next_cursor: null`, `has_more: false`, and
   * while it lasts the transitional `balances` duplicate). Prefer {@link MemberBalances.list}.
   *
   * Scope `balances:read`. Member-scoped. Read: no idempotency key, moves no funds.
   *
   * Errors: 400 `member_context_required`, 404 `member_not_found`.
   */
  envelope(options?: CallOptions): ApiPromise<BalancesEnvelope> {
    return this.#api.call(BALANCES_LIST, { options });
  }
}

rejectingBadInput(MemberBalances);

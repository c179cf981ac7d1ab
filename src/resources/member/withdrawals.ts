import type { ApiPromise, CallOptions, LoosePage, PagePromise } from '../../core/types.js';
import type { AmountInput } from '../../money.js';
import type { Loose, LooseItem } from '../../schemas/common.js';
import type { WithdrawalOrder } from '../../schemas/withdrawals.js';
import { WITHDRAWALS_ADDRESSES, WITHDRAWALS_CONFIRM, WITHDRAWALS_CREATE, WITHDRAWALS_FAIL } from '../../facts/endpoints.js';
import {
  amount,
  bodyOrEmpty,
  checkId,
  checkMaxChars,
  checkNonBlank,
  checkObject,
  checkText,
  looseListQuery,
  type ListParams,
  type LooseBody,
  type LooseQuery,
} from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Body of `POST /v1/withdrawals`. */
export interface WithdrawalCreateParams {
  /** Asset code (uppercased by the service); must be in the catalog and enabled. */
  readonly asset: string;
  /** Amount to debit: positive, fixed-point at the asset's `ledger_scale`. Never a number. */
  readonly amount: AmountInput;
  /**
   * Destination, 1 to 200 characters, not white space only. Its format is not validated by the
   * service; sent and snapshotted unchanged.
   */
  readonly to_address: string;
}

/** Withdrawals of one member: debit, then confirm or fail after the on-chain payment. */
export class MemberWithdrawals {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Debits a withdrawal from the member's `available` into `withdrawing` (`POST /v1/withdrawals`).
   * The merchant pays on-chain afterwards, then calls {@link MemberWithdrawals.confirm} or
   * {@link MemberWithdrawals.fail}; funds never leave `withdrawing` on their own.
   *
   * Scope `withdrawals:write`. Member-scoped. Idempotency key required (the only duplicate-debit
   * protection: there is no business reference). Moves funds.
   *
   * Rules: `to_address` at most 200 characters (checked before sending); its format is not
   * validated and the address book is not consulted, so prefer a registered address with
   * `usable=true` from {@link MemberWithdrawals.addresses}. When the withdraw line is disabled or
   * halted (`GET /v1/merchant/lines`) the call fails at once with `service_unavailable` and is not
   * queued. The endpoint may be retired (known discrepancy in the spec).
   *
   * Errors: 400 `invalid_request`, `asset_not_allowed`, `insufficient_balance`, `limit_exceeded`
   * (member scope), `request_rejected`, `service_unavailable`; 409 `idempotency_key_reused`,
   * `idempotency_in_progress`; 400 `member_context_required`, 404 `member_not_found`.
   *
   * @returns The withdrawal order, status `locked`.
   * @throws InvalidArgumentError before sending when `amount` is not a positive decimal string or
   * `to_address` is empty, white space only (a debit to a blank address could only be wrong; the
   * sandbox refuses it too) or longer than 200 characters.
   */
  create(params: WithdrawalCreateParams, options?: CallOptions): ApiPromise<WithdrawalOrder> {
    checkObject(params, 'params');
    const body = {
      asset: checkText(params.asset, 'asset'),
      amount: amount(params.amount, 'amount'),
      to_address: checkMaxChars(checkNonBlank(params.to_address, 'to_address'), 'to_address', 200),
    };
    return this.#api.call(WITHDRAWALS_CREATE, { body, options });
  }

  /**
   * Confirms a withdrawal after the merchant paid on-chain (`POST /v1/withdrawals/{id}/confirm`);
   * the `withdrawing` hold is cleared. Callable while the withdraw line is halted.
   *
   * Scope: not shown. Member optional: sent here with `x-on-behalf-of` for this member (the order
   * is the member's, like the debit); `client.withdrawals.confirm` sends none, for a member
   * suspended since the debit (`member_not_found` here). Idempotency key sent (assumed: it moves
   * funds). Moves funds. Request and response shapes: not shown, so `params` is sent as given
   * (default `{}`) and the result is the body as received.
   *
   * Errors: not shown beyond the catalogue's `merchant_custody_shortfall` (confirming would make
   * the merchant's custody declaration for the asset negative).
   *
   * @param withdrawalId - `wdr_<uuid>`, sent as given: an id without its prefix is not refused
   * (the spec shows the prefix-optional rule for `rmt_` and `cpd_` only; the sandbox reads a bare
   * id as the same order).
   */
  confirm(withdrawalId: string, params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(WITHDRAWALS_CONFIRM, {
      pathParams: { id: checkId(withdrawalId, 'withdrawalId') },
      body: bodyOrEmpty(params),
      options,
    });
  }

  /**
   * Fails a withdrawal whose on-chain payment failed (`POST /v1/withdrawals/{id}/fail`); the funds
   * return to `available`. Callable while the withdraw line is halted.
   *
   * Scope: not shown. Member optional: sent here with `x-on-behalf-of` (as for confirm);
   * `client.withdrawals.fail` sends none. Idempotency key sent (assumed: it moves funds). Moves
   * funds. Shapes not shown: `params` sent as given (default `{}`), the result as received.
   *
   * Errors: not shown.
   *
   * @param withdrawalId - `wdr_<uuid>`, sent as given: an id without its prefix is not refused
   * (the sandbox reads a bare id as the same order).
   */
  fail(withdrawalId: string, params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(WITHDRAWALS_FAIL, {
      pathParams: { id: checkId(withdrawalId, 'withdrawalId') },
      body: bodyOrEmpty(params),
      options,
    });
  }

  /**
   * The member's registered withdrawal addresses (`GET /v1/withdraw-addresses`); use one with
   * `usable=true` for {@link MemberWithdrawals.create}.
   *
   * Scope: not shown. Member-scoped (assumed: an address book is per member). Read: no
   * idempotency key, moves no funds. Shape not shown: assumed to be the standard list envelope
   * (Common rules), items loosely typed.
   *
   * Errors: not shown.
   *
   * @throws InvalidArgumentError when `limit` is not a positive integer.
   */
  addresses(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(WITHDRAWALS_ADDRESSES, { query: looseListQuery(params), options });
  }
}

rejectingBadInput(MemberWithdrawals);

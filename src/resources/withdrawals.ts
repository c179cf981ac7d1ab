import type { ApiPromise, CallOptions, EndpointCaller } from '../core/types.js';
import type { Loose } from '../schemas/common.js';
import { WITHDRAWALS_CONFIRM, WITHDRAWALS_FAIL } from '../facts/endpoints.js';
import { bodyOrEmpty, checkId, type LooseBody } from './guards.js';
import { rejectingBadInput } from './rejections.js';

/**
 * Withdrawal confirm and fail without naming a member (no `x-on-behalf-of`): the `wdr_` id names
 * the order. A withdrawal debit must end in one of them, and a member suspended after the debit
 * answers `member_not_found` to every call made on its behalf, while the funds wait in
 * `withdrawing`. The member form, `client.member(id).withdrawals`, stays.
 */
export class Withdrawals {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * Confirms a withdrawal after the merchant paid on-chain (`POST /v1/withdrawals/{id}/confirm`);
   * the member's `withdrawing` hold is cleared. Callable while the withdraw line is halted.
   *
   * Scope: not shown. Member optional: sent without `x-on-behalf-of` (the spec does not show the
   * endpoint's scope; the member form is `client.member(id).withdrawals.confirm`). Idempotency key
   * sent (assumed: it moves funds). Moves funds. Request and response shapes: not shown, so
   * `params` is sent as given (default `{}`) and the result is the body as received.
   *
   * Errors: not shown beyond the catalogue's `merchant_custody_shortfall` (confirming would make
   * the merchant's custody declaration for the asset negative).
   *
   * @param withdrawalId - `wdr_<uuid>`.
   * @throws InvalidArgumentError before sending when `withdrawalId` is empty or `params` is not an object.
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
   * return to the member's `available`. Callable while the withdraw line is halted.
   *
   * Scope: not shown. Member optional: sent without `x-on-behalf-of` (the member form is
   * `client.member(id).withdrawals.fail`). Idempotency key sent (assumed: it moves funds). Moves
   * funds. Shapes not shown: `params` sent as given (default `{}`), the result as received.
   *
   * Errors: not shown.
   *
   * @param withdrawalId - `wdr_<uuid>`.
   * @throws InvalidArgumentError before sending when `withdrawalId` is empty or `params` is not an object.
   */
  fail(withdrawalId: string, params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(WITHDRAWALS_FAIL, {
      pathParams: { id: checkId(withdrawalId, 'withdrawalId') },
      body: bodyOrEmpty(params),
      options,
    });
  }
}

rejectingBadInput(Withdrawals);

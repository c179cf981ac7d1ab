import { InvalidArgumentError } from '../../core/errors/errors.js';
import type { ApiPromise, CallOptions, LoosePage, PagePromise } from '../../core/types.js';
import type { AmountInput } from '../../money.js';
import type { CardCloseCheck, CardLimitsResult, CardRecord, CardStatusResult } from '../../schemas/cards.js';
import type { Loose, LooseItem } from '../../schemas/common.js';
import * as E from '../../facts/endpoints.js';
import {
  bodyOrEmpty,
  checkId,
  checkObject,
  checkQuery,
  compact,
  looseListQuery,
  type ListParams,
  type LooseBody,
  type LooseQuery,
} from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { activationBody, checkLimitOrder, limitValue } from './card-guards.js';
import { rejectingBadInput } from '../rejections.js';

/** Body of `POST /v1/cards/{id}/activate`. */
export interface CardActivateParams {
  /** Printed expiry date, `MM/YY`. */
  readonly expiry: string;
  /** PIN chosen by the user or supplied in the envelope; never stored or logged by the service or the SDK. */
  readonly pin: string;
}

/** Body of `PATCH /v1/cards/{id}/limits`. An omitted item keeps its previous value. */
export interface CardLimitsParams {
  /** Per-transaction limit in the card currency; `0` means no limit at this layer. */
  readonly single?: AmountInput;
  /** At least `single` when neither is 0. */
  readonly daily?: AmountInput;
  /** At least `daily` when neither is 0. */
  readonly monthly?: AmountInput;
}

/** Query of `GET /v1/cards/products/{id}/quote`: `quick_kyc_binding_id` is named by the spec. */
export interface CardProductQuoteQuery {
  /** A quick KYC `binding.id` of the same member. */
  readonly quick_kyc_binding_id?: string;
  /** Other query parameters, sent as given. */
  readonly [key: string]: string | number | boolean | undefined;
}

/** Body of `POST /v1/cards/applications`: the fields the spec names; other keys pass through. */
export interface CardApplyParams {
  /** Card product, `cpd_` prefix optional. */
  readonly card_product_id?: string;
  /** A quick KYC `binding.id` of the same member. */
  readonly quick_kyc_binding_id?: string;
  /** Needed for a new quick KYC allocation when the member has no genuine L1. */
  readonly quick_kyc_email?: string;
  /** Other fields, sent as given. */
  readonly [field: string]: unknown;
}

/** Body of `POST /v1/cards/{id}/withdrawals`; `reason=close` is not accepted (use `close`). */
export interface CardWithdrawParams {
  /** Reason of the balance return; `close` is not accepted here (use `close()`). */
  readonly reason?: string;
  /** Other fields (not shown by the spec) are sent as given. */
  readonly [field: string]: unknown;
}

/** Cards of one member (virtual and physical). */
export class MemberCards {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Card products (`GET /v1/cards/products`).
   *
   * Scope: not shown. Member-scoped by the SDK's design (eligibility follows the member). Read:
   * no idempotency key, moves no funds. Shape not shown: assumed the list envelope, loosely typed
   * items.
   *
   * Errors: not shown.
   */
  products(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(E.CARDS_PRODUCTS, { query: looseListQuery(params), options });
  }

  /**
   * Quotes a card product for the member (`GET /v1/cards/products/{id}/quote`).
   *
   * Scope: not shown. Member-scoped (the spec passes `quick_kyc_binding_id` "on behalf of the same
   * member"). Read: no idempotency key, moves no funds. Shape not shown: loosely typed.
   *
   * Errors: not shown.
   *
   * @param productId - Card product id, `cpd_` prefix optional (passed as given).
   */
  productQuote(productId: string, query?: CardProductQuoteQuery, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.CARDS_PRODUCT_QUOTE, {
      pathParams: { id: checkId(productId, 'productId') },
      query: checkQuery(query),
      options,
    });
  }

  /**
   * Applies for a card (`POST /v1/cards/applications`). Without genuine L1 it runs the quick KYC
   * reuse or allocation (a new allocation needs `quick_kyc_email`); pending standard KYC does
   * not switch over. An initial top-up at issuance is credited as `first:<application uuid>`.
   *
   * Scope: not shown. Member-scoped. Idempotency key sent (assumed: creates an application and
   * may charge fees). Moves funds (assumed: fees and funding of the card). Shapes not shown:
   * loosely typed.
   *
   * Errors: not shown.
   */
  apply(params: CardApplyParams, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.CARDS_APPLY, { body: checkObject(params, 'params'), options });
  }

  /**
   * A card's details (`GET /v1/cards/{id}`), e.g. `status` and `limits_updatable`.
   *
   * Scope: not shown. Member-scoped (assumed, as every `/v1/cards/{id}` endpoint shown). Read: no
   * idempotency key, moves no funds. Shape not shown beyond the states: loosely typed.
   *
   * Errors: not shown.
   *
   * @param cardId - `crd_<uuid>`.
   */
  retrieve(cardId: string, options?: CallOptions): ApiPromise<Loose<CardRecord>> {
    return this.#api.call(E.CARDS_RETRIEVE, { pathParams: { id: checkId(cardId, 'cardId') }, options });
  }

  /**
   * Unfreezes a card (`POST /v1/cards/{id}/unfreeze`): `frozen` becomes `unfreezing` (target
   * `active`) and the reduced spending limit is restored. `risk_frozen` and `suspended` cards
   * cannot be unfrozen by the merchant. Emits card events.
   *
   * Scope `cards:write`. Member-scoped. Idempotency key required. Moves no funds. Sends `{}`.
   * A 500 `api_error` is not retried automatically here: risk freezes and upstream rejections
   * currently return it, and a retry only repeats it.
   *
   * Errors: 400 `state_invalid`, `product_not_available`, `idempotency_key_required`,
   * `idempotency_key_invalid`; 500 `api_error` (risk freeze, upstream rejection); 404 `not_found`.
   *
   * @param cardId - `crd_<uuid>`.
   * @returns `{id, status: 'unfreezing'}`.
   */
  unfreeze(cardId: string, options?: CallOptions): ApiPromise<CardStatusResult> {
    return this.#api.call(E.CARDS_UNFREEZE, { pathParams: { id: checkId(cardId, 'cardId') }, body: {}, options });
  }

  /**
   * Activates a physical card (`POST /v1/cards/{id}/activate`). Irreversible. Verify the end
   * user yourself before calling. Success is also signalled by `card.activated`.
   *
   * Scope: not shown. Member-scoped. Idempotency key required. Moves no funds. Never resent once
   * an attempt may have executed: a details mismatch returns 500 `api_error` and counts toward the
   * 3 failures that lock the card for 24 hours (unlocking is manual), and a 500 is not stored under
   * the key, so a resend could count again. A 500, a 409 in progress or an unknown code ends the
   * call as that `ApiError` (`retryClass` `never`); a reset or a timeout after sending, or a proxy's
   * 5xx page, ends it with `OutcomeUnknownError`. Then read the card
   * ({@link MemberCards.retrieve}): `active` means it succeeded; any other status cannot tell a
   * counted failure from a request never processed, so ask the user to check the details before a
   * new attempt. Retried with the same key only what cannot count: a 429, a failure before
   * sending, 502 `upstream_error` and 504 `upstream_timeout`. The request body (PIN) is never
   * logged.
   *
   * Rules: the card is physical and `unactivated`, has left inventory, and has no active lock.
   * An already `active` card returns 200 without counting a failure.
   *
   * Errors: 400 `state_invalid` (not awaiting activation, or locked: `extras.locked_until`),
   * `product_not_available`, `idempotency_key_required`, `idempotency_key_invalid`; 500
   * `api_error` (details mismatch, card not yet shipped); 404 `not_found`.
   *
   * @param cardId - `crd_<uuid>`.
   * @returns `{id, status: 'active'}`.
   * @throws InvalidArgumentError before sending when `expiry` is not `MM/YY` or `pin` is empty.
   * @throws OutcomeUnknownError when an attempt may have executed and its answer never came.
   */
  activate(cardId: string, params: CardActivateParams, options?: CallOptions): ApiPromise<CardStatusResult> {
    const id = checkId(cardId, 'cardId');
    return this.#api.call(E.CARDS_ACTIVATE, { pathParams: { id }, body: activationBody(checkObject(params, 'params')), options });
  }

  /**
   * The card closure precheck (`GET /v1/cards/{id}/close-check`), camelCase fields.
   *
   * Scope: not shown. Member-scoped. Read: no idempotency key, moves no funds.
   *
   * Rules: use `authHeld` for the close button. With `pendingWithdraw` true or `closePhase`
   * `sweeping`, start no other balance return. When the balance is below the product's minimum
   * retained amount `canClose` stays false: submit {@link MemberCards.close} directly.
   *
   * Errors: 404 `not_found`.
   *
   * @param cardId - `crd_<uuid>`.
   */
  closeCheck(cardId: string, options?: CallOptions): ApiPromise<CardCloseCheck> {
    return this.#api.call(E.CARDS_CLOSE_CHECK, { pathParams: { id: checkId(cardId, 'cardId') }, options });
  }

  /**
   * Closes a card (`POST /v1/cards/{id}/close`): returns the whole remaining balance, ignoring the
   * product's minimum retained balance, then freezes and closes the card.
   *
   * Scope: not shown. Member-scoped. Idempotency key sent (assumed: moves funds). Moves funds.
   * Shapes not shown: `params` sent as given (default `{}`), loosely typed result.
   *
   * Errors: not shown.
   *
   * @param cardId - `crd_<uuid>`.
   */
  close(cardId: string, params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.CARDS_CLOSE, { pathParams: { id: checkId(cardId, 'cardId') }, body: bodyOrEmpty(params), options });
  }

  /**
   * Returns part of a card's balance (`POST /v1/cards/{id}/withdrawals`); keeps the product's
   * minimum retained balance. Does not accept `reason=close`: use {@link MemberCards.close}.
   *
   * Scope: not shown. Member-scoped. Idempotency key sent (assumed: moves funds). Moves funds.
   * Shapes not shown: loosely typed.
   *
   * Errors: not shown.
   *
   * @param cardId - `crd_<uuid>`.
   * @throws InvalidArgumentError before sending when `reason` is `close`.
   */
  withdraw(cardId: string, params: CardWithdrawParams, options?: CallOptions): ApiPromise<Loose> {
    const id = checkId(cardId, 'cardId');
    if (checkObject(params, 'params').reason === 'close') {
      throw new InvalidArgumentError(
        'reason',
        'card withdrawals do not accept reason=close; call cards.close() to return the whole balance.',
      );
    }
    return this.#api.call(E.CARDS_WITHDRAW, { pathParams: { id }, body: params, options });
  }

  /**
   * Tops up a card (`POST /v1/cards/{id}/topups`). The 201 only acknowledges the order: spending
   * limits and credit are enabled after the `card.topup.credited` event.
   *
   * Scope: not shown. Member-scoped. Idempotency key sent (assumed: creates a `ctp_` order, moves
   * funds). Moves funds. Shapes not shown: loosely typed.
   *
   * Errors: not shown.
   *
   * @param cardId - `crd_<uuid>`.
   */
  topUp(cardId: string, params: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.CARDS_TOP_UP, { pathParams: { id: checkId(cardId, 'cardId') }, body: checkObject(params, 'params'), options });
  }

  /**
   * Sets a card's spending limits (`PATCH /v1/cards/{id}/limits`). `accepted: true` means the
   * change is recorded; the upstream is updated asynchronously (a decrease is recorded after
   * success, a failed increase keeps the previous value).
   *
   * Scope: not shown. Member-scoped. No idempotency key is listed: none is sent, and a key given
   * in `options.idempotencyKey` is refused before sending. Moves no funds. A 500
   * `api_error` is not retried automatically (the service returns it for an invalid amount
   * string).
   *
   * Rules: each value at least one currency unit or `0` (no limit at this layer; new cards start
   * at 0, where product limits apply), not above the product's `max_*`; `single <= daily <=
   * monthly` where neither is 0. Not for `closed`, `closing` or `expired` cards; a card whose
   * `limits_updatable` is false returns `product_not_available`.
   *
   * Errors: 400 `state_invalid`, `product_not_available`, `invalid_fields` (no `fields` array);
   * 500 `api_error` (invalid amount string); 404 `not_found`.
   *
   * @param cardId - `crd_<uuid>`.
   * @throws InvalidArgumentError before sending for a malformed value, a value below one unit
   * other than `0`, inconsistent levels, or an `options.idempotencyKey`.
   */
  updateLimits(cardId: string, params: CardLimitsParams, options?: CallOptions): ApiPromise<CardLimitsResult> {
    const id = checkId(cardId, 'cardId');
    checkObject(params, 'params');
    const body = compact({
      single: limitValue(params.single, 'single'),
      daily: limitValue(params.daily, 'daily'),
      monthly: limitValue(params.monthly, 'monthly'),
    });
    checkLimitOrder(body.single, body.daily, 'single', 'daily');
    checkLimitOrder(body.daily, body.monthly, 'daily', 'monthly');
    return this.#api.call(E.CARDS_UPDATE_LIMITS, { pathParams: { id }, body, options });
  }
}

rejectingBadInput(MemberCards);

import { InvalidArgumentError } from '../../core/errors/errors.js';
import type { ApiPromise, CallOptions, LoosePage, PagePromise } from '../../core/types.js';
import type { Loose } from '../../schemas/common.js';
import type {
  PendingActionResult,
  PersonalAccountApplication,
  RemittanceCancelResult,
  RemittanceRecord,
} from '../../schemas/remittances.js';
import * as E from '../../facts/endpoints.js';
import { amount, checkId, checkObject, checkQuery, looseListQuery, type ListParams, type LooseBody, type LooseQuery } from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Body of `POST /v1/remit/payees`: `clearing_system` is named; other keys pass through. */
export interface PayeeCreateParams {
  /** One of a corridor's `clearing_systems`, exactly as returned (letter case preserved). */
  readonly clearing_system?: string;
  /** Other fields, sent as given. */
  readonly [field: string]: unknown;
}

/** Body of `POST /v1/remittances/{id}/reconfirm`. */
export interface ReconfirmParams {
  /** The slippage action's `new_total`, sent unchanged (a string, never re-formatted). */
  readonly new_total: string;
  /** Other fields, sent as given. */
  readonly [field: string]: unknown;
}

/** Remittances of one member (express and personal 'pobo' lines). */
export class MemberRemittances {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Quotes a remittance (`POST /v1/remit/quotes`). Upstream quotes live 75 seconds.
   *
   * Scope: not shown. Member-scoped (assumed). Idempotency key sent (assumed: a stored quote; a
   * fresh key per call is harmless if ignored). Moves no funds. Shapes not shown: loosely typed.
   *
   * Errors: not shown.
   */
  quote(params: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.REMITTANCES_QUOTE, { body: checkObject(params, 'params'), options });
  }

  /**
   * The payee form for a corridor (`GET /v1/remit/payee-form-schema`).
   *
   * Scope: not shown. Member-scoped by the SDK's design (the spec does not say). Read: no
   * idempotency key, moves no funds. Query and shape not shown: the query is sent as given, the
   * result loosely typed.
   *
   * Errors: not shown beyond `corridor_not_supported` (a corridor missing any of its four parts).
   */
  payeeFormSchema(query?: LooseQuery, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.REMITTANCES_PAYEE_FORM_SCHEMA, { query: checkQuery(query), options });
  }

  /**
   * Creates a payee (`POST /v1/remit/payees`); include one clearing system as `clearing_system`,
   * exactly as the corridor returned it.
   *
   * Scope: not shown. Member-scoped (assumed). Idempotency key sent (assumed: creates a payee).
   * Moves no funds. Shapes not shown: loosely typed.
   *
   * Errors: not shown beyond `corridor_not_supported` (a corridor missing any of its four parts)
   * and `invalid_fields` with `fields` (`key`, `reason`).
   */
  createPayee(params: PayeeCreateParams, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.REMITTANCES_CREATE_PAYEE, { body: checkObject(params, 'params'), options });
  }

  /**
   * The member's remittance orders (`GET /v1/remittances`), awaitable for the first page and
   * async-iterable over orders.
   *
   * Scope: not shown. Member-scoped (assumed: orders belong to the member and merchant). Read: no
   * idempotency key, moves no funds. Shape not shown: assumed the keyset list envelope; items
   * loosely typed (`status` one of the order states).
   *
   * Errors: not shown.
   *
   * @throws InvalidArgumentError when `limit` is not a positive integer.
   */
  list(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<Loose<RemittanceRecord>, LoosePage<Loose<RemittanceRecord>>> {
    return this.#api.looseList(E.REMITTANCES_LIST, { query: looseListQuery(params), options });
  }

  /**
   * A remittance order (`GET /v1/remittances/{id}`).
   *
   * Scope: not shown. Member-scoped (assumed: orders belong to the member and merchant). Read: no
   * idempotency key, moves no funds. Shape not shown beyond the order states: loosely typed.
   *
   * Errors: not shown.
   *
   * @param remittanceId - With or without the `rmt_` prefix (passed as given).
   */
  retrieve(remittanceId: string, options?: CallOptions): ApiPromise<Loose<RemittanceRecord>> {
    return this.#api.call(E.REMITTANCES_RETRIEVE, { pathParams: { id: checkId(remittanceId, 'remittanceId') }, options });
  }

  /**
   * What the user must do for an order (`GET /v1/remittances/{id}/pending-action`). Branch with
   * `isSlippageAction` / `isSupplementAction`; show an unknown `action.kind` unchanged.
   *
   * Scope: not shown. Member-scoped. Read: no idempotency key, moves no funds.
   *
   * Rules: `action` is null when nothing is required (`waiting_on` `review`: documents under
   * review; `none`: nothing to wait for). Slippage: accept by sending `new_total` unchanged to
   * {@link MemberRemittances.reconfirm}; `can_accept: false` means no confirm button; show
   * `extra_charge`, check the balance against `extra_locked`; prices are from the last dispatch.
   * Supplement: `deadline` is always null. Reconfirmation has a 4-hour window.
   *
   * Errors: 404 `not_found`.
   *
   * @param remittanceId - With or without the `rmt_` prefix.
   */
  pendingAction(remittanceId: string, options?: CallOptions): ApiPromise<PendingActionResult> {
    return this.#api.call(E.REMITTANCES_PENDING_ACTION, { pathParams: { id: checkId(remittanceId, 'remittanceId') }, options });
  }

  /**
   * Accepts a new price (`POST /v1/remittances/{id}/reconfirm`) with the slippage action's
   * `new_total` sent unchanged; within the 4-hour reconfirmation window.
   *
   * Scope: not shown. Member-scoped. Idempotency key sent (assumed: it moves funds into an extra
   * hold). Moves funds. Resulting state and shapes: not shown; loosely typed.
   *
   * Errors: not shown.
   *
   * @param remittanceId - With or without the `rmt_` prefix.
   * @throws InvalidArgumentError when `new_total` is not a decimal string.
   */
  reconfirm(remittanceId: string, params: ReconfirmParams, options?: CallOptions): ApiPromise<Loose<RemittanceRecord>> {
    const id = checkId(remittanceId, 'remittanceId');
    checkObject(params, 'params');
    if (typeof params.new_total !== 'string') {
      throw new InvalidArgumentError('new_total', "must be the slippage action's new_total string, sent unchanged.");
    }
    amount(params.new_total, 'new_total');
    return this.#api.call(E.REMITTANCES_RECONFIRM, { pathParams: { id }, body: params, options });
  }

  /**
   * Cancels an order in `needs_reconfirm` (`POST /v1/remittances/{id}/cancel`): locked funds,
   * including extra holds of earlier rounds, return to `available`; holds and limit reservations
   * are released. Sends exactly the bytes `{}`.
   *
   * Scope `remittances:write`. Member-scoped. Idempotency key required. Moves funds. A 500
   * `api_error` is not retried automatically (an order outside `needs_reconfirm` currently returns
   * it, "which retrying does not resolve").
   *
   * Errors: 400 `state_invalid` (not cancellable; does not say why); 500 `api_error`; 404
   * `not_found` (also for orders of another member or merchant). A non-null `action` from
   * {@link MemberRemittances.pendingAction} indicates the window.
   *
   * @param remittanceId - With or without the `rmt_` prefix.
   * @returns `{id, status: 'canceled'}`.
   */
  cancel(remittanceId: string, options?: CallOptions): ApiPromise<RemittanceCancelResult> {
    return this.#api.call(E.REMITTANCES_CANCEL, { pathParams: { id: checkId(remittanceId, 'remittanceId') }, body: {}, options });
  }

  /**
   * Applies for a personal remittance ('pobo') account (`POST /v1/remit/vp/applications`). Show
   * the full agreement (`client.remittances.agreement()`) to the end user first; the service
   * stores its snapshot and `agreed_at`. Operators open the account later. Sends `{}`.
   *
   * Scope `remittances:write`. Member-scoped. Idempotency key (UUID v4) required. Moves no funds.
   *
   * Rules: the member's L1 and L2 approved, no personal-line subaccount yet. Without an opened
   * account, ordering on this line returns `remit_vp_account_required`.
   *
   * Errors: 400 `kyc_required` (L1 or L2 missing), `state_invalid` (already opened, or agreement
   * not configured); 403 `insufficient_scope`; 404 `member_not_found`.
   *
   * @returns `{id, status: 'reviewing'}` (201), or the application under review with `reused: true` (200).
   */
  applyPersonalAccount(options?: CallOptions): ApiPromise<PersonalAccountApplication> {
    return this.#api.call(E.REMITTANCES_APPLY_PERSONAL_ACCOUNT, { body: {}, options });
  }
}

rejectingBadInput(MemberRemittances);

import type { ApiPromise, CallOptions } from '../../core/types.js';
import type { Loose } from '../../schemas/common.js';
import { EXCHANGE_ORDER, EXCHANGE_QUOTE } from '../../facts/endpoints.js';
import { checkObject, type LooseBody } from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Body of `POST /v1/exchange/quotes`: only `lock` is named by the spec; other keys pass through. */
export interface ExchangeQuoteParams {
  /** Locks the price; an expired locked quote is always rejected. */
  readonly lock?: boolean;
  /** Other fields, sent as given. */
  readonly [field: string]: unknown;
}

/** Internal exchange of one member. */
export class MemberExchange {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Quotes an internal exchange (`POST /v1/exchange/quotes`); `lock: true` locks the price.
   *
   * Scope: not shown. Member-scoped (the spec: "Member exchange locks prices through `lock: true`").
   * Idempotency key sent (assumed: a locked quote is a stored object; a fresh key per call is
   * harmless if the service ignores it). Moves no funds. Shapes not shown: loosely typed. An
   * expired locked quote is always rejected (code not shown).
   *
   * Errors: not shown.
   */
  quote(params: ExchangeQuoteParams, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(EXCHANGE_QUOTE, { body: checkObject(params, 'params'), options });
  }

  /**
   * Executes an internal exchange (`POST /v1/exchange/orders`). Synchronous: executed (status
   * `executed`, terminal) when it returns 201; `exchange.order.executed` follows.
   *
   * Scope: not shown. Member-scoped (assumed). Idempotency key sent (assumed: creates an order,
   * moves funds). Moves funds. Shapes not shown: `params` sent as given, loosely typed result.
   *
   * Errors: not shown.
   */
  order(params: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(EXCHANGE_ORDER, { body: checkObject(params, 'params'), options });
  }
}

rejectingBadInput(MemberExchange);

import type { ApiPromise, CallOptions } from '../../core/types.js';
import type { Loose } from '../../schemas/common.js';
import { DEPOSITS_DECLARE } from '../../facts/endpoints.js';
import { checkObject, type LooseBody } from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Deposits of one member. */
export class MemberDeposits {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Declares a deposit for the member (`POST /v1/deposits`).
   *
   * Scope: not shown (`deposits:write` is a restricted scope name the spec lists, without saying
   * which endpoint needs it). Member-scoped (assumed: the spec lists deposit declaration among
   * the operations that move member funds). Idempotency key sent (assumed: it creates a deposit
   * record and moves funds). Moves funds. Always signed, whatever the key configuration. Rate
   * bucket `deposits` (60 per minute).
   *
   * Request and response shapes: not shown. `params` is sent as given; the result is loosely typed.
   *
   * Errors: not shown.
   */
  declare(params: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(DEPOSITS_DECLARE, { body: checkObject(params, 'params'), options });
  }
}

rejectingBadInput(MemberDeposits);

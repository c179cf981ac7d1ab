import type { ApiPromise, CallOptions, EndpointCaller } from '../core/types.js';
import type { Loose } from '../schemas/common.js';
import { MEMBERS_CREATE, MEMBERS_SUSPEND } from '../facts/endpoints.js';
import { bodyOrEmpty, checkId, checkObject, type LooseBody } from './guards.js';
import { rejectingBadInput } from './rejections.js';

/** Body of `POST /v1/members`: only `external_member_id` is named; other keys pass through. */
export interface MemberCreateParams {
  /** The merchant's own identifier of the member. */
  readonly external_member_id?: string;
  /** Other fields, sent as given. */
  readonly [field: string]: unknown;
}

/** Member administration (merchant account). */
export class Members {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * Creates a member (`POST /v1/members`).
   *
   * Scope: not shown (`members:read` is the only member scope named). Merchant account.
   * Idempotency key sent (assumed: creates an object). Moves no funds. Rate bucket
   * `members_write`. Shapes not shown: loosely typed.
   *
   * Errors: not shown.
   */
  create(params: MemberCreateParams, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(MEMBERS_CREATE, { body: checkObject(params, 'params'), options });
  }

  /**
   * Suspends a member (`POST /v1/members/{id}/suspend`). A suspended member then answers
   * `member_not_found` to member-scoped calls.
   *
   * Scope: not shown. Merchant account (the member is in the path, not `x-on-behalf-of`). No
   * idempotency key generated (assumed: suspending is inherently idempotent); the spec does not
   * show the requirement, so a key given in `options.idempotencyKey` is sent as given. Moves no
   * funds. Rate bucket `members_write`. Shapes not shown: `params` sent as given (default `{}`),
   * loosely typed result.
   *
   * Errors: not shown.
   *
   * @param memberId - `external_member_id` or `mem_<uuid>` (assumed, as for `x-on-behalf-of`).
   */
  suspend(memberId: string, params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(MEMBERS_SUSPEND, { pathParams: { id: checkId(memberId, 'memberId') }, body: bodyOrEmpty(params), options });
  }
}

rejectingBadInput(Members);

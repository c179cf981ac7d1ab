import type { ApiPromise, CallOptions } from '../../core/types.js';
import type { Loose } from '../../schemas/common.js';
import { SHIPPING_ADDRESSES_UPDATE } from '../../facts/endpoints.js';
import { checkId, checkObject } from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/**
 * Body of `PATCH /v1/shipping-addresses/{id}`: the fields the spec's example names. Which six are
 * required and any other field: not shown, so other keys pass through.
 */
export interface ShippingAddressParams {
  /** Country. */
  readonly country?: string;
  /** Recipient last name. */
  readonly recipient_last?: string;
  /** Recipient first name. */
  readonly recipient_first?: string;
  /** Phone country code. */
  readonly phone_code?: string;
  /** Phone number. */
  readonly phone_number?: string;
  /** City. */
  readonly city?: string;
  /** First address line. */
  readonly line1?: string;
  /** Clearable. */
  readonly line2?: string;
  /** Postal code. */
  readonly postal_code?: string;
  /** Other fields (not shown by the spec) are sent as given. */
  readonly [field: string]: unknown;
}

/** Shipping addresses of one member. */
export class MemberShippingAddresses {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Replaces a shipping address as a whole (`PATCH /v1/shipping-addresses/{id}`).
   *
   * Scope `addresses:write`. Member-scoped. Idempotency key required. Moves no funds.
   *
   * Rules: no merging, so send every item (the six required items must all be present, as when
   * adding an address). The default flag is unchanged. Existing physical card orders keep their
   * address snapshot. The response shape is not shown: loosely typed.
   *
   * Errors: 400 `invalid_fields` (with `fields[].key`), `idempotency_key_required`; 404 `not_found`.
   *
   * @param addressId - The address id.
   */
  update(addressId: string, params: ShippingAddressParams, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(SHIPPING_ADDRESSES_UPDATE, {
      pathParams: { id: checkId(addressId, 'addressId') },
      body: checkObject(params, 'params'),
      options,
    });
  }
}

rejectingBadInput(MemberShippingAddresses);

import type { ApiPromise, CallOptions, EndpointCaller } from '../core/types.js';
import type { AmountInput } from '../money.js';
import type { FaucetCredit } from '../schemas/sandbox.js';
import { SANDBOX_FAUCET } from '../facts/endpoints.js';
import { checkObject, checkText, compact, optionalAmount } from './guards.js';
import { rejectingBadInput } from './rejections.js';

/** Body of `POST /v1/sandbox/faucet`. */
export interface FaucetParams {
  /** Asset code (uppercased), in the catalog and enabled. */
  readonly asset: string;
  /** Positive, decimals up to the asset's `ledger_scale`; default 10000, maximum 1,000,000 whole units. */
  readonly amount?: AmountInput;
}

/** Sandbox-only helpers. */
export class SandboxFaucet {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * Credits the merchant prepaid available balance in the sandbox (`POST /v1/sandbox/faucet`),
   * through the normal posting path. Live credentials always get 404 `not_found` (the test is the
   * token's merchant, not the hostname).
   *
   * Scope: not shown. Merchant account (it credits the merchant's own prepaid balance).
   * Idempotency key (UUID v4) required: the same key returns the same credit with
   * `duplicated: true` and posts nothing. Moves funds (sandbox).
   *
   * Errors: 400 `invalid_request`, `asset_not_allowed`, `limit_exceeded` (above the maximum,
   * `limit_type: single`), `idempotency_key_required`, `idempotency_key_invalid`; 409
   * `idempotency_key_reused`, `idempotency_in_progress`; 404 `not_found` (live credentials).
   */
  faucet(params: FaucetParams, options?: CallOptions): ApiPromise<FaucetCredit> {
    checkObject(params, 'params');
    const body = compact({ asset: checkText(params.asset, 'asset'), amount: optionalAmount(params.amount, 'amount') });
    return this.#api.call(SANDBOX_FAUCET, { body, options });
  }
}

rejectingBadInput(SandboxFaucet);

/**
 * The former name of {@link SandboxFaucet}, kept so that code naming it still compiles.
 *
 * @deprecated Use `SandboxFaucet`: `Sandbox` is also the simulator's type in
 * `merchant-stablecoin/testing`, and one name for two things misleads.
 */
export type Sandbox = SandboxFaucet;

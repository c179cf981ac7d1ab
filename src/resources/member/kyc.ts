import type { ApiPromise, CallOptions } from '../../core/types.js';
import type { Loose } from '../../schemas/common.js';
import type { KycApplication, QuickKycResult } from '../../schemas/kyc.js';
import { KYC_CREATE_SESSION, KYC_QUICK_BIND, KYC_STATUS, KYC_SUBMIT_APPLICATION } from '../../facts/endpoints.js';
import { bodyOrEmpty, checkObject, checkQuery, checkOptionalText, compact, type LooseBody, type LooseQuery } from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Body of `POST /v1/kyc/applications`. */
export interface KycApplicationParams {
  /** Optional `cpd_` prefix; creates only a product snapshot. Do not supply issuer or BIN. */
  readonly card_product_id?: string;
  /**
   * L1 identity profile: complete on the first submission, `{}` allowed after L1 approval.
   * Sub-fields are not shown beyond first-name, last-name and nationality keys of an example, so
   * the object is sent as given.
   */
  readonly profile: Readonly<Record<string, unknown>>;
}

/** Body of `POST /v1/kyc/quick`. */
export interface QuickKycParams {
  /** Required for a new allocation; an address never used before (case and surrounding space ignored). */
  readonly email?: string;
  /** Matches the product's country and document requirements. */
  readonly card_product_id?: string;
  /** Alternative to `card_product_id`, together with `identity_type`. */
  readonly country?: string;
  /** Identity document type, with `country`. */
  readonly identity_type?: string;
}

/** Identity verification of one member. */
export class MemberKyc {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * Submits the member's L1 KYC (`POST /v1/kyc/applications`). Emits no webhook; approval,
   * rejection or a supplement request emits `kyc.result.updated`. Poll {@link MemberKyc.status}.
   *
   * Scope: not shown. Member-scoped. Idempotency key required. Moves no funds.
   *
   * Rules: one non-rejected profile per person. For the same member and product, a submission
   * while one is non-terminal or approved returns the existing application (200); rejected ones
   * may be resubmitted. Another product while the first is pending: `state_invalid`. With L1
   * approved, another product only adds an approved snapshot (`profile` may be `{}`).
   *
   * Errors: 400 `invalid_request`, `product_not_available`, `state_invalid`,
   * `idempotency_key_required`; 404 `member_not_found`, `card_product_not_found` (as the spec
   * names it; not in the code catalogue); 409 `idempotency_key_reused`.
   *
   * @returns The application, status `pending`.
   */
  submitApplication(params: KycApplicationParams, options?: CallOptions): ApiPromise<KycApplication> {
    checkObject(params, 'params');
    const body = compact({
      card_product_id: checkOptionalText(params.card_product_id, 'card_product_id'),
      profile: checkObject(params.profile, 'profile'),
    });
    return this.#api.call(KYC_SUBMIT_APPLICATION, { body, options });
  }

  /**
   * Binds a quick KYC profile (`POST /v1/kyc/quick`). Pass the returned `binding.id` as
   * `quick_kyc_binding_id` to card product quotes and applications for the same member.
   *
   * Scope: not shown. Member-scoped. Idempotency key required. Moves funds on a new allocation (a
   * one-time profile fee, default 10 USDT, from the member's balance or the merchant prepayment).
   *
   * Rules: a matching existing binding is reused (200, no charge); at most 5 bindings per member.
   * Binding neither changes the KYC level nor bypasses a product's L2 requirement.
   *
   * Errors: 400 `quick_kyc_disabled`, `quick_kyc_limit`, `quick_kyc_exhausted`,
   * `quick_kyc_unpaid`, `invalid_request`, `member_context_required`; 404 `member_not_found`;
   * 409 `idempotency_key_reused`, `idempotency_in_progress`.
   */
  quickBind(params: QuickKycParams, options?: CallOptions): ApiPromise<QuickKycResult> {
    checkObject(params, 'params');
    const body = compact({
      email: checkOptionalText(params.email, 'email'),
      card_product_id: checkOptionalText(params.card_product_id, 'card_product_id'),
      country: checkOptionalText(params.country, 'country'),
      identity_type: checkOptionalText(params.identity_type, 'identity_type'),
    });
    return this.#api.call(KYC_QUICK_BIND, { body, options });
  }

  /**
   * The member's KYC state (`GET /v1/kyc`), polled after {@link MemberKyc.submitApplication}.
   *
   * Scope: not shown. Member-scoped (assumed: it reports the member's result). Read: no
   * idempotency key, moves no funds. Shape not shown: loosely typed.
   *
   * Errors: not shown.
   */
  status(query?: LooseQuery, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(KYC_STATUS, { query: checkQuery(query), options });
  }

  /**
   * Opens a KYC session (`POST /v1/kyc/sessions`).
   *
   * Scope: not shown. Member-scoped (assumed). Idempotency key sent (assumed: creates a session).
   * Moves no funds. Shapes not shown: `params` sent as given (default `{}`), loosely typed result.
   *
   * Errors: not shown.
   */
  createSession(params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(KYC_CREATE_SESSION, { body: bodyOrEmpty(params), options });
  }
}

rejectingBadInput(MemberKyc);

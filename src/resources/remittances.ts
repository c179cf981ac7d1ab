import type { ApiPromise, CallOptions, EndpointCaller, Page } from '../core/types.js';
import type { Agreement, Corridor, SwiftSearchResult } from '../schemas/remittances.js';
import { REMITTANCES_AGREEMENT, REMITTANCES_CORRIDORS, REMITTANCES_SWIFT_SEARCH } from '../facts/endpoints.js';
import { checkObject, checkOptionalText, checkText, mapApiPromise } from './guards.js';
import type { OpenEnum } from '../schemas/common.js';
import { rejectingBadInput } from './rejections.js';

/** Query of `GET /v1/remit/corridors`. */
export interface CorridorsParams {
  /** `express` or `pobo`; affects only the settlement-currency filter. Unrecognised values are treated as `express`. */
  readonly line?: 'express' | 'pobo';
}

/** Query of `GET /v1/remit/swift-search`. */
export interface SwiftSearchParams {
  /** A BIC of 8 or 11 characters, or part of a bank name (over 64 characters truncated). */
  readonly q: string;
  /** Two-letter uppercase country code; applies to name searches only. */
  readonly country?: string;
}

/** Query of `GET /v1/remit/vp/agreement`. */
export interface AgreementParams {
  /** `zh-Hans`, `zh-Hant`, `en`, `fr`, `ja` or `ko`; `Accept-Language` when omitted. */
  readonly lang?: OpenEnum<'zh-Hans' | 'zh-Hant' | 'en' | 'fr' | 'ja' | 'ko'>;
}

/** Merchant-level remittance data: corridors, bank directory, personal-line agreement. */
export class MerchantRemittances {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * The corridors available to this merchant (`GET /v1/remit/corridors`): the envelope's `data`.
   * Per merchant: never share the list across merchants.
   *
   * Scope `remittances:read`. Merchant account. Read: no idempotency key, moves no funds.
   *
   * Rules: a corridor is country, currency, payment method and one clearing system; payee
   * creation sends one as `clearing_system` exactly as returned (case preserved). Retrieval
   * failures are 5xx with a `request_id`, never an empty list: `[]` means nothing is available.
   *
   * Errors: 403 `insufficient_scope`.
   */
  corridors(params?: CorridorsParams, options?: CallOptions): ApiPromise<Corridor[]> {
    return mapApiPromise(this.corridorsEnvelope(params, options), (page) => page.data);
  }

  /**
   * The whole `GET /v1/remit/corridors` envelope (`next_cursor: null`, `has_more: false`).
   * Prefer {@link MerchantRemittances.corridors}.
   *
   * Scope `remittances:read`. Merchant account. Read: no idempotency key, moves no funds.
   *
   * Errors: 403 `insufficient_scope`.
   */
  corridorsEnvelope(params?: CorridorsParams, options?: CallOptions): ApiPromise<Page<Corridor>> {
    const line = params === undefined ? undefined : checkOptionalText(checkObject(params, 'params').line, 'line');
    return this.#api.call(REMITTANCES_CORRIDORS, { query: { line }, options });
  }

  /**
   * Searches the bank directory (`GET /v1/remit/swift-search`) to prefill payee fields (the
   * user's values prevail and are not validated against the directory).
   *
   * Scope `remittances:read`. Merchant account. Read: no idempotency key, moves no funds.
   * Separate limit: 300 per minute per merchant.
   *
   * Rules: `unavailable: true` means the directory is not configured or unreachable, unlike an
   * empty `banks`. A query under 6 characters that does not look like a BIC returns `banks: []`
   * without an external request.
   *
   * Errors: 429 `rate_limited`.
   *
   * @throws InvalidArgumentError when `q` is empty.
   */
  swiftSearch(params: SwiftSearchParams, options?: CallOptions): ApiPromise<SwiftSearchResult> {
    checkObject(params, 'params');
    const query = { q: checkText(params.q, 'q'), country: checkOptionalText(params.country, 'country') };
    return this.#api.call(REMITTANCES_SWIFT_SEARCH, { query, options });
  }

  /**
   * The personal remittance agreement (`GET /v1/remit/vp/agreement`); show all of it to the end
   * user before `member.remittances.applyPersonalAccount()`.
   *
   * Scope `remittances:read`. Merchant account. Read: no idempotency key, moves no funds.
   *
   * Rules: unconfigured languages fall back through `en`, then `zh-Hans` (the returned `lang` may
   * differ). `intro` may be null.
   *
   * Errors: 503 `service_unavailable` (agreement not configured: account opening must not proceed).
   */
  agreement(params?: AgreementParams, options?: CallOptions): ApiPromise<Agreement> {
    const lang = params === undefined ? undefined : checkOptionalText(checkObject(params, 'params').lang, 'lang');
    return this.#api.call(REMITTANCES_AGREEMENT, { query: { lang }, options });
  }
}

rejectingBadInput(MerchantRemittances);

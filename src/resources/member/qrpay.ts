import type { ApiPromise, CallOptions, LoosePage, PagePromise } from '../../core/types.js';
import type { AmountInput } from '../../money.js';
import type { Loose, LooseItem } from '../../schemas/common.js';
import type { QrDecodeResult, QrQuote } from '../../schemas/qrpay.js';
import { QRPAY_DECODE, QRPAY_PAY, QRPAY_QUOTE, QRPAY_SCHEMES } from '../../facts/endpoints.js';
import {
  checkObject,
  checkOptionalText,
  checkText,
  compact,
  looseListQuery,
  optionalAmount,
  type ListParams,
  type LooseQuery,
} from '../guards.js';
import type { MemberCaller } from './member-caller.js';
import { rejectingBadInput } from '../rejections.js';

/** Payer keys the service accepts for a QR quote (unknown keys are discarded by the service). */
export interface QrPayer {
  /** Customer full name. */
  readonly custName?: string;
  /** Customer first name. */
  readonly custFirstName?: string;
  /** Customer last name. */
  readonly custLastName?: string;
  /** Customer nationality code. */
  readonly custNationCode?: string;
  /** Gender. */
  readonly gender?: string;
  /** Mobile number. */
  readonly mobile?: string;
  /** Email address. */
  readonly email?: string;
  /** Country that issued the legal identity document. */
  readonly legalNationCode?: string;
  /** Legal identity document type. */
  readonly legalType?: string;
  /** Legal identity document number. */
  readonly legalId?: string;
}

/** Body of `POST /v1/qrpay/quotes`. */
export interface QrQuoteParams {
  /** Default `member`; `merchant` only in merchant-hosted mode (debits the merchant prepaid account). */
  readonly funding_source?: 'member' | 'merchant';
  /** The original QR payload; must match the value later sent to payments. */
  readonly code_value: string;
  /** Fiat currency; only for custom-amount codes (`amount_editable: true`), prohibited otherwise. */
  readonly currency?: string;
  /**
   * Fiat amount (not a digital-asset amount); only for custom-amount codes. A plain non-negative
   * decimal string: the spec states no positivity or range rule here, so `0` is sent and the
   * service decides (`amount_out_of_range`, `invalid_request`).
   */
  readonly amount?: AmountInput;
  /** Principal asset; must be among `options[].asset`, else rejected (never replaced). */
  readonly preferred_asset?: string;
  /** Only when decode's `required_payer_fields` is non-empty (such codes cannot proceed through this API). */
  readonly payer?: QrPayer;
}

/**
 * Body of `POST /v1/qrpay/payments`: not shown. The fields the prose ties to the quote are typed
 * (the quote's `code_value`, `currency` and `amount` must match); other keys pass through.
 */
export interface QrPayParams {
  /** The QR payload; the same value as in the quote. */
  readonly code_value?: string;
  /** Fiat currency; the same as in the quote (custom-amount codes only). */
  readonly currency?: string;
  /** Fiat amount; the same as in the quote (custom-amount codes only). */
  readonly amount?: string;
  /** Principal asset, as for the quote. */
  readonly preferred_asset?: string;
  /** `member` (default) or `merchant`, as for the quote. */
  readonly funding_source?: 'member' | 'merchant';
  /** Other fields (the body is not shown by the spec) are sent as given. */
  readonly [field: string]: unknown;
}

/** QR-code payments of one member. */
export class MemberQrpay {
  readonly #api: MemberCaller;

  /** @internal Built by the member view, bound to its member. */
  constructor(api: MemberCaller) {
    this.#api = api;
  }

  /**
   * The supported QR standards (`GET /v1/qrpay/schemes`), a prerequisite of quotes.
   *
   * Scope: not shown. Member-scoped by the SDK's design (part of the member's QR flow; the spec
   * does not say). Read: no idempotency key, moves no funds. Shape not shown: assumed the list
   * envelope, loosely typed items.
   *
   * Errors: not shown.
   */
  schemes(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(QRPAY_SCHEMES, { query: looseListQuery(params), options });
  }

  /**
   * Decodes a QR payload (`POST /v1/qrpay/decode`): tells `amount_editable` and
   * `required_payer_fields`.
   *
   * Scope: not shown. Member-scoped (assumed, QR flow). No idempotency key generated (assumed:
   * decoding creates nothing); the spec does not show the requirement, so a key given in
   * `options.idempotencyKey` is sent as given. Moves no funds. Shapes not shown: `params` sent as
   * given, loosely typed result.
   *
   * Errors: not shown.
   */
  decode(params: Readonly<Record<string, unknown>>, options?: CallOptions): ApiPromise<Loose<QrDecodeResult>> {
    return this.#api.call(QRPAY_DECODE, { body: checkObject(params, 'params'), options });
  }

  /**
   * Quotes a QR payment (`POST /v1/qrpay/quotes`). Creates a pending order upstream.
   *
   * Scope `qrpay:write`. Member-scoped. No idempotency key: none is sent, and a key given in
   * `options.idempotencyKey` is refused before sending. Moves no funds (holds none).
   *
   * Rules: the same member, `code_value`, `currency` and `amount` reuse one upstream order for 60
   * seconds; at most 30 quotes per member per 60 seconds (plus merchant quotas). `customer_total`
   * is indicative (payments re-quote). `expires_at` may be `""`. A non-empty `blocked_reason`
   * makes `chosen` unpayable. Merchant-funded: principal plus a fee (minimum 0.01 when the rate is
   * non-zero) in `USDT`, or wholly `USDC` when `USDT` cannot cover it; never split.
   *
   * Errors: 400 `qr_code_invalid`, `corridor_not_supported`, `amount_out_of_range`,
   * `kyc_required`, `insufficient_balance`, `request_rejected`, `product_not_available`,
   * `service_unavailable`, `invalid_request`, `member_context_required`; 404 `member_not_found`;
   * 403 `insufficient_scope`; 429 `rate_limited` (with `Retry-After`); 502 `upstream_error` (no
   * funds moved, safe to retry).
   *
   * @throws InvalidArgumentError before sending when `code_value` is empty, `amount` is not a
   * plain non-negative decimal string (`0` is sent: the spec states no positivity rule here), or
   * `options.idempotencyKey` is given.
   */
  quote(params: QrQuoteParams, options?: CallOptions): ApiPromise<QrQuote> {
    checkObject(params, 'params');
    const body = compact({
      funding_source: checkOptionalText(params.funding_source, 'funding_source'),
      code_value: checkText(params.code_value, 'code_value'),
      currency: checkOptionalText(params.currency, 'currency'),
      // No positivity rule in the spec for a quote's fiat amount: `0` goes to the service.
      amount: optionalAmount(params.amount, 'amount', { positive: false }),
      preferred_asset: checkOptionalText(params.preferred_asset, 'preferred_asset'),
      payer: params.payer === undefined ? undefined : checkObject(params.payer, 'payer'),
    });
    return this.#api.call(QRPAY_QUOTE, { body, options });
  }

  /**
   * Pays a QR code (`POST /v1/qrpay/payments`); obtains a fresh quote, so amounts may differ from
   * the quote's `customer_total` by a few minor units. A quote's non-empty `blocked_reason` is
   * returned immediately.
   *
   * Scope: not shown. Member-scoped (debits the member). Idempotency key sent (assumed: creates
   * a payment and moves funds). Moves funds. Shapes not shown: loosely typed.
   *
   * Errors: not shown.
   */
  pay(params: QrPayParams, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(QRPAY_PAY, { body: checkObject(params, 'params'), options });
  }
}

rejectingBadInput(MemberQrpay);

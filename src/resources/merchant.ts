import { InvalidArgumentError } from '../core/errors/errors.js';
import type { ApiPromise, CallOptions, EndpointCaller, LoosePage, PagePromise } from '../core/types.js';
import type { AmountInput } from '../money.js';
import type { Loose, LooseItem } from '../schemas/common.js';
import type { MerchantConversion, TopupDeclaration } from '../schemas/merchant.js';
import * as E from '../facts/endpoints.js';
import {
  amount,
  bodyOrEmpty,
  checkMaxChars,
  checkObject,
  checkOptionalText,
  checkQuery,
  checkText,
  compact,
  looseListQuery,
  optionalAmount,
  type ListParams,
  type LooseBody,
  type LooseQuery,
} from './guards.js';
import { rejectingBadInput } from './rejections.js';

/**
 * Body of `POST /v1/merchant/conversions`. There is deliberately no `quote_id`: the service
 * rejects any presence of the key (even `null` or `""`) with `quote_lock_unsupported`.
 */
export interface MerchantConversionParams {
  /** Case-insensitive asset code. */
  readonly from_asset: string;
  /** Must differ from `from_asset`. */
  readonly to_asset: string;
  /** Positive, decimals up to the `ledger_scale` of `from_asset`. */
  readonly from_amount: AmountInput;
  /** Slippage floor in `to_asset` precision; below it the whole conversion is rejected. Omit for none. */
  readonly min_to_amount?: AmountInput;
}

/** Body of `POST /v1/merchant/topups`. */
export interface TopupCreateParams {
  /** Asset code (uppercased by the service). */
  readonly asset: string;
  /**
   * `chain` or `fiat`. Only exactly `fiat` selects the fiat path: the service silently turns any
   * other value, omission and case variants (`FIAT`) included, into `chain`, and a declared
   * `chain` record has no transaction hash and never posts automatically. Sent as given.
   */
  readonly channel?: 'chain' | 'fiat';
  /**
   * Positive decimal string, at most 20 integer digits and 12 decimals; stored as `amount_text`.
   * The 20 digits are the significant ones: leading zeros are sent as given and not counted
   * (`007` is one digit, the value 7: a decimal string has one reading; the sandbox counts the
   * same way).
   */
  readonly amount: AmountInput;
  /** At most 64 characters; merged into `note` behind a fixed receipt prefix, not returned separately. */
  readonly reference_no?: string;
  /**
   * Free text, sent whole at any length: the service combines it with `reference_no` and
   * truncates the merged note at 300 characters.
   */
  readonly note?: string;
  /**
   * No effect. Not sent. The SDK used to refuse a note that the service's merge with
   * `reference_no` could cut at 300 characters unless this was true. The spec lets the service
   * truncate the merged note, so every note is now sent, and this flag is accepted only so that
   * existing calls keep compiling.
   *
   * @deprecated No effect: the service truncates the merged note at 300 characters, and the SDK
   * sends every note. Remove it.
   */
  readonly allowNoteTruncation?: boolean;
}

/** Merchant asset conversions. */
export class MerchantConversions {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * Converts between two assets of the merchant prepaid account (`POST /v1/merchant/conversions`).
   * Atomic and irreversible: no intermediate state, cancellation or retry. Priced by the service's
   * price list at execution (no quote lock); the fee is shown as `fee_asset` / `fee_amount`.
   * No webhook.
   *
   * Scope `merchant:write` (restricted, needs approval). Merchant account. Idempotency key (UUID
   * v4) required. Moves funds.
   *
   * Rules: `custody_model` is `merchant_hosted`; the direction is priced and enabled; both assets
   * enabled and allowed; available minus queued (incl. `pending_merchant_funds`) covers
   * `from_amount`. Within 24 hours the same key and body replay the 201 (`X-Idempotent-Replay`);
   * later the funds layer answers 200 with `duplicated: true`. `service_unavailable` is not cached
   * under the key, so the same key may be retried: its `retryClass` is `same_key_later` on this
   * endpoint. The SDK does not retry it automatically (the Retry rules list it among no same-key
   * codes, and the line is down for a cause not told, with no `retry_after` here); call again
   * later with `err.idempotencyKey`. Other failures replay and need a new key.
   *
   * Errors: 400 `quote_lock_unsupported`, `invalid_request`, `asset_not_allowed`,
   * `product_not_available`, `amount_out_of_range` (also below minimum, above maximum, slippage),
   * `merchant_insufficient_funds`, `limit_exceeded` (no `limit_type`/`limit_scope`),
   * `service_unavailable`; 403 `insufficient_scope`; 409 `idempotency_key_reused`,
   * `idempotency_in_progress`.
   *
   * @throws InvalidArgumentError before sending when `params` has a `quote_id` key (any value),
   * an amount is malformed, or the two assets are the same.
   */
  create(params: MerchantConversionParams, options?: CallOptions): ApiPromise<MerchantConversion> {
    checkObject(params, 'params');
    if ('quote_id' in params) {
      throw new InvalidArgumentError(
        'quote_id',
        'is never accepted by merchant conversions (the service rejects its mere presence with quote_lock_unsupported); remove the key.',
      );
    }
    const from = checkText(params.from_asset, 'from_asset');
    const to = checkText(params.to_asset, 'to_asset');
    if (from.toUpperCase() === to.toUpperCase()) throw new InvalidArgumentError('to_asset', 'must differ from from_asset.');
    const body = compact({
      from_asset: from,
      to_asset: to,
      from_amount: amount(params.from_amount, 'from_amount'),
      min_to_amount: optionalAmount(params.min_to_amount, 'min_to_amount', { positive: false }),
    });
    return this.#api.call(E.MERCHANT_CONVERSIONS_CREATE, { body, options });
  }
}

/** Prepaid top-up declarations. */
export class MerchantTopups {
  readonly #api: EndpointCaller;
  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
  }

  /**
   * Declares a prepaid top-up (`POST /v1/merchant/topups`). Changes no balance: it registers a
   * `pending` declaration, posted only after receipt is confirmed (on-chain receipts post
   * automatically; offline settlement needs dual approval). No webhook: poll {@link MerchantTopups.list}.
   *
   * Scope `merchant:write` (restricted). Merchant account. Idempotency key (UUID v4) required; the
   * 24-hour window is the only layer (after it, the same key creates a second declaration). Moves
   * no funds (the declaration changes no balance).
   *
   * Rules: `amount` is positive with at most 20 integer digits (significant ones: leading zeros
   * are not counted) and 12 decimals, sent as given and stored unchanged as `amount_text`.
   * `channel` is sent as given: only exactly `fiat` selects the fiat path, and the service
   * silently turns any other value (even `FIAT`) into `chain`, a record with no transaction hash
   * that never posts automatically. The service merges `reference_no` (at most 64 characters)
   * into `note` behind a fixed Chinese receipt prefix and truncates the merged note at 300
   * characters: a long `note` is sent whole and cut by the service, never refused here. The
   * prefix's length and the order of the merged parts are not shown, so how much of the note or
   * of the bank reference survives the cut is the service's; keep `note` short when the reference
   * must survive whole.
   *
   * Errors: 400 `invalid_request` (body not JSON or asset missing), `invalid_fields` (amount, with
   * `fields[].key = amount`), `asset_not_allowed`; 403 `insufficient_scope`; 409
   * `idempotency_key_reused`, `idempotency_in_progress`.
   *
   * @throws InvalidArgumentError before sending when `asset` is empty, `amount` is not positive
   * or exceeds 20 significant integer digits or 12 decimals, `reference_no` exceeds 64 characters,
   * or `channel`, `reference_no` or `note` is not a string.
   */
  create(params: TopupCreateParams, options?: CallOptions): ApiPromise<TopupDeclaration> {
    checkObject(params, 'params');
    const { reference_no } = params;
    // `allowNoteTruncation` is deprecated and has no effect: never read, never sent.
    const body = compact({
      asset: checkText(params.asset, 'asset'),
      channel: checkOptionalText(params.channel, 'channel'),
      amount: amount(params.amount, 'amount', { maxIntegerDigits: 20, maxDecimals: 12 }),
      reference_no:
        reference_no === undefined ? undefined : checkMaxChars(checkOptionalText(reference_no, 'reference_no')!, 'reference_no', 64),
      note: checkOptionalText(params.note, 'note'),
    });
    return this.#api.call(E.MERCHANT_TOPUPS_CREATE, { body, options });
  }

  /**
   * Top-up declarations and their progress (`GET /v1/merchant/topups`).
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: assumed the list envelope, loosely typed items.
   *
   * Errors: not shown.
   */
  list(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(E.MERCHANT_TOPUPS_LIST, { query: looseListQuery(params), options });
  }
}

/** The merchant's own prepaid account. */
export class MerchantAccount {
  readonly #api: EndpointCaller;
  /** Asset conversions. */
  readonly conversions: MerchantConversions;
  /** Top-up declarations. */
  readonly topups: MerchantTopups;

  /** @internal Built by the client. */
  constructor(api: EndpointCaller) {
    this.#api = api;
    this.conversions = new MerchantConversions(api);
    this.topups = new MerchantTopups(api);
  }

  /**
   * The merchant prepaid balances (`GET /v1/merchant/balances`).
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: assumed the list envelope.
   *
   * Errors: not shown.
   */
  balances(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(E.MERCHANT_BALANCES, { query: looseListQuery(params), options });
  }

  /**
   * The merchant's line switches (`GET /v1/merchant/lines`); withdrawals follow the withdraw
   * line's switch (disabled or halted: `service_unavailable`).
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: assumed the list envelope.
   *
   * Errors: not shown.
   */
  lines(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(E.MERCHANT_LINES, { query: looseListQuery(params), options });
  }

  /**
   * Pending amounts of the merchant account (`GET /v1/merchant/pending`).
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: a loosely typed object.
   *
   * Errors: not shown.
   */
  pending(query?: LooseQuery, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.MERCHANT_PENDING, { query: checkQuery(query), options });
  }

  /**
   * The conversion directions and prices (`GET /v1/merchant/conversion-pairs`).
   *
   * Scope: not shown. Merchant account. Read: no idempotency key, moves no funds. Shape not
   * shown: assumed the list envelope.
   *
   * Errors: not shown.
   */
  conversionPairs(params?: ListParams & LooseQuery, options?: CallOptions): PagePromise<LooseItem, LoosePage<LooseItem>> {
    return this.#api.looseList(E.MERCHANT_CONVERSION_PAIRS, { query: looseListQuery(params), options });
  }

  /**
   * A deposit address of the merchant account (`POST /v1/merchant/deposit-address`).
   *
   * Scope: not shown. Merchant account. Idempotency key sent (assumed: it allocates an address
   * object; a fresh key per call is harmless if ignored). Moves no funds. Shapes not shown:
   * loosely typed.
   *
   * Errors: not shown beyond `service_unavailable`, which here carries `retry_after` (seconds).
   */
  depositAddress(params?: LooseBody, options?: CallOptions): ApiPromise<Loose> {
    return this.#api.call(E.MERCHANT_DEPOSIT_ADDRESS, { body: bodyOrEmpty(params), options });
  }
}

rejectingBadInput(MerchantConversions);
rejectingBadInput(MerchantTopups);
rejectingBadInput(MerchantAccount);

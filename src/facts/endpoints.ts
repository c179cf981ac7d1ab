/**
 * Every endpoint of the spec as data (one place). Resources, `docs/endpoints.md` and the tests
 * derive from this table; the pipeline reads only the generic fields.
 *
 * Count: the spec shows the shape of 21 endpoints (one `###` section each under Endpoints) and
 * names 34 more in Common rules ("referenced by name only ... not shown"): 55 in all.
 *
 * Conventions for what the spec does not show (each descriptor's comment gives its reason):
 * - `scope` is set only where the spec names it; elsewhere it is `undefined` ("not shown").
 * - `memberScoped`: decided from the prose (whose funds or records the call touches);
 *   `memberOptional` where a member-scoped call must also be possible without one.
 * - `sendsKey`: true where the spec says "Idempotency key required"; for name-only writes, true
 *   when the call creates an object or moves funds (Common rules: "`x-idempotency-key` for writes
 *   that create a new object or move funds"), false for inherently idempotent actions.
 * - `typing: 'loose'`: the response passes through with only the fields the prose names typed.
 */
import type { EndpointDescriptor, HttpMethod } from './endpoint.js';
import type * as z from 'zod/mini';
import { loose, looseListSchema, looseValueSchema, pageSchema } from '../schemas/common.js';
import { balancesEnvelopeSchema } from '../schemas/balances.js';
import { withdrawalOrderSchema } from '../schemas/withdrawals.js';
import { qrDecodeResultSchema, qrQuoteSchema } from '../schemas/qrpay.js';
import { kycApplicationSchema, quickKycResultSchema } from '../schemas/kyc.js';
import { merchantConversionSchema, topupDeclarationSchema } from '../schemas/merchant.js';
import {
  agreementSchema,
  corridorSchema,
  pendingActionResultSchema,
  personalAccountApplicationSchema,
  remittanceCancelResultSchema,
  remittanceRecordSchema,
  swiftSearchResultSchema,
} from '../schemas/remittances.js';
import { cardCloseCheckSchema, cardLimitsResultSchema, cardRecordSchema, cardStatusResultSchema } from '../schemas/cards.js';
import { exportReportPageSchema, reportDetailSchema } from '../schemas/reports.js';
import { faucetCreditSchema } from '../schemas/sandbox.js';
import { tokenSchema } from '../schemas/token.js';

type Flags = Omit<EndpointDescriptor, 'id' | 'method' | 'path' | 'response' | 'memberScoped' | 'sendsKey' | 'journaled' | 'typing'> &
  Partial<Pick<EndpointDescriptor, 'memberScoped' | 'sendsKey' | 'journaled'>>;

/** `METHOD /path`, as the spec writes an endpoint. */
type Route = `${HttpMethod} /v1/${string}`;

/** Builds a frozen descriptor; flags default to false, typing follows the schema's origin. */
function endpoint<S extends z.ZodMiniType>(
  id: string,
  route: Route,
  typing: 'full' | 'loose',
  response: S,
  flags: Flags = {},
): EndpointDescriptor<z.output<S>> {
  const space = route.indexOf(' ');
  return Object.freeze({
    id,
    method: route.slice(0, space) as HttpMethod,
    path: route.slice(space + 1),
    typing,
    response: response as z.ZodMiniType<z.output<S>>,
    memberScoped: false,
    sendsKey: false,
    journaled: false,
    ...flags,
  });
}

const corridorPageSchema = pageSchema(corridorSchema);
/** A remittance order as the loosely typed endpoints answer it: its object form or any other JSON value. */
const looseRemittanceSchema = loose(remittanceRecordSchema);
/** Body of a name-only list GET: any JSON value, passed through as received. */
const looseList = looseListSchema;

// ---------------------------------------------------------------------------------------------
// The 21 endpoints whose shapes the spec gives.
// ---------------------------------------------------------------------------------------------

/**
 * `POST /v1/connect/token`. Used by the token manager, not exposed as a resource method.
 * Credentials in `x-client-id` / `x-api-key` only: no body, no idempotency key, and no signature
 * (`unsigned`: "the signing_key is never used for token exchange"; its only documented error is
 * 401 `invalid_credentials`).
 */
export const TOKEN_EXCHANGE = endpoint('connect.token', 'POST /v1/connect/token', 'full', tokenSchema, { unsigned: true });

/** `POST /v1/withdrawals`: scope `withdrawals:write`, member-scoped, key required, moves funds. */
export const WITHDRAWALS_CREATE = endpoint('member.withdrawals.create', 'POST /v1/withdrawals', 'full', withdrawalOrderSchema, {
  scope: 'withdrawals:write',
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/**
 * `POST /v1/qrpay/quotes`: scope `qrpay:write`, member-scoped, "No idempotency key" (`takesNoKey`:
 * a caller's key is refused, never sent), holds no funds.
 */
export const QRPAY_QUOTE = endpoint('member.qrpay.quote', 'POST /v1/qrpay/quotes', 'full', qrQuoteSchema, {
  scope: 'qrpay:write',
  memberScoped: true,
  takesNoKey: true,
});

/** `POST /v1/kyc/applications`: member-scoped, key required. Scope not shown. */
export const KYC_SUBMIT_APPLICATION = endpoint('member.kyc.submitApplication', 'POST /v1/kyc/applications', 'full', kycApplicationSchema, {
  memberScoped: true,
  sendsKey: true,
});

/**
 * `POST /v1/kyc/quick`: member-scoped, key required. Scope not shown. `journaled` (it moves funds) because a new
 * allocation charges a one-time profile fee (default 10 USDT) from the member or the prepayment.
 */
export const KYC_QUICK_BIND = endpoint('member.kyc.quickBind', 'POST /v1/kyc/quick', 'full', quickKycResultSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/**
 * `POST /v1/merchant/conversions`: scope `merchant:write` (restricted), merchant account, key
 * required, moves funds. `service_unavailable` "is not cached under the key, so the same key may
 * be retried" (`unstoredCodes`): its `retryClass` here is `same_key_later`, not the catalogue's
 * `new_key`. Not retried automatically: the Retry rules list it among no same-key codes, the line
 * is unavailable for a cause the service does not tell (funding, configuration or upstream) and
 * gives no `retry_after` here, so a retry within the SDK's backoff would only spend the `orders`
 * quota; the caller calls again with the same key once the line is back. The journal reads the
 * same list (a resend answered so is not kept under the key).
 */
export const MERCHANT_CONVERSIONS_CREATE = endpoint(
  'merchant.conversions.create',
  'POST /v1/merchant/conversions',
  'full',
  merchantConversionSchema,
  {
    scope: 'merchant:write',
    sendsKey: true,
    journaled: true,
    unstoredCodes: ['service_unavailable'],
  },
);

/** `POST /v1/merchant/topups`: scope `merchant:write`, merchant account, key required; changes no balance. */
export const MERCHANT_TOPUPS_CREATE = endpoint('merchant.topups.create', 'POST /v1/merchant/topups', 'full', topupDeclarationSchema, {
  scope: 'merchant:write',
  sendsKey: true,
});

/** `GET /v1/balances`: scope `balances:read`, member-scoped, static list envelope. */
export const BALANCES_LIST = endpoint('member.balances.list', 'GET /v1/balances', 'full', balancesEnvelopeSchema, {
  scope: 'balances:read',
  memberScoped: true,
});

/**
 * `PATCH /v1/shipping-addresses/{id}`: scope `addresses:write`, member-scoped, key required.
 * The response body is not shown, hence `loose`.
 */
export const SHIPPING_ADDRESSES_UPDATE = endpoint(
  'member.shippingAddresses.update',
  'PATCH /v1/shipping-addresses/{id}',
  'loose',
  looseValueSchema,
  {
    scope: 'addresses:write',
    memberScoped: true,
    sendsKey: true,
  },
);

/** `POST /v1/remit/vp/applications`: scope `remittances:write`, member-scoped, key required, body `{}`. */
export const REMITTANCES_APPLY_PERSONAL_ACCOUNT = endpoint(
  'member.remittances.applyPersonalAccount',
  'POST /v1/remit/vp/applications',
  'full',
  personalAccountApplicationSchema,
  { scope: 'remittances:write', memberScoped: true, sendsKey: true },
);

/**
 * `POST /v1/remittances/{id}/cancel`: scope `remittances:write`, member-scoped, key required,
 * moves funds. `api_error` is not retried: the spec says an order outside `needs_reconfirm`
 * surfaces as 500 `api_error` "which retrying does not resolve". 502/504 and 409 in progress
 * keep the spec's same-key retries (safe: the key protects the funds).
 */
export const REMITTANCES_CANCEL = endpoint(
  'member.remittances.cancel',
  'POST /v1/remittances/{id}/cancel',
  'full',
  remittanceCancelResultSchema,
  {
    scope: 'remittances:write',
    memberScoped: true,
    sendsKey: true,
    journaled: true,
    noRetryCodes: ['api_error'],
  },
);

/** `GET /v1/remit/vp/agreement`: scope `remittances:read`, merchant account. */
export const REMITTANCES_AGREEMENT = endpoint('remittances.agreement', 'GET /v1/remit/vp/agreement', 'full', agreementSchema, {
  scope: 'remittances:read',
});

/**
 * `POST /v1/cards/{id}/unfreeze`: scope `cards:write`, member-scoped, key required. `api_error`
 * is not retried: risk freezes and upstream rejections "currently return 500 `api_error`", a
 * business answer that a retry only repeats.
 */
export const CARDS_UNFREEZE = endpoint('member.cards.unfreeze', 'POST /v1/cards/{id}/unfreeze', 'full', cardStatusResultSchema, {
  scope: 'cards:write',
  memberScoped: true,
  sendsKey: true,
  noRetryCodes: ['api_error'],
});

/** `GET /v1/reports`: scope `merchant:read`, merchant account, keyset pages, strictly descending. */
export const REPORTS_LIST = endpoint('reports.list', 'GET /v1/reports', 'full', exportReportPageSchema, {
  scope: 'merchant:read',
});

/** `GET /v1/remittances/{id}/pending-action`: member-scoped. Scope not shown. */
export const REMITTANCES_PENDING_ACTION = endpoint(
  'member.remittances.pendingAction',
  'GET /v1/remittances/{id}/pending-action',
  'full',
  pendingActionResultSchema,
  { memberScoped: true },
);

/** `GET /v1/cards/{id}/close-check`: member-scoped. Scope not shown. */
export const CARDS_CLOSE_CHECK = endpoint('member.cards.closeCheck', 'GET /v1/cards/{id}/close-check', 'full', cardCloseCheckSchema, {
  memberScoped: true,
});

/**
 * `POST /v1/cards/{id}/activate`: member-scoped, key required, irreversible. Scope not shown.
 * `lockout`: "Three failures lock the card for 24 hours"; a details mismatch returns 500
 * `api_error` and counts, and a 500 is not stored under the key, so a resend of an attempt that
 * may have executed could count again. Nothing of the kind is resent: not a 500, an unknown code
 * (treated as `api_error`), a 409 in progress (the first may end in such a 500), a reset or a
 * timeout after sending, a proxy's 5xx page. Retried with the same key only what cannot count: a
 * 429, a failure before sending, 502 `upstream_error` and 504 `upstream_timeout` ("Network errors
 * and upstream 5xx do not count"). The only endpoint whose failures the spec counts against the
 * customer. The body carries the PIN.
 */
export const CARDS_ACTIVATE = endpoint('member.cards.activate', 'POST /v1/cards/{id}/activate', 'full', cardStatusResultSchema, {
  memberScoped: true,
  sendsKey: true,
  lockout: {
    rule: 'three failures lock the card for 24 hours, and only the service unlocks it',
    check:
      'read the card (GET /v1/cards/{id}): `active` means it succeeded; any other status cannot tell a counted failure from a request never processed, so ask the user to check the expiry and PIN before a new attempt',
  },
  secretFields: ['pin'],
});

/**
 * `POST /v1/sandbox/faucet`: sandbox only, key required, moves funds (merchant prepaid). Scope
 * not shown. Merchant account: it credits the merchant's own prepaid balance.
 */
export const SANDBOX_FAUCET = endpoint('sandbox.faucet', 'POST /v1/sandbox/faucet', 'full', faucetCreditSchema, {
  sendsKey: true,
  journaled: true,
});

/** `GET /v1/remit/corridors`: scope `remittances:read`, merchant account, static list envelope. */
export const REMITTANCES_CORRIDORS = endpoint('remittances.corridors', 'GET /v1/remit/corridors', 'full', corridorPageSchema, {
  scope: 'remittances:read',
});

/**
 * `PATCH /v1/cards/{id}/limits`: member-scoped, "No idempotency key is listed" (setting values
 * is inherently idempotent; `takesNoKey`: a caller's key is refused, never sent). Scope not
 * shown. `api_error` is not retried: an invalid amount string "currently returns 500
 * `api_error`" (the SDK also rejects bad amounts before sending).
 */
export const CARDS_UPDATE_LIMITS = endpoint('member.cards.updateLimits', 'PATCH /v1/cards/{id}/limits', 'full', cardLimitsResultSchema, {
  memberScoped: true,
  takesNoKey: true,
  noRetryCodes: ['api_error'],
});

/** `GET /v1/remit/swift-search`: scope `remittances:read`, merchant account. */
export const REMITTANCES_SWIFT_SEARCH = endpoint('remittances.swiftSearch', 'GET /v1/remit/swift-search', 'full', swiftSearchResultSchema, {
  scope: 'remittances:read',
});

// ---------------------------------------------------------------------------------------------
// The 34 endpoints referenced by name only (Common rules). Shapes, scopes: not shown.
// ---------------------------------------------------------------------------------------------

/**
 * `POST /v1/deposits`. Member-scoped: the spec lists deposit declaration among the operations
 * that move *member* funds. Key: creates a deposit record and moves funds. Always signed.
 */
export const DEPOSITS_DECLARE = endpoint('member.deposits.declare', 'POST /v1/deposits', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/**
 * `POST /v1/withdrawals/{id}/confirm`. Member optional: callable on behalf of the member, like the
 * debit that created the order (the member's `withdrawing` hold is cleared), or without naming one
 * (`client.withdrawals`), since its scope is not shown and the `wdr_` id names the order: a member
 * suspended after the debit is `member_not_found` under `x-on-behalf-of`, while the funds sit in
 * `withdrawing` ("There is no third exit"). Key: moves funds out of `withdrawing`.
 */
export const WITHDRAWALS_CONFIRM = endpoint('member.withdrawals.confirm', 'POST /v1/withdrawals/{id}/confirm', 'loose', looseValueSchema, {
  memberScoped: true,
  memberOptional: true,
  sendsKey: true,
  journaled: true,
});

/** `POST /v1/withdrawals/{id}/fail`. Member optional, as confirm (funds return to the member's `available`). Key: moves funds. */
export const WITHDRAWALS_FAIL = endpoint('member.withdrawals.fail', 'POST /v1/withdrawals/{id}/fail', 'loose', looseValueSchema, {
  memberScoped: true,
  memberOptional: true,
  sendsKey: true,
  journaled: true,
});

/**
 * `GET /v1/withdraw-addresses`. Member-scoped: the member's registered address book
 * (`usable=true` entries). Assumed a list envelope (Common rules: lists use `{data, ...}`).
 */
export const WITHDRAWALS_ADDRESSES = endpoint('member.withdrawals.addresses', 'GET /v1/withdraw-addresses', 'loose', looseList, {
  memberScoped: true,
});

/** `GET /v1/assets`. Merchant account (the asset catalogue). Assumed a list envelope. */
export const ASSETS_LIST = endpoint('assets.list', 'GET /v1/assets', 'loose', looseList);

/** `GET /v1/merchant/lines`. Merchant account (the line switches). Assumed a list envelope. */
export const MERCHANT_LINES = endpoint('merchant.lines', 'GET /v1/merchant/lines', 'loose', looseList);

/** `GET /v1/merchant/pending`. Merchant account. Shape not shown: a loose object. */
export const MERCHANT_PENDING = endpoint('merchant.pending', 'GET /v1/merchant/pending', 'loose', looseValueSchema);

/** `GET /v1/merchant/topups`. Merchant account (progress of declarations). Assumed a list envelope. */
export const MERCHANT_TOPUPS_LIST = endpoint('merchant.topups.list', 'GET /v1/merchant/topups', 'loose', looseList);

/** `GET /v1/merchant/balances`. Merchant account (prepaid balances per asset). Assumed a list envelope. */
export const MERCHANT_BALANCES = endpoint('merchant.balances', 'GET /v1/merchant/balances', 'loose', looseList);

/** `GET /v1/merchant/conversion-pairs`. Merchant account (the conversion price list). Assumed a list envelope. */
export const MERCHANT_CONVERSION_PAIRS = endpoint('merchant.conversionPairs', 'GET /v1/merchant/conversion-pairs', 'loose', looseList);

/**
 * `POST /v1/merchant/deposit-address`. Merchant account. Key: assumed to create (allocate) an
 * address object; a fresh key per call is harmless if the service ignores it. Its
 * `service_unavailable` carries `retry_after`.
 */
export const MERCHANT_DEPOSIT_ADDRESS = endpoint(
  'merchant.depositAddress',
  'POST /v1/merchant/deposit-address',
  'loose',
  looseValueSchema,
  {
    sendsKey: true,
  },
);

/** `GET /v1/kyc`. Member-scoped: polled for the member's KYC result after a submission. */
export const KYC_STATUS = endpoint('member.kyc.status', 'GET /v1/kyc', 'loose', looseValueSchema, { memberScoped: true });

/** `POST /v1/kyc/sessions`. Member-scoped (a KYC session of the member). Key: creates a session object. */
export const KYC_CREATE_SESSION = endpoint('member.kyc.createSession', 'POST /v1/kyc/sessions', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
});

/**
 * `GET /v1/qrpay/schemes`. Member-scoped by the design (it is part of the member's QR
 * flow and availability may depend on the member); the spec does not say. Assumed a list envelope.
 */
export const QRPAY_SCHEMES = endpoint('member.qrpay.schemes', 'GET /v1/qrpay/schemes', 'loose', looseList, {
  memberScoped: true,
});

/** `POST /v1/qrpay/decode`. Member-scoped (QR flow of a member). No key: decoding creates nothing and moves nothing. */
export const QRPAY_DECODE = endpoint('member.qrpay.decode', 'POST /v1/qrpay/decode', 'loose', loose(qrDecodeResultSchema), {
  memberScoped: true,
});

/** `POST /v1/qrpay/payments`. Member-scoped (debits the member). Key: creates a payment, moves funds. */
export const QRPAY_PAY = endpoint('member.qrpay.pay', 'POST /v1/qrpay/payments', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/**
 * `POST /v1/remit/quotes`. Member-scoped (a remittance of the member). Key: sent, since a
 * remittance quote may be a stored object with a 75-second lifetime and a superfluous fresh key is
 * harmless; not required (`keyNotRequired`): the spec shows no requirement, and the one quote it
 * shows (the QR quote) takes none.
 */
export const REMITTANCES_QUOTE = endpoint('member.remittances.quote', 'POST /v1/remit/quotes', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  keyNotRequired: true,
});

/** `GET /v1/remit/payee-form-schema`. Member-scoped by the design (payees belong to the member). */
export const REMITTANCES_PAYEE_FORM_SCHEMA = endpoint(
  'member.remittances.payeeFormSchema',
  'GET /v1/remit/payee-form-schema',
  'loose',
  looseValueSchema,
  { memberScoped: true },
);

/** `POST /v1/remit/payees`. Member-scoped (the member's payee). Key: creates a payee. */
export const REMITTANCES_CREATE_PAYEE = endpoint('member.remittances.createPayee', 'POST /v1/remit/payees', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
});

/** `GET /v1/remittances`. Member-scoped (orders belong to the member). Assumed a keyset list envelope. */
export const REMITTANCES_LIST = endpoint('member.remittances.list', 'GET /v1/remittances', 'loose', looseListSchema, {
  memberScoped: true,
});

/** `GET /v1/remittances/{id}`. Member-scoped (other members' orders are `not_found`). */
export const REMITTANCES_RETRIEVE = endpoint('member.remittances.retrieve', 'GET /v1/remittances/{id}', 'loose', looseRemittanceSchema, {
  memberScoped: true,
});

/** `POST /v1/remittances/{id}/reconfirm`. Member-scoped. Key: moves funds (new price, extra hold). */
export const REMITTANCES_RECONFIRM = endpoint(
  'member.remittances.reconfirm',
  'POST /v1/remittances/{id}/reconfirm',
  'loose',
  looseRemittanceSchema,
  {
    memberScoped: true,
    sendsKey: true,
    journaled: true,
  },
);

/** `GET /v1/reports/{id}`. Merchant account (reports are merchant exports). */
export const REPORTS_RETRIEVE = endpoint('reports.retrieve', 'GET /v1/reports/{id}', 'loose', loose(reportDetailSchema));

/**
 * `GET /v1/cards/products`. Member-scoped by the design (eligibility follows the member's
 * KYC). Assumed a list envelope.
 */
export const CARDS_PRODUCTS = endpoint('member.cards.products', 'GET /v1/cards/products', 'loose', looseList, {
  memberScoped: true,
});

/** `GET /v1/cards/products/{id}/quote`. Member-scoped: the spec passes `quick_kyc_binding_id` "on behalf of the same member". */
export const CARDS_PRODUCT_QUOTE = endpoint('member.cards.productQuote', 'GET /v1/cards/products/{id}/quote', 'loose', looseValueSchema, {
  memberScoped: true,
});

/** `POST /v1/cards/applications`. Member-scoped ("on behalf of the same member"). Key: creates an application, may charge fees and fund the card. */
export const CARDS_APPLY = endpoint('member.cards.apply', 'POST /v1/cards/applications', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/** `GET /v1/cards/{id}`. Member-scoped like every other `/v1/cards/{id}` endpoint. */
export const CARDS_RETRIEVE = endpoint('member.cards.retrieve', 'GET /v1/cards/{id}', 'loose', loose(cardRecordSchema), {
  memberScoped: true,
});

/** `POST /v1/cards/{id}/close`. Member-scoped. Key: returns the whole remaining balance (moves funds). */
export const CARDS_CLOSE = endpoint('member.cards.close', 'POST /v1/cards/{id}/close', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/** `POST /v1/cards/{id}/withdrawals`. Member-scoped. Key: a balance return (moves funds). */
export const CARDS_WITHDRAW = endpoint('member.cards.withdraw', 'POST /v1/cards/{id}/withdrawals', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/** `POST /v1/cards/{id}/topups`. Member-scoped. Key: creates a top-up order (`ctp_`), moves funds. */
export const CARDS_TOP_UP = endpoint('member.cards.topUp', 'POST /v1/cards/{id}/topups', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/** `POST /v1/members`. Merchant account (creates a member). Key: creates an object. */
export const MEMBERS_CREATE = endpoint('members.create', 'POST /v1/members', 'loose', looseValueSchema, { sendsKey: true });

/**
 * `POST /v1/members/{id}/suspend`. Merchant account: the member is in the path, and a suspended
 * member is `member_not_found` under `x-on-behalf-of`. No key: suspending is inherently
 * idempotent (Common rules: such actions take no key).
 */
export const MEMBERS_SUSPEND = endpoint('members.suspend', 'POST /v1/members/{id}/suspend', 'loose', looseValueSchema);

/**
 * `POST /v1/exchange/quotes`. Member-scoped ("Member exchange locks prices through `lock: true`").
 * Key: sent, a locked quote may be a stored object; not required (see `REMITTANCES_QUOTE`).
 */
export const EXCHANGE_QUOTE = endpoint('member.exchange.quote', 'POST /v1/exchange/quotes', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  keyNotRequired: true,
});

/** `POST /v1/exchange/orders`. Member-scoped. Key: executes synchronously, moves funds (status `executed`). */
export const EXCHANGE_ORDER = endpoint('member.exchange.order', 'POST /v1/exchange/orders', 'loose', looseValueSchema, {
  memberScoped: true,
  sendsKey: true,
  journaled: true,
});

/** The 21 endpoints whose shapes the spec gives, in the spec's order. */
export const SHOWN_ENDPOINTS: readonly EndpointDescriptor[] = Object.freeze([
  TOKEN_EXCHANGE,
  WITHDRAWALS_CREATE,
  QRPAY_QUOTE,
  KYC_SUBMIT_APPLICATION,
  KYC_QUICK_BIND,
  MERCHANT_CONVERSIONS_CREATE,
  MERCHANT_TOPUPS_CREATE,
  BALANCES_LIST,
  SHIPPING_ADDRESSES_UPDATE,
  REMITTANCES_APPLY_PERSONAL_ACCOUNT,
  REMITTANCES_CANCEL,
  REMITTANCES_AGREEMENT,
  CARDS_UNFREEZE,
  REPORTS_LIST,
  REMITTANCES_PENDING_ACTION,
  CARDS_CLOSE_CHECK,
  CARDS_ACTIVATE,
  SANDBOX_FAUCET,
  REMITTANCES_CORRIDORS,
  CARDS_UPDATE_LIMITS,
  REMITTANCES_SWIFT_SEARCH,
] as EndpointDescriptor[]);

/**
 * The 34 endpoints the spec references by name only, in its order. Their member scope and
 * idempotency are the SDK's documented assumptions.
 */
export const NAME_ONLY_ENDPOINTS: readonly EndpointDescriptor[] = Object.freeze([
  DEPOSITS_DECLARE,
  WITHDRAWALS_CONFIRM,
  WITHDRAWALS_FAIL,
  WITHDRAWALS_ADDRESSES,
  ASSETS_LIST,
  MERCHANT_LINES,
  MERCHANT_PENDING,
  MERCHANT_TOPUPS_LIST,
  MERCHANT_BALANCES,
  MERCHANT_CONVERSION_PAIRS,
  MERCHANT_DEPOSIT_ADDRESS,
  KYC_STATUS,
  KYC_CREATE_SESSION,
  QRPAY_SCHEMES,
  QRPAY_DECODE,
  QRPAY_PAY,
  REMITTANCES_QUOTE,
  REMITTANCES_PAYEE_FORM_SCHEMA,
  REMITTANCES_CREATE_PAYEE,
  REMITTANCES_LIST,
  REMITTANCES_RETRIEVE,
  REMITTANCES_RECONFIRM,
  REPORTS_RETRIEVE,
  CARDS_PRODUCTS,
  CARDS_PRODUCT_QUOTE,
  CARDS_APPLY,
  CARDS_RETRIEVE,
  CARDS_CLOSE,
  CARDS_WITHDRAW,
  CARDS_TOP_UP,
  MEMBERS_CREATE,
  MEMBERS_SUSPEND,
  EXCHANGE_QUOTE,
  EXCHANGE_ORDER,
] as EndpointDescriptor[]);

/** All 55 endpoints of the spec: the shown ones, then the name-only ones. */
export const ENDPOINTS: readonly EndpointDescriptor[] = Object.freeze([...SHOWN_ENDPOINTS, ...NAME_ONLY_ENDPOINTS]);

/**
 * Endpoints with no resource method, and why: the token exchange is driven by the token manager
 * (cached, single-flight), never by a user call.
 */
export const INTERNAL_ENDPOINT_IDS: readonly string[] = Object.freeze(['connect.token']);

/**
 * The success statuses the spec gives per endpoint (each endpoint's section; for two name-only
 * endpoints, the Events section). `2XX` stands where a success is described without its status
 * ("Success: KYC application object"); an endpoint missing here has no success status shown.
 * The SDK accepts any 2xx; the OpenAPI document (`npm run openapi`) states these.
 */
export const SUCCESS_STATUSES: Readonly<Record<string, readonly (number | '2XX')[]>> = Object.freeze({
  'POST /v1/connect/token': [200],
  'POST /v1/withdrawals': [201],
  'POST /v1/qrpay/quotes': [200],
  /** "Success: KYC application object (pending)"; an existing application is returned with 200. */
  'POST /v1/kyc/applications': [200, '2XX'],
  /** "Success: quick KYC binding result"; a reused binding is returned with 200. */
  'POST /v1/kyc/quick': [200, '2XX'],
  /** 201 executed (and its replays); 200 the funds-layer hit with `duplicated: true`. */
  'POST /v1/merchant/conversions': [201, 200],
  'POST /v1/merchant/topups': [201],
  'GET /v1/balances': [200],
  'PATCH /v1/shipping-addresses/{id}': [200],
  /** 201 submitted; 200 the application already under review, with `reused: true`. */
  'POST /v1/remit/vp/applications': [201, 200],
  'POST /v1/remittances/{id}/cancel': [200],
  'GET /v1/remit/vp/agreement': [200],
  'POST /v1/cards/{id}/unfreeze': [200],
  'GET /v1/reports': [200],
  'GET /v1/remittances/{id}/pending-action': [200],
  'GET /v1/cards/{id}/close-check': [200],
  'POST /v1/cards/{id}/activate': [200],
  'POST /v1/sandbox/faucet': [200],
  'GET /v1/remit/corridors': [200],
  'PATCH /v1/cards/{id}/limits': [200],
  'GET /v1/remit/swift-search': [200],
  /** Events: "`201` from `POST /v1/cards/{id}/topups` only acknowledges the order". */
  'POST /v1/cards/{id}/topups': [201],
  /** Events: "`POST /v1/exchange/orders`, which has already executed when its 201 returns". */
  'POST /v1/exchange/orders': [201],
});

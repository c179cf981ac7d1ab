/**
 * Invalid request values the spec rules out, each beside its valid neighbour, for the schemas a
 * generator writes from the document (`hey-api-client.test.ts` runs them on the generated zod).
 * Names are the generated zod constants (`z<OperationId>Body`, `...Query`, `...Headers`).
 */

/** One case: the spec's rule, a value it refuses and the nearest value it accepts. */
export interface RequestCase {
  readonly name: string;
  readonly schema: string;
  readonly valid: unknown;
  readonly invalid: unknown;
}

const withdrawal = { asset: 'USDT', amount: '25.5', to_address: 'TQ7x1Vb9' };
const topup = { asset: 'USDT', amount: '100' };
const conversion = { from_asset: 'USDT', to_asset: 'USDC', from_amount: '10' };
const activation = { expiry: '07/29', pin: '1234' };
const key = '3f1e2d4c-5b6a-4789-8abc-def012345678';

/** The cases, one spec rule each. */
export const REQUEST_CASES: readonly RequestCase[] = [
  // Withdrawals: "Greater than 0"; "At most 200 characters"; required fields not empty.
  { name: 'withdrawal amount negative', schema: 'zWithdrawalsCreateBody', valid: withdrawal, invalid: { ...withdrawal, amount: '-5' } },
  {
    name: 'withdrawal amount zero',
    schema: 'zWithdrawalsCreateBody',
    valid: { ...withdrawal, amount: '0.000001' },
    invalid: { ...withdrawal, amount: '0' },
  },
  { name: 'withdrawal amount as a number', schema: 'zWithdrawalsCreateBody', valid: withdrawal, invalid: { ...withdrawal, amount: 25.5 } },
  {
    name: 'withdrawal to_address over 200',
    schema: 'zWithdrawalsCreateBody',
    valid: { ...withdrawal, to_address: 'a'.repeat(200) },
    invalid: { ...withdrawal, to_address: 'a'.repeat(201) },
  },
  {
    name: 'withdrawal to_address empty',
    schema: 'zWithdrawalsCreateBody',
    valid: { ...withdrawal, to_address: 'T' },
    invalid: { ...withdrawal, to_address: '' },
  },
  { name: 'withdrawal asset empty', schema: 'zWithdrawalsCreateBody', valid: withdrawal, invalid: { ...withdrawal, asset: '' } },
  { name: 'withdrawal without to_address', schema: 'zWithdrawalsCreateBody', valid: withdrawal, invalid: { asset: 'USDT', amount: '1' } },
  // Member header: "missing or blank after trimming" answers member_context_required.
  {
    name: 'x-on-behalf-of blank',
    schema: 'zWithdrawalsCreateHeaders',
    valid: { 'x-on-behalf-of': ' m ', 'x-idempotency-key': key },
    invalid: { 'x-on-behalf-of': '   ', 'x-idempotency-key': key },
  },
  // Idempotency key: "not UUID-shaped (8-4-4-4-12 hex)" answers idempotency_key_invalid.
  {
    name: 'idempotency key not a UUID',
    schema: 'zWithdrawalsCreateHeaders',
    valid: { 'x-on-behalf-of': 'm', 'x-idempotency-key': key },
    invalid: { 'x-on-behalf-of': 'm', 'x-idempotency-key': 'key-1' },
  },
  // Top-ups: positive, at most 20 integer digits and 12 decimal places; reference_no at most 64.
  {
    name: 'top-up amount 21 integer digits',
    schema: 'zMerchantTopupsCreateBody',
    valid: { ...topup, amount: '9'.repeat(20) },
    invalid: { ...topup, amount: '9'.repeat(21) },
  },
  {
    name: 'top-up amount 13 decimals',
    schema: 'zMerchantTopupsCreateBody',
    valid: { ...topup, amount: `0.${'0'.repeat(11)}1` },
    invalid: { ...topup, amount: `0.${'0'.repeat(12)}1` },
  },
  {
    name: 'top-up amount zero',
    schema: 'zMerchantTopupsCreateBody',
    valid: { ...topup, amount: '0.5' },
    invalid: { ...topup, amount: '0.0' },
  },
  { name: 'top-up amount negative', schema: 'zMerchantTopupsCreateBody', valid: topup, invalid: { ...topup, amount: '-100' } },
  {
    name: 'top-up reference_no over 64',
    schema: 'zMerchantTopupsCreateBody',
    valid: { ...topup, reference_no: 'r'.repeat(64) },
    invalid: { ...topup, reference_no: 'r'.repeat(65) },
  },
  // Top-ups: "Everything else ... becomes chain silently": an unknown channel is accepted (open enum).
  {
    name: 'top-up channel not a string',
    schema: 'zMerchantTopupsCreateBody',
    valid: { ...topup, channel: 'FIAT' },
    invalid: { ...topup, channel: 1 },
  },
  // Conversions: from_amount positive.
  {
    name: 'conversion from_amount negative',
    schema: 'zMerchantConversionsCreateBody',
    valid: conversion,
    invalid: { ...conversion, from_amount: '-10' },
  },
  {
    name: 'conversion to_asset empty',
    schema: 'zMerchantConversionsCreateBody',
    valid: conversion,
    invalid: { ...conversion, to_asset: '' },
  },
  // Card activation: expiry `MM/YY`; PIN not empty.
  { name: 'activation expiry month 13', schema: 'zCardsActivateBody', valid: activation, invalid: { ...activation, expiry: '13/29' } },
  {
    name: 'activation expiry MM/YYYY',
    schema: 'zCardsActivateBody',
    valid: { ...activation, expiry: '12/30' },
    invalid: { ...activation, expiry: '12/2030' },
  },
  { name: 'activation pin empty', schema: 'zCardsActivateBody', valid: activation, invalid: { ...activation, pin: '' } },
  // Faucet: positive, at most 1,000,000 whole units.
  {
    name: 'faucet amount over 1,000,000',
    schema: 'zSandboxFaucetBody',
    valid: { asset: 'USDT', amount: '1000000' },
    invalid: { asset: 'USDT', amount: '1000000.5' },
  },
  {
    name: 'faucet amount zero',
    schema: 'zSandboxFaucetBody',
    valid: { asset: 'USDT', amount: '0.5' },
    invalid: { asset: 'USDT', amount: '0' },
  },
  // Card limits: "A value below one currency unit is rejected"; `0` means no limit.
  { name: 'card limit below one unit', schema: 'zCardsUpdateLimitsBody', valid: { single: '0' }, invalid: { single: '0.5' } },
  { name: 'card limit negative', schema: 'zCardsUpdateLimitsBody', valid: { daily: '1' }, invalid: { daily: '-1' } },
  // Lists: limit at most 100, an integer.
  { name: 'report page limit over 100', schema: 'zReportsListQuery', valid: { limit: 100 }, invalid: { limit: 101 } },
  { name: 'report page limit fractional', schema: 'zReportsListQuery', valid: { limit: 2 }, invalid: { limit: 2.5 } },
  // Bank search: country a two-letter uppercase code.
  {
    name: 'swift-search country lowercase',
    schema: 'zRemittancesSwiftSearchQuery',
    valid: { q: 'DEUTDEFF', country: 'DE' },
    invalid: { q: 'DEUTDEFF', country: 'de' },
  },
  // Corridors: "Unrecognized values are treated as express": any string accepted, a number refused.
  { name: 'corridors line not a string', schema: 'zRemittancesCorridorsQuery', valid: { line: 'overnight' }, invalid: { line: 7 } },
  // QR quote: code_value required, funding_source `member` or `merchant`.
  {
    name: 'QR quote funding_source unknown',
    schema: 'zQrpayQuoteBody',
    valid: { code_value: 'qr', funding_source: 'merchant' },
    invalid: { code_value: 'qr', funding_source: 'bank' },
  },
  { name: 'QR quote code_value empty', schema: 'zQrpayQuoteBody', valid: { code_value: 'q' }, invalid: { code_value: '' } },
];

/**
 * The SDK's namespaces: merchant-account resources hang off the client, member-scoped ones off
 * the member view (`client.member(id)`).
 */
export { MemberView } from './member-view.js';
export { Assets } from './assets.js';
export { MerchantAccount, MerchantConversions, MerchantTopups, type MerchantConversionParams, type TopupCreateParams } from './merchant.js';
export { Members, type MemberCreateParams } from './members.js';
export { MerchantRemittances, type AgreementParams, type CorridorsParams, type SwiftSearchParams } from './remittances.js';
export { Reports, reportsDescending } from './reports.js';
export { SandboxFaucet, type Sandbox, type FaucetParams } from './sandbox.js';
export { Withdrawals } from './withdrawals.js';
export type { ListParams, LooseBody, LooseQuery } from './guards.js';
export { MemberBalances } from './member/balances.js';
export {
  MemberCards,
  type CardActivateParams,
  type CardApplyParams,
  type CardLimitsParams,
  type CardProductQuoteQuery,
  type CardWithdrawParams,
} from './member/cards.js';
export { MemberDeposits } from './member/deposits.js';
export { MemberExchange, type ExchangeQuoteParams } from './member/exchange.js';
export { MemberKyc, type KycApplicationParams, type QuickKycParams } from './member/kyc.js';
export { MemberQrpay, type QrPayer, type QrPayParams, type QrQuoteParams } from './member/qrpay.js';
export { MemberRemittances, type PayeeCreateParams, type ReconfirmParams } from './member/remittances.js';
export { MemberShippingAddresses, type ShippingAddressParams } from './member/shipping-addresses.js';
export { MemberWithdrawals, type WithdrawalCreateParams } from './member/withdrawals.js';

/**
 * merchant-stablecoin: the TypeScript SDK of the Merchant Stablecoin Account API.
 *
 * @packageDocumentation
 */
export { MerchantClient, type RawRequest } from './client.js';
export type { MerchantClientOptions } from './core/config.js';
export {
  MerchantSdkError,
  ApiError,
  isApiError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ResponseValidationError,
  MalformedResponseError,
  InvalidArgumentError,
  PaginationRestartError,
  type ApiErrorInit,
} from './core/errors.js';
export type {
  ApiPromise,
  CallOptions,
  ResponseMeta,
  WithResponse,
  Page,
  PagePromise,
  QueryValue,
  CallArgs,
  ListArgs,
  ListOrderCheck,
  EndpointCaller,
} from './core/types.js';
export type { Logger, LogFields, LogLevel } from './core/logger.js';
export { MemoryTokenStore, type TokenStore, type StoredToken } from './core/token-store.js';
export type { RequestLimiter } from './core/pipeline.js';
export type { FetchFunction } from './core/transport.js';
export { DEFAULT_BACKOFF, type BackoffSettings } from './core/retry-policy.js';
export {
  ERROR_CODES,
  ERROR_TYPES,
  isKnownErrorCode,
  type ErrorCode,
  type ErrorType,
  type ErrorCodeInfo,
  type RetryClass,
  type ErrorExtras,
  type ExtrasOf,
} from './spec/error-codes.js';
export { RATE_LIMIT_QUOTAS, TOKEN_EXCHANGES_PER_MINUTE, bucketOf } from './spec/rate-limits.js';
export type { EndpointDescriptor, HttpMethod, RateLimitBucket, RetryMode } from './spec/endpoint.js';
export {
  toAmountString,
  toDecimal,
  balanceTotal,
  formatAmount,
  BALANCE_BUCKETS,
  Decimal,
  type AmountInput,
  type AmountRules,
  type BalanceBucket,
  type BalanceBuckets,
} from './money.js';
export { SDK_VERSION } from './version.js';
export * from './webhooks/index.js';

// Namespaces, their parameters and the validated result shapes: exported as types only, so that
// callers can name them (`const order: WithdrawalOrder`) and the API reference documents them.
// Instances come from the client (`client.reports`, `client.member(id).withdrawals`).
export type {
  MerchantNamespaces,
  MemberView,
  Assets,
  MerchantAccount,
  MerchantConversions,
  MerchantTopups,
  MerchantConversionParams,
  TopupCreateParams,
  Members,
  MemberCreateParams,
  MerchantRemittances,
  AgreementParams,
  CorridorsParams,
  SwiftSearchParams,
  Reports,
  Sandbox,
  FaucetParams,
  ListParams,
  LooseBody,
  LooseQuery,
  MemberBalances,
  MemberCards,
  CardActivateParams,
  CardApplyParams,
  CardLimitsParams,
  CardProductQuoteQuery,
  CardWithdrawParams,
  MemberDeposits,
  MemberExchange,
  ExchangeQuoteParams,
  MemberKyc,
  KycApplicationParams,
  QuickKycParams,
  MemberQrpay,
  QrPayer,
  QrPayParams,
  QrQuoteParams,
  MemberRemittances,
  PayeeCreateParams,
  ReconfirmParams,
  MemberShippingAddresses,
  ShippingAddressParams,
  MemberWithdrawals,
  WithdrawalCreateParams,
} from './resources/index.js';
export type {
  OpenEnum,
  LooseResult,
  LoosePage,
  BalanceRow,
  BalancesEnvelope,
  WithdrawalOrder,
  QrQuoteItem,
  QrQuote,
  QrDecodeResult,
  KycApplication,
  QuickKycResult,
  MerchantConversion,
  TopupDeclaration,
  RemittanceStatus,
  SlippageAction,
  SupplementAction,
  UnknownAction,
  PendingAction,
  PendingActionResult,
  PersonalAccountApplication,
  RemittanceCancelResult,
  RemittanceRecord,
  Corridor,
  BankEntry,
  SwiftSearchResult,
  Agreement,
  CardStatus,
  CardStatusResult,
  CardLimitsResult,
  CardCloseCheck,
  CardRecord,
  ExportReport,
  ReportDetail,
  FaucetCredit,
  Token,
} from './schemas/index.js';
export { isSlippageAction, isSupplementAction, isUnknownAction } from './schemas/index.js';
export { MemoryRateLimiter, type MemoryRateLimiterOptions, type BucketUsage } from './core/rate-limiter.js';
export { systemClock, type Clock } from './core/clock.js';

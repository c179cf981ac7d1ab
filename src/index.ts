/**
 * merchant-stablecoin: the TypeScript SDK of the Merchant Stablecoin Account API.
 *
 * This entry exports what a merchant uses: the client and its member view, options, response
 * and page types, errors, money helpers and the types of every namespace, parameter and result.
 * Webhooks live in `merchant-stablecoin/webhooks`, the simulator in `merchant-stablecoin/testing`,
 * fleet stores in `merchant-stablecoin/redis`. The pipeline's plumbing and the spec's tables are
 * internal (see "The public API fence" in `CONTRIBUTING.md`).
 *
 * @packageDocumentation
 */
export { MerchantClient } from './client.js';
export type { RawRequest } from './core/pipeline/raw-request.js';
export type { MerchantClientOptions } from './client-options.js';
export {
  MerchantSdkError,
  ConnectionError,
  TimeoutError,
  AbortError,
  ResponseValidationError,
  AcceptedButUnreadableError,
  MalformedResponseError,
  RedirectRefusedError,
  ClockSkewError,
  CallInterruptedError,
  OutcomeUnknownError,
  InvalidArgumentError,
  hasCallState,
  type CallEndingError,
  type ResponseIssue,
} from './core/errors/errors.js';
export { ApiError, isApiError } from './core/errors/api-error.js';
export { PaginationRestartError, PaginationStalledError, type PaginationStallReason } from './core/lists/pagination-errors.js';
export { type CallState, type CallSent } from './core/errors/call-state.js';
export type {
  ApiPromise,
  CallOptions,
  ResponseMeta,
  WithResponse,
  Page,
  LoosePage,
  PagePromise,
  PageResponse,
  QueryValue,
} from './core/types.js';
export type { Logger, LogFields, LogLevel, LogLevelSetting } from './core/telemetry/logger.js';
export type { TelemetryOptions, OpenTelemetryApi, OpenTelemetrySpan, OpenTelemetryAttributeValue } from './core/telemetry/otel-api.js';
export { MemoryTokenStore, type TokenStore, type StoredToken } from './core/credentials/token-store.js';
export { idempotencyKeyFor } from './core/call/idempotency-key.js';
export {
  MemoryJournal,
  type IntentJournal,
  type JournalIntent,
  type JournalClaimRequest,
  type ClaimedRecord,
  type UnreadableJournalRecord,
  type JournalOpenAfterRequest,
  type JournalOpenAfter,
  type JournalLeasedRequest,
  type JournalLeased,
  type JournalLease,
} from './core/journal/intent-journal.js';
export {
  RecoveryInterruptedError,
  type RecoverOptions,
  type RecoveryReport,
  type RecoveredIntent,
  type RecoveredIntentBase,
  type IntentResent,
  type IntentFailed,
  type IntentToCheck,
  type IntentsLeftForLater,
  type IntentsUnderLease,
  type IntentUnderLease,
} from './core/journal/report.js';
export { resentWithdrawalOrder } from './core/journal/resent-order.js';
export type { RequestLimiter } from './core/limits/limiter.js';
export type { FetchFunction } from './core/transport/fetch.js';
export type { UndiciDispatcher } from './core/transport/dispatcher.js';
export type { BackoffSettings } from './core/attempts/retry-policy.js';
export { isKnownErrorCode, type ErrorCode, type ErrorType, type RetryClass, type ErrorExtras, type ExtrasOf } from './facts/error-codes.js';
export type { HttpMethod, RateLimitBucket } from './facts/endpoint.js';
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

// Namespaces, their parameters and the validated result shapes: exported as types only, so that
// callers can name them (`const order: WithdrawalOrder`) and the API reference documents them.
// Instances come from the client (`client.reports`, `client.member(id).withdrawals`).
export type {
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
  SandboxFaucet,
  FaucetParams,
  Withdrawals,
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
  Loose,
  LooseItem,
  LooseNonObject,
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
} from './schemas/index.js';
export { isSlippageAction, isSupplementAction, isUnknownAction, isLooseObject, looseFields } from './schemas/index.js';
export { MemoryRateLimiter, type MemoryRateLimiterOptions, type BucketUsage } from './core/limits/rate-limiter.js';
export { systemClock, type Clock } from './core/time/clock.js';

/**
 * The testing kit: an in-memory, stateful simulator of the Merchant Stablecoin Account API with
 * fault injection, a movable clock, webhook emission and a node:http server (msw handlers:
 * `merchant-stablecoin/testing/msw`).
 *
 * The simulator shares no code with the SDK's signing, error parsing or schemas, so a bug in
 * one cannot be hidden by the same bug in the other.
 *
 * @packageDocumentation
 */
export { createSandbox } from './sandbox.js';
export type {
  Sandbox,
  SandboxListenOptions,
  SandboxOptions,
  SandboxRotation,
  SandboxRotationOptions,
  SandboxStats,
  RequestLog,
} from './sandbox-types.js';
export type { SandboxCredentials, SandboxEnvironment } from './auth.js';
export type { SandboxClock } from './clock.js';
export type { Fault, FaultMatch, FaultOptions, InjectedFault, SandboxFaults } from './faults.js';
export type { SandboxRequest } from './service.js';
export type { SandboxResponse } from './responses.js';
export type { RecordedRequest } from './service-deps.js';
export type { ListenOptions, SandboxServer } from './server.js';
export type { QuotaName } from './rate-limit.js';
export { DEFAULT_QUOTAS } from './rate-limit.js';
export type { SandboxAsset } from './assets.js';
export { DEFAULT_ASSETS } from './assets.js';
export type { Bucket, KycStatus, AmountInput, BalanceSnapshot, BucketsInput, SandboxMember, SeedMemberInput } from './state-members.js';
export type { EffectRecord, LineName, MerchantSnapshot, ReportSnapshot, SeedQrCodeInput, SeedReportsOptions } from './state-merchant.js';
export type { ClosePhase, CardSnapshot, SeedCardInput, SeedCardProductInput } from './state-cards.js';
export type { ActionSeed, CorridorRecord, RemittanceSnapshot, SeedRemittanceInput } from './state-remittances.js';
export type { SandboxState } from './state-types.js';
export type {
  BatchOptions,
  SandboxWebhooks,
  WebhookDelivery,
  WebhookDeliveryOptions,
  WebhookEnvelope,
  WebhookEventData,
} from './webhook-types.js';
export {
  createSandboxClient,
  createSandboxFetch,
  LIVE_BASE_URL,
  SANDBOX_BASE_URL,
  type SandboxClientOptions,
  type SandboxClientRoute,
} from './client.js';
export type { SandboxSeed } from './seed-file.js';
export type { DiagnosisComponent, SignatureDiagnosis } from './diagnosis-types.js';

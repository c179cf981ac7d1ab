/** The simulator's public face: what `createSandbox()` takes and returns (see sandbox.ts). */
import type { MerchantClient } from '../client.js';
import type { SandboxAsset } from './assets.js';
import type { SandboxCredentials, SandboxEnvironment } from './auth.js';
import type { SandboxClientOptions } from './client.js';
import type { SandboxClock } from './clock.js';
import type { SandboxFaults } from './faults.js';
import type { QuotaName } from './rate-limit.js';
import type { SandboxResponse } from './responses.js';
import type { SandboxSeed } from './seed-file.js';
import type { ListenOptions, SandboxServer } from './server.js';
import type { SandboxRequest } from './service.js';
import type { RecordedRequest } from './service-deps.js';
import type { SandboxState } from './state-types.js';
import type { SandboxWebhooks, WebhookDeliveryOptions } from './webhook-types.js';

/** Options of {@link createSandbox}. Everything is optional. */
export interface SandboxOptions {
  /** Fixed credentials; random ones are generated otherwise. */
  clientId?: string;
  /** Api key to accept (default: generated). */
  apiKey?: string;
  /** Signing key to verify signatures with (default: generated). */
  signingKey?: string;
  /** Merchant id in webhook envelopes (default `mch_sbx_<hex>`). */
  merchantId?: string;
  /** Custody model (default `merchant_hosted`). `platform` has no prepaid pool. */
  custody?: 'merchant_hosted' | 'platform';
  /** Quota overrides per 60-second window (tests tighten them). */
  quotas?: Partial<Record<QuotaName, number>>;
  /** Scopes of the key (default: every scope the spec names). Unknown keys are dropped. */
  scopes?: string[];
  /** Asset catalogue (default USDT, USDC, BTC, ETH; see `DEFAULT_ASSETS`). */
  assets?: SandboxAsset[];
  /**
   * Source of business time in Unix ms (default `Date.now`); `sandbox.clock` offsets from it.
   * The signature clock always follows the process clock (`Date.now()`), which clients sign with.
   */
  now?: () => number;
  /** Key of the simulator's webhook signature (default random). */
  webhookSecret?: string;
  /**
   * The signature clock's distance from real time in ms (default 0), applied at creation and by
   * every `reset()`: clients signing with their own clock meet `timestamp_out_of_range` beyond
   * 300 s. The same as calling `sandbox.clock.skewSignatures(ms)`.
   */
  signatureSkewMs?: number;
  /** Webhook delivery tuning (attempts, backoff, timeout, transport). */
  webhooks?: WebhookDeliveryOptions;
  /** The sandbox host's base URL, for `sandbox.client()` and msw handlers (default `SANDBOX_BASE_URL`). */
  baseUrl?: string;
  /** The simulated production host's base URL (default `LIVE_BASE_URL`). */
  liveBaseUrl?: string;
  /** Data to seed at creation and again after every `reset()` (the CLI's `--seed` file). */
  seed?: SandboxSeed;
}

/** Options of `sandbox.listen()`: where to listen, which deployment the server is, and who may use its admin API. */
export interface SandboxListenOptions extends ListenOptions {
  /**
   * A token the admin API (`/__sandbox/`: state, seeding, clock, faults) then requires in the
   * `x-sandbox-admin-token` header; a request without it gets 401. Default: none on a loopback
   * `host`, and a random one (read it from `server.adminToken`) on any other address, so that a
   * sandbox reachable from the network is never driven by whoever reaches it.
   */
  adminToken?: string;
  /**
   * `sandbox` (default), or `live` to serve as the simulated production host: the live key's
   * tokens work there, the sandbox key's get `environment_mismatch`, the faucet is `not_found`.
   */
  environment?: SandboxEnvironment;
}

/**
 * Options of `sandbox.rotateCredentials()`: the new values (generated when absent) and how long
 * the old key keeps working.
 */
export interface SandboxRotationOptions extends Partial<SandboxCredentials> {
  /**
   * How long the old credentials, the tokens issued to them and signatures with the old signing
   * key keep working, in ms of business time (`sandbox.clock`, which tests step). Default 0:
   * the old key stops at once. The cut has no grace (spec: `prev_valid_until`).
   */
  overlapMs?: number;
  /**
   * Give the key a new random client id too. The spec does not say whether a rotation keeps the
   * client id; by default the sandbox keeps it (unless `clientId` is given), and this option
   * rehearses the other case. Not with `clientId`.
   */
  newClientId?: boolean;
}

/** What `sandbox.rotateCredentials()` returns: the new credentials and the old key's cut. */
export interface SandboxRotation extends SandboxCredentials {
  /**
   * When the old key and its tokens stop, in Unix ms of business time (`sandbox.clock.now()`):
   * valid before it, refused from it on (spec: `prev_valid_until`, no grace). Not enumerable:
   * `{ baseUrl, ...rotation }` gives `new MerchantClient()` the three credentials only.
   */
  readonly prevValidUntil: number;
}

/** Counters for assertions. */
export interface SandboxStats {
  /** Successful token exchanges. */
  readonly tokenExchanges: number;
  /** Token exchange requests, including refused ones. */
  readonly tokenExchangeAttempts: number;
  /** QR quotes that reached the (simulated) upstream, i.e. were not served from the 60 s memo. */
  readonly upstreamQrQuotes: number;
  /**
   * Bank searches that made a (simulated) external request to the directory, reachable or not:
   * a query under 6 characters makes none.
   */
  readonly directorySearches: number;
}

/** The requests log: an array plus `clear()`. */
export type RequestLog = RecordedRequest[] & {
  /** Empties the log. */
  clear(): void;
};

/** One simulated Merchant Stablecoin Account service. */
export interface Sandbox {
  /**
   * The sandbox key's current credentials (sandbox-only values): the new ones from a
   * `rotateCredentials()` on, the initial ones again after `reset()`.
   */
  readonly credentials: SandboxCredentials;
  /**
   * The same merchant's live key: usable on the simulated production host (`liveBaseUrl`,
   * `listen({ environment: 'live' })`), `environment_mismatch` on the sandbox host, and the
   * faucet answers it 404 `not_found`. Its IP allowlist defaults to loopback.
   */
  readonly liveCredentials: SandboxCredentials;
  /** The sandbox host's base URL: `sandbox.client()` uses it and `mswHandlers(sandbox)` answers on it. */
  readonly baseUrl: string;
  /** The simulated production host's base URL (`mswHandlers(sandbox)` answers on it too, as live). */
  readonly liveBaseUrl: string;
  /** The merchant id used in webhook envelopes. */
  readonly merchantId: string;
  /**
   * Answers one raw request; both adapters are thin layers over this. Paths under `/__sandbox/`
   * go to the admin API and the inspector page (docs/sandbox-server.md), not to the simulated
   * service, and are not logged.
   */
  handle(req: SandboxRequest): Promise<SandboxResponse>;
  /** Serves the simulator on loopback with node:http, as the sandbox host or the simulated production host. */
  listen(options?: SandboxListenOptions): Promise<SandboxServer>;
  /** Seed and inspect state. */
  readonly state: SandboxState;
  /** Inject failures. */
  readonly faults: SandboxFaults;
  /** The two clocks: business time to move, and the signature clock to skew (`SandboxClock`). */
  readonly clock: SandboxClock;
  /** Requests received, oldest first. */
  readonly requests: RequestLog;
  /** Empties `requests`. */
  resetRequests(): void;
  /** Webhook receivers, emission and delivery log. */
  readonly webhooks: SandboxWebhooks;
  /** Counters. */
  readonly stats: SandboxStats;
  /** Scopes currently granted. */
  readonly scopes: readonly string[];
  /** Changes the key's scopes; effective on the next request, tokens included. */
  setScopes(scopes: string[]): void;
  /** Changes one quota at run time. */
  setQuota(name: QuotaName, perMinute: number): void;
  /** Invalidates every issued token (`invalid_token` next). */
  revokeTokens(): void;
  /**
   * Rotates the sandbox key: a new api key and signing key (and client id with `newClientId`),
   * generated unless given. For `overlapMs` of business time both keys work: token exchange with
   * either, tokens issued to either, each signed with its own key's signing key (a token and a
   * signing key of different keys get `invalid_signature`). At the cut, with no grace, the old
   * key gets `invalid_credentials` and its tokens `invalid_token`. A rotation during an overlap
   * ends the earlier one at once. Throws on a negative or non-finite `overlapMs`.
   *
   * @example
   * const next = sandbox.rotateCredentials({ overlapMs: 60_000 });
   * sandbox.clock.advance(60_000); // the cut: the old key and its tokens are refused from here
   */
  rotateCredentials(options?: SandboxRotationOptions): SandboxRotation;
  /** Disables the key: token exchange `invalid_credentials`, tokens `invalid_token`. */
  disableKey(): void;
  /** Re-enables a disabled key. */
  enableKey(): void;
  /**
   * Sets a key's IP allowlist (`sandbox` key by default, or `live`): single IPs, wildcard
   * prefixes (`203.0.113.*`), `/8`, `/16` or `/24` CIDR, exact IPv6 addresses; other formats
   * never match. A caller not on it gets 403 `ip_not_allowed`. An empty list admits every caller
   * on the sandbox key (its default); a live key must keep a non-empty list (this throws).
   */
  setIpAllowlist(entries: readonly string[], key?: SandboxEnvironment): void;
  /**
   * The caller's IP for msw and in-process requests (default `127.0.0.1`). Server mode uses the
   * socket's address instead.
   */
  setClientIp(ip: string): void;
  /**
   * Back to the state of a new sandbox with the same options: no data but the `seed` option's
   * (applied again), no fault, no request, no receiver or event, fresh windows and counters,
   * tokens revoked, the key enabled with its initial scopes, IP allowlists and the client IP as
   * at creation, both clocks on real time (the signature clock skewed by the `signatureSkewMs`
   * option only), the initial credentials (a rotation undone, no old key in overlap). The
   * merchant id and webhook secret are kept; objects already obtained (`state`, `faults`,
   * `clock`, `requests`, `webhooks`, `stats`) stay valid.
   */
  reset(): void;
  /** An in-process WHATWG `fetch` answering from this simulator (no msw, no socket). */
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * A `MerchantClient` wired to this sandbox with the fetch transport: in-process by default,
   * or through the global `fetch` with `{ via: 'msw' }` so that msw sees every call.
   */
  client(options?: SandboxClientOptions): MerchantClient;
}

/** Every line of the merchant, set to `value`. */

/** `createSandbox()`: wires the store, checks, routes and adapters into one simulated service. */
import { AssetTable, DEFAULT_ASSETS, type SandboxAsset } from './assets.js';
import type { MerchantClient } from '../client.js';
import { createSandboxClient, createSandboxFetch, type SandboxClientOptions } from './client.js';
import { KeyRing, type SandboxCredentials } from './auth.js';
import { defaultProducts } from './card-logic.js';
import { createClock, type SandboxClock } from './clock.js';
import { FaultRegistry, type SandboxFaults } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { hex } from './ids.js';
import { Decimal } from './money.js';
import { createMswHandlers, type SandboxHandlers } from './msw.js';
import { defaultPairs } from './pricing.js';
import { DEFAULT_QUOTAS, RateLimiter, type QuotaName } from './rate-limit.js';
import { Router } from './router.js';
import { ALL_ROUTES } from './routes/index.js';
import { DEFAULT_CORRIDORS } from './routes/remit.js';
import { KNOWN_SCOPES, normalizeScopes } from './scopes.js';
import { listen, type ListenOptions, type SandboxServer } from './server.js';
import type { SandboxResponse } from './responses.js';
import { createService, type SandboxRequest } from './service.js';
import type { RecordedRequest } from './service-deps.js';
import { NonceStore } from './signature.js';
import { createState } from './state.js';
import type { SandboxState } from './state-types.js';
import type { Store } from './store.js';
import { sweep } from './sweep.js';
import { createWebhooks, type InternalWebhooks, type SandboxWebhooks, type WebhookDeliveryOptions } from './webhooks.js';

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
  /** Time source in Unix ms (default `Date.now`); `sandbox.clock` offsets from it. */
  now?: () => number;
  /** Key of the simulator's webhook signature (default random). */
  webhookSecret?: string;
  /** Webhook delivery tuning (attempts, backoff, timeout, transport). */
  webhooks?: WebhookDeliveryOptions;
}

/** Counters for assertions. */
export interface SandboxStats {
  /** Successful token exchanges. */
  readonly tokenExchanges: number;
  /** Token exchange requests, including refused ones. */
  readonly tokenExchangeAttempts: number;
  /** QR quotes that reached the (simulated) upstream, i.e. were not served from the 60 s memo. */
  readonly upstreamQrQuotes: number;
}

/** The requests log: an array plus `clear()`. */
export type RequestLog = RecordedRequest[] & {
  /** Empties the log. */
  clear(): void;
};

/** One simulated Merchant Stablecoin Account service. */
export interface Sandbox {
  /** The sandbox key's credentials (sandbox-only values). Change with `rotateCredentials()`. */
  readonly credentials: SandboxCredentials;
  /** The merchant id used in webhook envelopes. */
  readonly merchantId: string;
  /** Answers one raw request; both adapters are thin layers over this. */
  handle(req: SandboxRequest): Promise<SandboxResponse>;
  /** msw 2 handlers for `setupServer(...sandbox.handlers)` (msw loaded on first access). */
  readonly handlers: SandboxHandlers;
  /** Serves the simulator on loopback with node:http. */
  listen(options?: ListenOptions): Promise<SandboxServer>;
  /** Seed and inspect state. */
  readonly state: SandboxState;
  /** Inject failures. */
  readonly faults: SandboxFaults;
  /** Move sandbox time. */
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
  /** New api key and signing key (old ones stop at once, tokens too); returns the new credentials. */
  rotateCredentials(next?: Partial<SandboxCredentials>): SandboxCredentials;
  /** Disables the key: token exchange `invalid_credentials`, tokens `invalid_token`. */
  disableKey(): void;
  /** Re-enables a disabled key. */
  enableKey(): void;
  /** An in-process WHATWG `fetch` answering from this simulator (no msw, no socket). */
  readonly fetch: (input: string, init: RequestInit) => Promise<Response>;
  /**
   * A `MerchantClient` wired to this sandbox with the fetch transport: in-process by default,
   * or through the global `fetch` with `{ via: 'msw' }` so that msw sees every call.
   */
  client(options?: SandboxClientOptions): MerchantClient;
}

function initialStore(options: SandboxOptions, merchantId: string): Store {
  const assets = new AssetTable(options.assets ?? DEFAULT_ASSETS);
  return {
    assets,
    corridors: DEFAULT_CORRIDORS.map((c) => ({ ...c, clearing_systems: [...c.clearing_systems], lines: [...c.lines] })),
    directoryAvailable: true,
    merchant: {
      id: merchantId,
      custody: options.custody ?? 'merchant_hosted',
      status: 'active',
      prepaid: new Map(),
      custodyDeclared: new Map(),
      lines: {
        withdraw: true,
        deposit: true,
        conversion: true,
        exchange: true,
        qrpay: true,
        remit: true,
        card: true,
        deposit_address: true,
      },
      quickKyc: { enabled: true, pool: 100, fee: new Decimal(10), feeAsset: 'USDT' },
      qrFeeRate: new Decimal('0.005'),
      agreement: {
        en: { title: 'Personal Remittance Account Agreement', body: 'Sandbox agreement text (en).' },
        'zh-Hans': { title: '个人汇款账户协议', body: '沙盒协议文本（简体中文）。' },
      },
      intro: { en: { title: 'About personal remittances', body: 'Sandbox introduction (en).' } },
    },
    members: new Map(),
    withdrawals: new Map(),
    deposits: new Map(),
    cards: new Map(),
    remittances: new Map(),
    reports: new Map(),
    topups: new Map(),
    addresses: new Map(),
    withdrawAddresses: new Map(),
    products: new Map(defaultProducts().map((p) => [p.id, p])),
    conversionPairs: defaultPairs(assets.all().map((a) => a.code)),
    conversionsByKey: new Map(),
    faucetByKey: new Map(),
    objects: new Map(),
    qrMemo: new Map(),
    effects: [],
    seq: { kyc: 0, cpkyc: 0, vpa: 0 },
    cursorGeneration: 0,
    stats: { tokenExchanges: 0, tokenExchangeAttempts: 0, upstreamQrQuotes: 0 },
  };
}

/** The key ring of the given credentials (random ones for those not given). */
function keyRingOf(options: SandboxOptions): KeyRing {
  return new KeyRing({
    ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.signingKey !== undefined ? { signingKey: options.signingKey } : {}),
  });
}

/** An empty requests log; `clear()` is not enumerable, so the log compares as a plain array. */
function requestLog(): RequestLog {
  const requests: RequestLog = Object.assign<RecordedRequest[], Pick<RequestLog, 'clear'>>([], {
    clear(this: RecordedRequest[]) {
      this.length = 0;
    },
  });
  Object.defineProperty(requests, 'clear', { enumerable: false });
  return requests;
}

/** The webhook emitter, stamping envelopes with the merchant id and the sandbox clock. */
function webhooksOf(options: SandboxOptions, merchantId: string, clock: SandboxClock): InternalWebhooks {
  return createWebhooks({
    merchantId,
    now: () => clock.now(),
    ...(options.webhookSecret !== undefined ? { secret: options.webhookSecret } : {}),
    ...(options.webhooks !== undefined ? { options: options.webhooks } : {}),
  });
}

/**
 * Creates an in-memory, stateful simulator of the Merchant Stablecoin Account API, sharing no
 * code with the SDK's signing, error parsing or schemas.
 *
 * @example
 * const sandbox = createSandbox();
 * const server = await sandbox.listen();
 * const member = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
 * // ... point a client at server.url with sandbox.credentials ...
 * await server.close();
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const merchantId = options.merchantId ?? `mch_sbx_${hex(8)}`;
  const clock = createClock(options.now);
  const store = initialStore(options, merchantId);
  const keys = keyRingOf(options);
  let scopes = normalizeScopes(options.scopes ?? [...KNOWN_SCOPES]);
  const quotas: Record<QuotaName, number> = { ...DEFAULT_QUOTAS, ...options.quotas };
  const limiter = new RateLimiter(quotas);
  const faults = new FaultRegistry();
  const webhooks = webhooksOf(options, merchantId, clock);
  const requests = requestLog();
  const handle = createService({
    store,
    clock,
    keys,
    nonces: new NonceStore(),
    idempotency: new IdempotencyStore(),
    limiter,
    faults,
    router: new Router(ALL_ROUTES),
    webhooks,
    requests,
    scopes: () => scopes,
  });
  const emit = webhooks.auto.bind(webhooks);
  clock.onChange(() => sweep(store, clock.now(), emit));
  const state = createState(store, () => clock.now(), emit);
  let handlers: SandboxHandlers | undefined;
  const sandboxFetch = createSandboxFetch(handle);

  return {
    fetch: sandboxFetch,
    client(opts) {
      return createSandboxClient(keys.credentials, sandboxFetch, opts);
    },
    get credentials() {
      return { ...keys.credentials };
    },
    merchantId,
    handle,
    get handlers() {
      handlers ??= createMswHandlers(handle);
      return handlers;
    },
    listen: (opts) => listen(handle, opts),
    state,
    faults,
    clock,
    requests,
    resetRequests: () => requests.clear(),
    webhooks,
    stats: store.stats,
    get scopes() {
      return [...scopes];
    },
    setScopes(next) {
      scopes = normalizeScopes(next);
    },
    setQuota: (name, perMinute) => limiter.setQuota(name, perMinute),
    revokeTokens: () => keys.revokeTokens(),
    rotateCredentials: (next) => ({ ...keys.rotate(next) }),
    disableKey() {
      keys.enabled = false;
    },
    enableKey() {
      keys.enabled = true;
    },
  };
}

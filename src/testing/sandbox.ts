/** `createSandbox()`: wires the store, checks, routes and adapters into one simulated service. */
import { requireAdminToken, withAdmin } from './admin/index.js';
import type { AdminHost } from './admin/views.js';
import { AssetTable, DEFAULT_ASSETS } from './assets.js';
import type { MerchantClient } from '../client.js';
import { createSandboxClient, createSandboxFetch, LIVE_BASE_URL, SANDBOX_BASE_URL, type SandboxClientOptions } from './client.js';
import { KeyRing } from './auth.js';
import { defaultProducts } from './card-logic.js';
import { createClock, type InternalClock, type SandboxClock } from './clock.js';
import { FaultRegistry } from './faults.js';
import { IdempotencyStore } from './idempotency.js';
import { hex } from './ids.js';
import { Decimal } from './money.js';
import { defaultPairs } from './pricing.js';
import { DEFAULT_QUOTAS, RateLimiter, type QuotaName } from './rate-limit.js';
import { Router } from './router.js';
import { ALL_ROUTES } from './routes/index.js';
import { DEFAULT_CORRIDORS } from './routes/remit.js';
import { KNOWN_SCOPES, normalizeScopes } from './scopes.js';
import { isLoopbackHost, listen, type SandboxServer } from './server.js';
import type { SandboxResponse } from './responses.js';
import { resetSandbox } from './reset.js';
import { applySeed, checkSeed } from './seed-file.js';
import { createService, type SandboxRequest } from './service.js';
import type { RecordedRequest, ServiceDeps } from './service-deps.js';
import { NonceStore } from './signature.js';
import { createState } from './state.js';
import type { LineName } from './state-merchant.js';
import type { Store } from './store.js';
import { sweep } from './sweep.js';
import { createWebhooks } from './webhooks.js';
import type { InternalWebhooks } from './webhook-types.js';
import type { RequestLog, Sandbox, SandboxListenOptions, SandboxOptions, SandboxRotation } from './sandbox-types.js';

function allLines(value: boolean): Record<LineName, boolean> {
  const names: LineName[] = ['withdraw', 'deposit', 'conversion', 'exchange', 'qrpay', 'remit', 'card', 'deposit_address'];
  return Object.fromEntries(names.map((n) => [n, value])) as Record<LineName, boolean>;
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
      lines: allLines(true),
      halted: allLines(false),
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
    qrCodes: new Map(),
    qrBlocked: new Map(),
    qrMemo: new Map(),
    effects: [],
    seq: { kyc: 0, cpkyc: 0, vpa: 0 },
    cursorGeneration: 0,
    stats: { tokenExchanges: 0, tokenExchangeAttempts: 0, upstreamQrQuotes: 0, directorySearches: 0 },
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

/** `sandbox.client()`: the sandbox key on the sandbox host, or the live key on the production host. */
function clientOf(
  keys: KeyRing,
  targets: Pick<Sandbox, 'baseUrl' | 'liveBaseUrl'>,
  sandboxFetch: (input: string, init: RequestInit) => Promise<Response>,
  opts: SandboxClientOptions,
): MerchantClient {
  const live = opts.environment === 'live';
  const baseUrl = live ? targets.liveBaseUrl : targets.baseUrl;
  return createSandboxClient(live ? keys.live : keys.credentials, sandboxFetch, { baseUrl, ...opts });
}

/** The key row switches of the `Sandbox` interface; a rotation's overlap runs on business time. */
function keyControls(
  keys: KeyRing,
  clock: SandboxClock,
): Pick<Sandbox, 'revokeTokens' | 'rotateCredentials' | 'disableKey' | 'enableKey' | 'setIpAllowlist'> {
  return {
    revokeTokens: () => keys.revokeTokens(),
    rotateCredentials: (options = {}) => {
      const prevValidUntil = keys.rotate(options, clock.now());
      // Not enumerable, so spreading the answer gives the three credentials a client takes.
      return Object.defineProperty({ ...keys.credentials }, 'prevValidUntil', {
        value: prevValidUntil,
        enumerable: false,
      }) as SandboxRotation;
    },
    disableKey() {
      keys.enabled = false;
    },
    enableKey() {
      keys.enabled = true;
    },
    setIpAllowlist(entries, key = 'sandbox') {
      if (key === 'live' && entries.length === 0) throw new Error('sandbox: a live key must have a non-empty IP allowlist');
      keys.allowlists[key] = [...entries];
    },
  };
}

/** What the pipeline works on, fresh: store, keys, windows, faults, webhooks. */
function serviceDeps(
  options: SandboxOptions,
  base: { merchantId: string; clock: InternalClock; quotas: Record<QuotaName, number>; requests: RecordedRequest[] },
  live: { scopes: () => readonly string[]; clientIp: () => string },
): ServiceDeps {
  return {
    store: initialStore(options, base.merchantId),
    clock: base.clock,
    keys: keyRingOf(options),
    nonces: new NonceStore(),
    idempotency: new IdempotencyStore(),
    limiter: new RateLimiter(base.quotas),
    faults: new FaultRegistry(),
    router: new Router(ALL_ROUTES),
    webhooks: webhooksOf(options, base.merchantId, base.clock),
    requests: base.requests,
    scopes: live.scopes,
    clientIp: live.clientIp,
  };
}

/** Assets a member has a balance row for (none for an unknown member). */
function assetsOf(store: Store, sandbox: Sandbox, ref: string): string[] {
  return [...(store.members.get(sandbox.state.member(ref)?.id ?? '')?.balances.keys() ?? [])];
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
  clock.skewSignatures(options.signatureSkewMs ?? 0);
  let scopes = normalizeScopes(options.scopes ?? [...KNOWN_SCOPES]);
  const initialScopes = scopes;
  let clientIp = '127.0.0.1';
  const quotas: Record<QuotaName, number> = { ...DEFAULT_QUOTAS, ...options.quotas };
  const initialQuotas = { ...quotas };
  const requests = requestLog();
  const deps = serviceDeps(options, { merchantId, clock, quotas, requests }, { scopes: () => scopes, clientIp: () => clientIp });
  const { store, keys, limiter, faults, webhooks } = deps;
  const initialAllowlists = { sandbox: [...keys.allowlists.sandbox], live: [...keys.allowlists.live] };
  // The admin API reads the sandbox object, built below; it is made on its first request.
  const handle = withAdmin(createService(deps), () => adminHost);
  const seed = options.seed === undefined ? undefined : checkSeed(options.seed);
  const emit = webhooks.auto.bind(webhooks);
  clock.onChange(() => sweep(store, clock.now(), emit));
  const state = createState(store, () => clock.now(), emit);
  const targets = { baseUrl: options.baseUrl ?? SANDBOX_BASE_URL, liveBaseUrl: options.liveBaseUrl ?? LIVE_BASE_URL };
  const sandboxFetch = createSandboxFetch(handle, targets.liveBaseUrl);
  if (seed) applySeed(state, seed);

  const sandbox: Sandbox = {
    fetch: sandboxFetch,
    client: (opts = {}) => clientOf(keys, targets, sandboxFetch, opts),
    get credentials() {
      return { ...keys.credentials };
    },
    liveCredentials: { ...keys.live },
    ...targets,
    merchantId,
    handle,
    listen: (opts = {}) => listenGuarded(handle, opts),
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
    ...keyControls(keys, clock),
    setClientIp(ip) {
      clientIp = ip;
    },
    reset() {
      const source = options.now ?? Date.now;
      resetSandbox({ deps, freshStore: () => initialStore(options, merchantId), quotas: initialQuotas, faults, clock, source });
      clock.skewSignatures(options.signatureSkewMs ?? 0);
      scopes = initialScopes;
      clientIp = '127.0.0.1';
      keys.allowlists.sandbox = [...initialAllowlists.sandbox];
      keys.allowlists.live = [...initialAllowlists.live];
      if (seed) applySeed(state, seed);
    },
  };
  const adminHost = adminHostOf(sandbox, store);
  return sandbox;
}

/** `sandbox.listen()`: the deployment chosen, and the admin API behind its token when it has one. */
async function listenGuarded(
  handle: (req: SandboxRequest) => Promise<SandboxResponse>,
  { environment = 'sandbox', adminToken, ...opts }: SandboxListenOptions,
): Promise<SandboxServer> {
  const token = adminToken ?? (isLoopbackHost(opts.host ?? '127.0.0.1') ? undefined : `adm_${hex(24)}`);
  const served = (req: SandboxRequest): Promise<SandboxResponse> => handle({ environment, ...req });
  const server = await listen(token === undefined ? served : requireAdminToken(served, token), opts);
  return token === undefined ? server : Object.assign(server, { adminToken: token });
}

/** What the admin API reads and drives. */
function adminHostOf(sandbox: Sandbox, store: Store): AdminHost {
  return { sandbox, memberAssets: (ref) => assetsOf(store, sandbox, ref), reset: () => sandbox.reset() };
}

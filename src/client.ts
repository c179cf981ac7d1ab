import { failedCall } from './core/pipeline/failed-call.js';
import { checkClientOptions, resolveConfig, type MerchantClientOptions, type ResolvedConfig } from './client-options.js';
import { InvalidArgumentError } from './core/errors/errors.js';
import type { IntentJournal } from './core/journal/intent-journal.js';
import { leveledLogger, log, type Logger } from './core/telemetry/logger.js';
import type { Signer } from './core/crypto/signing.js';
import { AttemptRunner } from './core/attempts/runner.js';
import { BucketGate } from './core/limits/bucket-gate.js';
import { createTelemetry } from './core/telemetry/otel.js';
import { JournalHook } from './core/journal/hook.js';
import { recoverIntents } from './core/journal/recovery.js';
import type { RecoverOptions, RecoveryReport } from './core/journal/report.js';
import { Pipeline } from './core/pipeline/pipeline.js';
import { Redactor } from './core/telemetry/redactor.js';
import { withoutControlChars } from './core/text.js';
import { ServiceClock } from './core/time/service-clock.js';
import { exchangeToken } from './core/pipeline/token-exchange.js';
import { TokenManager } from './core/credentials/token-manager.js';
import { MemoryTokenStore } from './core/credentials/token-store.js';
import { createSigner } from './core/crypto/signer.js';
import { createTransport, proxyEnvNotice } from './core/platform/node.js';
import { inBrowserPage, runtimeLabel } from './core/platform/runtime.js';
import type { Transport } from './core/transport/transport.js';
import type { ApiPromise } from './core/types.js';
import { rawCall, type RawRequest } from './core/pipeline/raw-request.js';
import {
  Assets,
  MemberView,
  MerchantAccount,
  MerchantRemittances,
  Members,
  Reports,
  SandboxFaucet,
  Withdrawals,
} from './resources/index.js';
import { SDK_VERSION } from './version.js';

/**
 * The Merchant Stablecoin Account API client.
 *
 * One instance per credential set and environment; it pools connections and caches the token,
 * so share it across the process.
 *
 * @example
 * const client = new MerchantClient({ baseUrl, clientId, apiKey, signingKey });
 * const member = client.member('ext-42');
 * const order = await member.withdrawals.create({ asset: 'USDT', amount: '25.50', to_address: 'T...' });
 */
export class MerchantClient {
  readonly #config: ResolvedConfig;
  readonly #pipeline: Pipeline;
  readonly #transport: Transport;
  readonly #clock: ServiceClock;
  readonly #journal: JournalHook | undefined;
  readonly #logger: Logger | undefined;

  /** Merchant-account operations: conversions, top-ups, balances, lines, deposit address. */
  readonly merchant: MerchantAccount;
  /** Export reports: list (async-iterable) and retrieve. */
  readonly reports: Reports;
  /** Merchant-level remittance data: corridors, bank directory, personal-line agreement. */
  readonly remittances: MerchantRemittances;
  /** Asset catalogue. */
  readonly assets: Assets;
  /** Member administration: create and suspend. */
  readonly members: Members;
  /** Sandbox-only helpers (faucet). */
  readonly sandbox: SandboxFaucet;
  /**
   * Withdrawal confirm and fail without naming a member (no `x-on-behalf-of`), e.g. for a member
   * suspended since the debit; `client.member(id).withdrawals` has the member form.
   */
  readonly withdrawals: Withdrawals;

  /**
   * @param options - Settings; the base URL and credentials default to `MERCHANT_API_BASE_URL`,
   * `MERCHANT_API_CLIENT_ID`, `MERCHANT_API_KEY` and `MERCHANT_API_SIGNING_KEY`, the three
   * credentials from one source (any passed: none read from the environment).
   * @throws InvalidArgumentError naming an unknown option and the nearest known one, every
   * missing setting at once, or the malformed setting (never its value), or
   * `dangerouslyAllowBrowser` in a browser page, where the keys would be exposed to anyone.
   */
  constructor(options: MerchantClientOptions = {}) {
    checkClientOptions(options);
    if (options.dangerouslyAllowBrowser !== true && inBrowserPage()) throw browserRefusal();
    const config = resolveConfig(options);
    this.#config = config;
    const logger = leveledLogger(options.logger ?? console, config.logLevel);
    this.#transport = createTransport(options, (message) => log(logger, 'error', message));
    const proxyNotice = proxyEnvNotice(options, config.origin);
    if (proxyNotice !== undefined) log(logger, 'warn', proxyNotice);
    const signer = createSigner(config.signingKey);
    this.#logger = logger;
    const suffix = options.userAgentSuffix ? ` ${withoutControlChars(options.userAgentSuffix)}` : '';
    this.#clock = new ServiceClock(logger, config.maxClockSkewMs);
    const redactor = new Redactor([config.apiKey, config.signingKey]);
    // One attempt loop for every call, the token exchange included.
    const runner = new AttemptRunner(
      {
        origin: config.origin,
        timeoutMs: config.timeoutMs,
        maxRetries: config.maxRetries,
        maxResponseBytes: config.maxResponseBytes,
        userAgent: `merchant-stablecoin/${SDK_VERSION} ${runtimeLabel()}${suffix}`,
        backoff: config.backoff,
        logger,
      },
      this.#transport,
      { signer, clock: this.#clock },
      new BucketGate(options.limiter),
      { redactor, telemetry: createTelemetry(options.telemetry) },
    );
    // Identifies (base URL, client id) without putting either in clear in a shared store.
    const account = accountDigest(signer, config);
    const tokens = new TokenManager({
      store: options.tokenStore ?? new MemoryTokenStore(),
      key: typeof account === 'string' ? tokenKey(account) : account.then(tokenKey),
      exchange: (signal, parent) => exchangeToken(runner, config, signal, parent),
      now: () => this.#clock.now(),
      renewBeforeSeconds: config.tokenRenewBeforeSeconds,
    });
    this.#journal = options.journal === undefined ? undefined : new JournalHook(checkJournal(options.journal), account, logger);
    this.#pipeline = new Pipeline(
      { basePath: config.basePath, validateResponses: config.validateResponses, journal: this.#journal },
      runner,
      tokens,
    );
    this.merchant = new MerchantAccount(this.#pipeline);
    this.reports = new Reports(this.#pipeline);
    this.remittances = new MerchantRemittances(this.#pipeline);
    this.assets = new Assets(this.#pipeline);
    this.members = new Members(this.#pipeline);
    this.sandbox = new SandboxFaucet(this.#pipeline);
    this.withdrawals = new Withdrawals(this.#pipeline);
  }

  /**
   * A view of one member: member-scoped endpoints are only reachable through it, so a call
   * cannot be written without a member.
   *
   * @param memberId - The merchant's `external_member_id` or the service's `mem_<uuid>`.
   * @throws InvalidArgumentError when blank or containing control characters.
   */
  member(memberId: string): MemberView {
    return new MemberView(this.#pipeline, memberId);
  }

  /**
   * Sends any request through the same pipeline (token, signing, idempotency, retries, typed
   * errors): for endpoints the spec lists by name only, or that it does not show. The result is
   * the parsed JSON, unvalidated. Every method other than GET and HEAD carries an idempotency key
   * unless `idempotent: false` is passed explicitly.
   */
  request<T = unknown>(req: RawRequest): ApiPromise<T> {
    try {
      return this.#request<T>(req);
    } catch (err) {
      // Bad input (a dot segment in the path) reaches the caller through the promise, like any failure.
      return failedCall(err);
    }
  }

  #request<T>(req: RawRequest): ApiPromise<T> {
    const { endpoint, args } = rawCall<T>(req);
    return this.#pipeline.call(endpoint, args);
  }

  /**
   * Finishes the calls a dead process left open in the client's `journal`: each open intent of
   * this client (same base URL and client id) still inside the spec's 24-hour idempotency window
   * (minus `windowMarginMs`) whose record agrees with its endpoint is sent again with its
   * idempotency key and exact body bytes (a fresh nonce and timestamp), so the service replays
   * what it executed or executes it once; older intents are never sent, and are reported with
   * what to check; a card activation (its PIN is never kept) is reported for a check of the card;
   * a record that cannot be read or trusted is reported and never sent. Intents younger than
   * `minAgeMs` are left alone (they may be in flight in a live instance) and counted in
   * `leftForLater`. Instances recovering at once claim each intent for one of them only; the
   * intents another recoverer holds (its lease has not ended) are counted in `leased`, with when
   * each can be claimed again.
   *
   * An intent is settled only on a definitive answer for its key (a 2xx, or a 400 business
   * failure the service keeps under the key), and only after `onIntent` (when given) has the
   * outcome: anything else leaves it open for the next `recover()`. Each outcome is logged before
   * its settle (`info` for a resend, `warn` for the rest); each resend is a call of its own (a
   * span named `recover <endpoint>`, e.g. `recover member.withdrawals.create`). Run it at
   * start-up in the background (awaited before listening, it holds the server back through every
   * resend) and on a schedule, with its report logged. See docs/idempotency-and-retries.md, "If
   * your process dies mid-call".
   *
   * @returns One entry per intent claimed (`resent` with the result, `failed` with the error and
   * `next`, or `expired` / `withheld` / `skipped` with what to check), the unreadable records, the
   * intents left for later and those left under another recoverer's lease.
   * @throws InvalidArgumentError when the client has no journal or an option is invalid;
   * RecoveryInterruptedError (with the report so far) when the journal fails to claim.
   */
  recover(options?: RecoverOptions): Promise<RecoveryReport> {
    const hook = this.#journal;
    if (hook === undefined) return Promise.reject(new InvalidArgumentError('journal', 'recover() needs the client to have a journal.'));
    const pipeline = this.#pipeline;
    return recoverIntents(
      { hook, basePath: this.#config.basePath, logger: this.#logger, send: (call, endpoint) => pipeline.sendPrepared(call, endpoint) },
      options,
    );
  }

  /** Base URL in use (origin and path prefix). */
  get baseUrl(): string {
    return this.#config.baseUrl;
  }

  /** Offset (ms) applied to the local clock for signatures, learned from the service. */
  get clockOffsetMs(): number {
    return this.#clock.offsetMs;
  }

  /**
   * Closes pooled connections. Calls still running are let finish (each within its deadline);
   * then, after a one-second grace, what the pool still holds (a connection stalled in its TLS
   * handshake, a request a call gave up on) is destroyed, so nothing keeps the process alive.
   * Calls made afterwards fail.
   */
  async close(): Promise<void> {
    await this.#transport.close();
  }

  /** Inspection shows no secret. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `MerchantClient { baseUrl: '${this.#config.baseUrl}', clientId: '${redactId(this.#config.clientId)}' }`;
  }

  /** `JSON.stringify(client)` shows no secret. */
  toJSON(): Record<string, unknown> {
    return { baseUrl: this.#config.baseUrl, clientId: redactId(this.#config.clientId) };
  }
}

/**
 * Identifies (base URL, client id) without putting either in clear: the token store's key and
 * the journal's scope (first 32 hex digits of a SHA-256).
 */
function accountDigest(signer: Signer, config: ResolvedConfig): string | Promise<string> {
  const hash = signer.sha256Hex(new TextEncoder().encode(`${config.baseUrl}\n${config.clientId}`));
  return typeof hash === 'string' ? hash.slice(0, 32) : hash.then((hex) => hex.slice(0, 32));
}

function tokenKey(account: string): string {
  return `merchant-stablecoin:token:${account}`;
}

function checkJournal(journal: IntentJournal): IntentJournal {
  const j = journal as Partial<Record<keyof IntentJournal, unknown>> | null;
  if (
    typeof j !== 'object' ||
    j === null ||
    typeof j.record !== 'function' ||
    typeof j.settle !== 'function' ||
    typeof j.claim !== 'function'
  )
    throw new InvalidArgumentError('journal', 'must have record(), settle() and claim() methods (an IntentJournal).');
  return journal;
}

/** Why a client is refused in a browser page, and the way out for a page that is never public. */
function browserRefusal(): InvalidArgumentError {
  return new InvalidArgumentError(
    'dangerouslyAllowBrowser',
    'refusing to create a MerchantClient in a browser: it would hold the API key and the signing key in the page, where anyone who opens it can read them and move funds. Call the API from your server; pass dangerouslyAllowBrowser: true only for a page that is never public.',
  );
}

function redactId(id: string): string {
  return id.length <= 4 ? '***' : `${id.slice(0, 4)}***`;
}

import { nonNegativeInt, positiveInt } from './core/errors/setting-checks.js';
import { InvalidArgumentError } from './core/errors/errors.js';
import type { IntentJournal } from './core/journal/intent-journal.js';
import { resolveLogLevel } from './core/telemetry/log-level.js';
import type { Logger, LogLevelSetting } from './core/telemetry/logger.js';
import type { TelemetryOptions } from './core/telemetry/otel-api.js';
import type { RequestLimiter } from './core/limits/limiter.js';
import { DEFAULT_BACKOFF, type BackoffSettings } from './core/attempts/retry-policy.js';
import type { TokenStore } from './core/credentials/token-store.js';
import { refuseUnknownOptions } from './core/errors/option-names.js';
import { envVar } from './core/platform/runtime.js';
import { requiredSettings, type Env } from './client-credentials.js';
import type { UndiciDispatcher } from './core/transport/dispatcher.js';
import type { FetchFunction } from './core/transport/fetch.js';

/**
 * Options of {@link MerchantClient}. The base URL and the credentials fall back to `MERCHANT_API_*`
 * variables; the three credentials (`clientId`, `apiKey`, `signingKey`) come from one source:
 * when any is passed, none is read from the environment. A key not listed here is refused.
 */
export interface MerchantClientOptions {
  /**
   * Base URL of the environment: the sandbox host or the production host (the environment is
   * chosen by the host called). Default: `MERCHANT_API_BASE_URL`.
   */
  readonly baseUrl?: string;
  /**
   * Allows a `baseUrl` with `http://` to a host other than this machine's loopback
   * (`localhost`, `127.0.0.0/8`, `[::1]`). Off by default: over plain HTTP the api key, the
   * tokens, the signatures and every body travel readable by anyone on the path. Set it only for
   * a simulator on a private network you trust (a container next to the tests); a loopback
   * simulator needs nothing. Default `false`.
   */
  readonly allowInsecureHttp?: boolean;
  /**
   * Client identifier, sent as `x-client-id` to the token exchange. Default:
   * `MERCHANT_API_CLIENT_ID`, read only when none of the three credentials is passed.
   */
  readonly clientId?: string;
  /**
   * API key: used only to obtain tokens. Default: `MERCHANT_API_KEY`, read only when none of the
   * three credentials is passed.
   */
  readonly apiKey?: string;
  /**
   * Signing key: used only for request signatures (HMAC). Default: `MERCHANT_API_SIGNING_KEY`,
   * read only when none of the three credentials is passed.
   */
  readonly signingKey?: string;
  /**
   * Per-attempt timeout in ms, covering the body read. Default 30 000. A call's deadline is
   * `timeoutMs × (maxRetries + 1)` from its start (90 s by default): everything it waits for (a
   * token, its rate-limit bucket, the backoff) and its attempts fit in it.
   */
  readonly timeoutMs?: number;
  /** Automatic retries per call, for the failures the spec allows retrying. Default 2. */
  readonly maxRetries?: number;
  /** Largest `Retry-After` (ms) the SDK waits for; a longer one is raised. Default 60 000. */
  readonly maxRetryAfterMs?: number;
  /** Backoff tuning (ms); mostly useful to make tests fast. */
  readonly backoff?: Partial<Omit<BackoffSettings, 'maxRetryAfterMs'>>;
  /**
   * An undici 7 dispatcher for the undici transport, on Node (a pooled keep-alive `Agent` is
   * created when omitted). Use it for proxies, TLS settings or pool sizes.
   */
  readonly dispatcher?: UndiciDispatcher;
  /**
   * Chosen by the runtime when omitted: on Node, undici's dispatch on a pooled agent (the
   * fastest; Node's `fetch` if undici cannot be loaded), except while a test's msw `setupServer`
   * (msw 2 or 3) is listening, when each attempt goes through the global `fetch` that msw
   * intercepts, so a merchant's msw suite answers the SDK's requests without naming a transport;
   * on Bun, Deno, workerd and edge runtimes, `fetch`. `undici` names undici for every attempt
   * (msw does not see it; the client then logs an error at its first call while msw listens);
   * `fetch` uses a WHATWG fetch: the global one or {@link MerchantClientOptions.fetch}.
   */
  readonly transport?: 'undici' | 'fetch';
  /** The fetch function for `transport: 'fetch'` (implies it when given). */
  readonly fetch?: FetchFunction;
  /**
   * Where log lines go: any object with `debug`, `info`, `warn` and `error` methods (pino,
   * winston). Default `console`, which gets each line as one line of text. Lines carry method,
   * route or path, status, attempts, duration, request id and idempotency key; never a secret,
   * a body or a member id.
   */
  readonly logger?: Logger;
  /**
   * The least severe level logged: `off`, `error`, `warn` (the default), `info` (adds one line
   * per call) or `debug` (adds one line per attempt). Default: `MERCHANT_API_LOG`, else `warn`.
   */
  readonly logLevel?: LogLevelSetting;
  /**
   * Allows a client in a browser page (a `window` and a `document`, outside a worker and a
   * server runtime), which is refused by default: the page would hold the API key and the
   * signing key, which anyone who opens it can read. Only for pages that are never public
   * (an internal tool on a trusted machine). Default false.
   */
  readonly dangerouslyAllowBrowser?: boolean;
  /** Appended to the user agent, e.g. `my-shop/1.4`. */
  readonly userAgentSuffix?: string;
  /** Where tokens are cached; in memory by default, shared across a fleet when plugged. */
  readonly tokenStore?: TokenStore;
  /** Renew the token this many seconds before `expired_at`. Default 120. */
  readonly tokenRenewBeforeSeconds?: number;
  /** Validate responses with the documented schemas. Default true; `false` is for emergencies. */
  readonly validateResponses?: boolean;
  /** Largest response body accepted, in bytes. Default 16 MiB. */
  readonly maxResponseBytes?: number;
  /** Optional client-side rate limiter consulted before each attempt. */
  readonly limiter?: RequestLimiter;
  /**
   * Largest clock offset (ms) the SDK adopts from the service's `Date` after a
   * `timestamp_out_of_range`; beyond it the call fails with `ClockSkewError` instead of signing
   * every later request with a wrong clock. Default 3 600 000 (one hour).
   */
  readonly maxClockSkewMs?: number;
  /**
   * OpenTelemetry tracing and metrics: one span per call named after its endpoint (`member.withdrawals.create`), with the
   * call's state as attributes and its attempts and waits as events. Used when
   * `@opentelemetry/api` is installed (or given as `api`); nothing is loaded otherwise. See
   * docs/observability.md.
   */
  readonly telemetry?: TelemetryOptions;
  /**
   * An intent journal: every call that moves funds (and a card activation) is recorded in it
   * before its first byte is sent, and settled once its outcome is known, so that
   * `client.recover()` in a new process finishes what a crashed one started.
   * `PostgresJournal` (`merchant-stablecoin/postgres`), `RedisJournal` (`merchant-stablecoin/redis`),
   * your own store (the three-method {@link IntentJournal}), or `MemoryJournal` in tests. None by default. See
   * docs/idempotency-and-retries.md, "If your process dies mid-call".
   */
  readonly journal?: IntentJournal;
}

/** Settings after defaults, environment and validation. */
export interface ResolvedConfig {
  readonly origin: string;
  readonly basePath: string;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly apiKey: string;
  readonly signingKey: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly backoff: BackoffSettings;
  readonly tokenRenewBeforeSeconds: number;
  readonly validateResponses: boolean;
  readonly maxResponseBytes: number;
  readonly maxClockSkewMs: number;
  readonly logLevel: LogLevelSetting;
}

/** This machine's loopback: `localhost`, `127.0.0.0/8` or `[::1]` (as `URL` spells hostnames). */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** The base URL, parsed and checked: http(s), nothing beyond origin and path, plain http only to the loopback unless allowed. */
function parseBaseUrl(rawBase: string, allowInsecureHttp: boolean | undefined): URL {
  let url: URL;
  try {
    url = new URL(rawBase);
  } catch {
    throw new InvalidArgumentError('baseUrl', 'is not a valid absolute URL (e.g. https://sandbox-host.example).');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new InvalidArgumentError('baseUrl', 'must use https (or http for a local simulator).');
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && allowInsecureHttp !== true) {
    throw new InvalidArgumentError(
      'baseUrl',
      'uses http:// to a host other than this machine: the api key and tokens would travel in plain text. Use https, or pass allowInsecureHttp: true for a simulator on a network you trust.',
    );
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new InvalidArgumentError('baseUrl', 'must not carry a query, fragment or credentials.');
  }
  return url;
}

/** Every key of {@link MerchantClientOptions}; the compiler holds the two lists equal. */
const OPTION_KEYS: Record<keyof MerchantClientOptions, true> = {
  baseUrl: true,
  allowInsecureHttp: true,
  clientId: true,
  apiKey: true,
  signingKey: true,
  timeoutMs: true,
  maxRetries: true,
  maxRetryAfterMs: true,
  backoff: true,
  dispatcher: true,
  transport: true,
  fetch: true,
  logger: true,
  logLevel: true,
  dangerouslyAllowBrowser: true,
  userAgentSuffix: true,
  tokenStore: true,
  tokenRenewBeforeSeconds: true,
  validateResponses: true,
  maxResponseBytes: true,
  limiter: true,
  maxClockSkewMs: true,
  telemetry: true,
  journal: true,
};
const KNOWN_OPTIONS: readonly string[] = Object.keys(OPTION_KEYS);

/**
 * `options` when it is an object whose every own key is an option: checked at run time, so a
 * plain JavaScript caller's typo (`baseURL`, `maxRetry`) is refused instead of ignored.
 *
 * @throws InvalidArgumentError naming the unknown key and the nearest option.
 */
export function checkClientOptions(options: unknown): MerchantClientOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new InvalidArgumentError('options', 'must be an object of client options (or omitted).');
  refuseUnknownOptions(options, KNOWN_OPTIONS, 'new MerchantClient()');
  return options;
}

/**
 * Applies defaults and environment variables, and validates every setting of options that passed
 * {@link checkClientOptions}.
 */
export function resolveConfig(options: MerchantClientOptions, env: Env = envVar): ResolvedConfig {
  const required = requiredSettings(options, env);
  const url = parseBaseUrl(required.baseUrl, options.allowInsecureHttp);
  const basePath = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  const backoff: BackoffSettings = {
    baseDelayMs: nonNegativeInt('backoff.baseDelayMs', options.backoff?.baseDelayMs, DEFAULT_BACKOFF.baseDelayMs),
    inProgressDelayMs: nonNegativeInt('backoff.inProgressDelayMs', options.backoff?.inProgressDelayMs, DEFAULT_BACKOFF.inProgressDelayMs),
    maxDelayMs: nonNegativeInt('backoff.maxDelayMs', options.backoff?.maxDelayMs, DEFAULT_BACKOFF.maxDelayMs),
    maxRetryAfterMs: nonNegativeInt('maxRetryAfterMs', options.maxRetryAfterMs, DEFAULT_BACKOFF.maxRetryAfterMs),
  };
  return {
    origin: url.origin,
    basePath,
    baseUrl: url.origin + basePath,
    clientId: required.clientId,
    apiKey: required.apiKey,
    signingKey: required.signingKey,
    timeoutMs: positiveInt('timeoutMs', options.timeoutMs, 30_000),
    maxRetries: nonNegativeInt('maxRetries', options.maxRetries, 2),
    backoff,
    tokenRenewBeforeSeconds: nonNegativeInt('tokenRenewBeforeSeconds', options.tokenRenewBeforeSeconds, 120),
    validateResponses: options.validateResponses ?? true,
    maxResponseBytes: positiveInt('maxResponseBytes', options.maxResponseBytes, 16 * 1024 * 1024),
    maxClockSkewMs: nonNegativeInt('maxClockSkewMs', options.maxClockSkewMs, 3_600_000),
    logLevel: resolveLogLevel(options.logLevel, env),
  };
}

import { MerchantClient } from '../client.js';
import type { MerchantClientOptions } from '../core/config.js';
import type { SandboxCredentials, SandboxEnvironment } from './auth.js';
import type { SandboxResponse } from './responses.js';
import type { SandboxRequest } from './service.js';

/** The sandbox host's default base URL (`sandbox.baseUrl`): `sandbox.client()` and msw handlers use it. */
export const SANDBOX_BASE_URL = 'https://sandbox.merchant-stablecoin.test';
/** The simulated production host's default base URL (`sandbox.liveBaseUrl`). */
export const LIVE_BASE_URL = 'https://api.merchant-stablecoin.test';

/** How a sandbox client reaches the simulator. */
export type SandboxClientRoute = 'direct' | 'msw';

/** Options of `sandbox.client()`: any client option, plus the route. */
export interface SandboxClientOptions extends Partial<MerchantClientOptions> {
  /**
   * `direct` (default): an in-process `fetch` that hands each request to the simulator, with no
   * msw and no socket. `msw`: the global `fetch`, for suites that run
   * `setupServer(...mswHandlers(sandbox))` and want msw to see every call.
   */
  readonly via?: SandboxClientRoute;
  /**
   * `sandbox` (default): the sandbox key on the sandbox host. `live`: the live key
   * (`sandbox.liveCredentials`) on the simulated production host (`sandbox.liveBaseUrl`).
   */
  readonly environment?: SandboxEnvironment;
}

/**
 * A WHATWG-style fetch answering from the simulator in-process. The request's bytes and
 * path-with-query are passed unchanged, so signatures verify exactly as over a socket. A URL
 * on `liveBaseUrl`'s origin addresses the simulated production host.
 */
export function createSandboxFetch(
  handle: (req: SandboxRequest) => Promise<SandboxResponse>,
  liveBaseUrl: string = LIVE_BASE_URL,
): (input: string, init: RequestInit) => Promise<Response> {
  const liveOrigin = new URL(liveBaseUrl).origin;
  return async (input, init) => {
    const url = new URL(input);
    const body = init.body === undefined || init.body === null ? undefined : new Uint8Array(await new Response(init.body).arrayBuffer());
    if (init.signal?.aborted) throw init.signal.reason;
    const res = await handle({
      method: init.method ?? 'GET',
      url: url.pathname + url.search,
      headers: new Headers(init.headers),
      body: body ?? null,
      environment: url.origin === liveOrigin ? 'live' : 'sandbox',
    });
    // A reset connection surfaces as fetch's own network error.
    if (res.reset) throw new TypeError('fetch failed', { cause: new Error('socket hang up (sandbox reset fault)') });
    return new Response(res.status === 204 || res.status === 304 ? null : res.body, { status: res.status, headers: res.headers });
  };
}

/** Builds a {@link MerchantClient} wired to a sandbox through the fetch transport. */
export function createSandboxClient(
  credentials: SandboxCredentials,
  sandboxFetch: (input: string, init: RequestInit) => Promise<Response>,
  options: SandboxClientOptions = {},
): MerchantClient {
  // `environment` is resolved by `sandbox.client()` into credentials and base URL.
  const { via = 'direct', environment: _environment, ...rest } = options;
  return new MerchantClient({
    baseUrl: SANDBOX_BASE_URL,
    ...credentials,
    // Tests should not wait seconds between retries; callers may still override.
    backoff: { baseDelayMs: 5, inProgressDelayMs: 20, maxDelayMs: 100 },
    // The simulator's clock is there to be moved (a 24-hour lock, a 7-day retention): its `Date`
    // may be days ahead, and the client follows it instead of refusing it as a broken clock.
    maxClockSkewMs: 400 * 86_400_000,
    ...rest,
    transport: 'fetch',
    ...(via === 'direct' ? { fetch: sandboxFetch } : {}),
  });
}

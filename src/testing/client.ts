import { MerchantClient } from '../client.js';
import type { MerchantClientOptions } from '../client-options.js';
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

/** The reason an aborted `signal` gives, as `fetch` rejects with it (an `AbortError` when none was given). */
function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as `signal` aborts, as
 * `fetch` does. The simulated service is not stopped: like a real server, it may still execute
 * the request the client gave up on (a timed-out write may have run).
 */
function unlessAborted<T>(work: () => Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return work();
  // An aborted signal sends nothing, as with fetch.
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A WHATWG-style fetch answering from the simulator in-process. The request's bytes and
 * path-with-query are passed unchanged, so signatures verify exactly as over a socket. A URL
 * on `liveBaseUrl`'s origin addresses the simulated production host. `init.signal` is honoured
 * as `fetch` honours it: an abort (a client's `timeoutMs`, a caller's signal) rejects the call at
 * once with the signal's reason, even while an injected `hang` or `delay` holds the request.
 */
export function createSandboxFetch(
  handle: (req: SandboxRequest) => Promise<SandboxResponse>,
  liveBaseUrl: string = LIVE_BASE_URL,
): (input: string, init: RequestInit) => Promise<Response> {
  const liveOrigin = new URL(liveBaseUrl).origin;
  const send = async (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input);
    const body = init.body === undefined || init.body === null ? undefined : new Uint8Array(await new Response(init.body).arrayBuffer());
    // Aborted while the body was read: the request never reaches the simulator.
    if (init.signal?.aborted) throw abortReason(init.signal);
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
  return (input, init) => unlessAborted(() => send(input, init), init.signal);
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
    // No `maxClockSkewMs` here: moving the sandbox's business clock leaves the clock signatures
    // are checked against (and its `Date` header) on real time, so the default bound holds.
    ...rest,
    transport: 'fetch',
    ...(via === 'direct' ? { fetch: sandboxFetch } : {}),
  });
}

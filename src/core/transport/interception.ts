/**
 * Whether a test's request interceptor is active in this process: msw's `setupServer` (msw 2 and
 * 3, from `msw/node`), and anything else built on `@mswjs/interceptors` (nock 14). Such an
 * interceptor patches the global `fetch` and `node:http`, never undici's own dispatch, so the
 * Node transport sends through the global `fetch` while one is active (see `node.ts`).
 *
 * Read from the marks the interceptors leave on `globalThis` while they are applied, and only
 * those: in a process without one this is two property reads per attempt.
 */

/** `@mswjs/interceptors` up to 0.41 (msw 2): the global symbol of each applied interceptor. */
const FETCH_INTERCEPTOR = Symbol.for('fetch-interceptor');
const CLIENT_REQUEST_INTERCEPTOR = Symbol.for('client-request-interceptor');
/** `@mswjs/interceptors` 0.45 and later (msw 3): a registry whose HTTP source is `ACTIVE` while applied. */
const REGISTRY = '__MSW_INTERCEPTORS_REGISTRY';
const HTTP_SOURCE = Symbol.for('node-http-request-source');

interface InterceptorGlobals {
  readonly [FETCH_INTERCEPTOR]?: unknown;
  readonly [CLIENT_REQUEST_INTERCEPTOR]?: unknown;
  readonly [REGISTRY]?: unknown;
}

/**
 * What is intercepted right now: `fetch` (the global `fetch` is seen: msw 2 or 3's
 * `setupServer`), `http-only` (an interceptor of `node:http` alone, which sees neither `fetch`
 * nor undici), or `undefined` (nothing: the production case).
 */
export type Interception = 'fetch' | 'http-only' | undefined;

/** The interception in force at this moment (msw may start or stop between two calls). */
export function activeInterception(): Interception {
  const g = globalThis as InterceptorGlobals;
  if (g[FETCH_INTERCEPTOR] !== undefined) return 'fetch';
  const registry = g[REGISTRY];
  if (registry instanceof Map) {
    const source = registry.get(HTTP_SOURCE) as { readonly readyState?: unknown } | undefined;
    // msw 3's sources serve its fetch, node:http and XMLHttpRequest interceptors together.
    if (source?.readyState === 'ACTIVE') return 'fetch';
  }
  return g[CLIENT_REQUEST_INTERCEPTOR] === undefined ? undefined : 'http-only';
}

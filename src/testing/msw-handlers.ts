// The msw adapter behind `merchant-stablecoin/testing/msw` (msw.ts): the only module that imports msw.
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { Sandbox } from './sandbox-types.js';

/** msw request handlers, as `mswHandlers(sandbox)` returns them. */
export type SandboxHandlers = HttpHandler[];

/** Options of `mswHandlers(sandbox, options)`. */
export interface MswHandlerOptions {
  /**
   * Answer `/v1/*` on every origin, not only the sandbox's own base URLs (default false). A suite
   * that also mocks another API under `/v1` keeps the default.
   */
  readonly anyHost?: boolean;
}

/** What the handlers need of a sandbox: its request handler and its two base URLs. */
export type MswSandbox = Pick<Sandbox, 'handle' | 'baseUrl' | 'liveBaseUrl'>;

/**
 * Request handlers for `setupServer(...mswHandlers(sandbox))`, answering `/v1/*` under the
 * sandbox's own base URL (`sandbox.baseUrl`) and the simulated production host's
 * (`sandbox.liveBaseUrl`, answered as the live environment), or on every origin with
 * `{ anyHost: true }`. The path and query are taken from the request URL as fetch sent it, and
 * the body from its raw bytes. Each call builds new handlers for the sandbox given.
 */
export function mswHandlers(sandbox: MswSandbox, options: MswHandlerOptions = {}): SandboxHandlers {
  const liveOrigin = new URL(sandbox.liveBaseUrl).origin;
  const answer = async ({ request }: { request: Request }): Promise<Response> => {
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    const environment = url.origin === liveOrigin ? 'live' : 'sandbox';
    const out = await sandbox.handle({
      method: request.method,
      url: url.pathname + url.search,
      headers: request.headers,
      body,
      environment,
    });
    // A reset has no HTTP answer; a network error is the closest fetch can show.
    if (out.reset) return HttpResponse.error();
    return new HttpResponse(request.method === 'HEAD' ? null : out.body, { status: out.status, headers: out.headers });
  };
  const patterns =
    options.anyHost === true ? ['*/v1/*'] : [sandbox.baseUrl, sandbox.liveBaseUrl].map((b) => `${b.replace(/\/+$/, '')}/v1/*`);
  return patterns.map((p) => http.all(p, answer));
}

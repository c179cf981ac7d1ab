/**
 * msw 2 adapter: the only module that touches msw. msw is loaded on first use of
 * `sandbox.handlers`, so `listen()` (node:http) works without msw installed.
 */
import { createRequire } from 'node:module';
import type * as MswModule from 'msw';
import type { HttpHandler } from 'msw';
import type { SandboxResponse } from './responses.js';
import type { SandboxRequest } from './service.js';

type Msw = typeof MswModule;

/** msw 2 request handlers, as `sandbox.handlers` returns them. */
export type SandboxHandlers = HttpHandler[];
let cached: Msw | undefined;

function loadMsw(): Msw {
  if (cached) return cached;
  // __filename exists in the CommonJS build, import.meta.url in the ESM one.
  const from = typeof __filename === 'string' ? __filename : import.meta.url;
  try {
    cached = createRequire(from)('msw') as Msw;
  } catch (cause) {
    throw new Error('sandbox.handlers needs the optional peer dependency msw 2 (npm install --save-dev msw@2).', { cause });
  }
  return cached;
}

/** Options of `sandbox.mswHandlers()`. */
export interface MswHandlerOptions {
  /**
   * Answer `/v1/*` on every origin, not only the sandbox's own base URLs (default false). A suite
   * that also mocks another API under `/v1` keeps the default.
   */
  readonly anyHost?: boolean;
}

/** Where the handlers answer, and which origin is the simulated production host. */
export interface MswTargets {
  /** The sandbox host's base URL (`sandbox.baseUrl`). */
  readonly baseUrl: string;
  /** The simulated production host's base URL (`sandbox.liveBaseUrl`). */
  readonly liveBaseUrl: string;
}

/**
 * Request handlers for `setupServer(...handlers)`, matching `/v1/*` under the sandbox's own base
 * URL and the simulated production host's (or on any origin with `anyHost`). The path and query
 * are taken from the request URL as fetch sent it, and the body from its raw bytes.
 */
export function createMswHandlers(
  handle: (req: SandboxRequest) => Promise<SandboxResponse>,
  targets: MswTargets,
  options: MswHandlerOptions = {},
): SandboxHandlers {
  const { http, HttpResponse } = loadMsw();
  const liveOrigin = new URL(targets.liveBaseUrl).origin;
  const answer = async ({ request }: { request: Request }): Promise<Response> => {
    const url = new URL(request.url);
    const body = new Uint8Array(await request.arrayBuffer());
    const environment = url.origin === liveOrigin ? 'live' : 'sandbox';
    const out = await handle({ method: request.method, url: url.pathname + url.search, headers: request.headers, body, environment });
    // A reset has no HTTP answer; a network error is the closest fetch can show.
    if (out.reset) return HttpResponse.error();
    return new HttpResponse(request.method === 'HEAD' ? null : out.body, { status: out.status, headers: out.headers });
  };
  const patterns =
    options.anyHost === true ? ['*/v1/*'] : [targets.baseUrl, targets.liveBaseUrl].map((b) => `${b.replace(/\/+$/, '')}/v1/*`);
  return patterns.map((p) => http.all(p, answer));
}

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

/**
 * Request handlers for `setupServer(...handlers)`, matching `/v1/*` on any origin. The path and
 * query are taken from the request URL as fetch sent it, and the body from its raw bytes.
 */
export function createMswHandlers(handle: (req: SandboxRequest) => Promise<SandboxResponse>): SandboxHandlers {
  const { http, HttpResponse } = loadMsw();
  return [
    http.all('*/v1/*', async ({ request }) => {
      const url = new URL(request.url);
      const body = new Uint8Array(await request.arrayBuffer());
      const out = await handle({ method: request.method, url: url.pathname + url.search, headers: request.headers, body });
      // A reset has no HTTP answer; a network error is the closest fetch can show.
      if (out.reset) return HttpResponse.error();
      return new HttpResponse(request.method === 'HEAD' ? null : out.body, { status: out.status, headers: out.headers });
    }),
  ];
}

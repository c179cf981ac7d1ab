/**
 * The admin HTTP API under the reserved prefix `/__sandbox/`, kept apart from the signed API: no
 * token, no signature, not in the request log. It is how a test in any language seeds, breaks and
 * inspects the sandbox (docs/sandbox-server.md lists every route).
 */
import { timingSafeEqual } from 'node:crypto';
import type { InjectedFault } from '../faults.js';
import { renderInspector } from '../inspector/page.js';
import type { SandboxResponse } from '../responses.js';
import type { SandboxRequest } from '../service.js';
import { controlRoutes } from './control-routes.js';
import { AdminError, adminHtml, adminJson, matchPath, objectBody, type AdminRoute } from './http.js';
import { keyRoutes } from './key-routes.js';
import { openApiResponse } from './openapi.js';
import { stateRoutes } from './state-routes.js';
import { membersView, type AdminHost } from './views.js';

/** The reserved prefix. */
const PREFIX = '/__sandbox';

/** Path and query of a request's URL (absolute or not). */
function pathAndQuery(url: string): { path: string; query: URLSearchParams } {
  const u = new URL(url, 'http://sandbox.invalid');
  return { path: u.pathname, query: u.searchParams };
}

/** True when the request is for the admin API rather than the simulated service. */
function isAdminRequest(url: string): boolean {
  const { path } = pathAndQuery(url);
  return path === PREFIX || path.startsWith(`${PREFIX}/`);
}

function summary(host: AdminHost): unknown {
  const { sandbox } = host;
  return { merchant: sandbox.state.merchant, clock_ms: sandbox.clock.now(), members: membersView(host), scopes: sandbox.scopes };
}

/** Every admin route (docs/sandbox-server.md lists the same, as a test checks). */
export function adminRoutes(host: AdminHost): AdminRoute[] {
  // Hangs armed over HTTP, so a clear or a reset can let go the requests a used-up one holds.
  const armed: InjectedFault[] = [];
  return [
    { method: 'GET', path: `${PREFIX}/`, run: () => adminHtml(renderInspector(host)) },
    { method: 'GET', path: `${PREFIX}/state`, run: () => adminJson(200, summary(host)) },
    { method: 'GET', path: `${PREFIX}/openapi.json`, run: openApiResponse },
    ...stateRoutes(host, armed),
    ...controlRoutes(host, armed),
    ...keyRoutes(host),
  ];
}

/** Builds the admin handler over a sandbox. */
function createAdmin(host: AdminHost): (req: SandboxRequest) => Promise<SandboxResponse> {
  const routes = adminRoutes(host);
  return async (req) => {
    const { path, query } = pathAndQuery(req.url);
    const method = req.method.toUpperCase();
    const normalized = path === PREFIX ? `${PREFIX}/` : path;
    const candidates = routes.map((route) => ({ route, params: matchPath(route.path, normalized) })).filter((m) => m.params !== undefined);
    const hit = candidates.find((m) => m.route.method === method || (method === 'HEAD' && m.route.method === 'GET'));
    if (!hit) {
      if (candidates.length === 0)
        return adminJson(404, { error: `no admin route ${path}; see GET ${PREFIX}/ and docs/sandbox-server.md` });
      return adminJson(405, { error: `${method} is not allowed on ${path}; allowed: ${candidates.map((m) => m.route.method).join(', ')}` });
    }
    const body = typeof req.body === 'string' ? Buffer.from(req.body, 'utf8') : (req.body ?? new Uint8Array(0));
    try {
      return await hit.route.run({ params: hit.params ?? {}, query, body: () => objectBody(body) });
    } catch (e) {
      if (e instanceof AdminError) return adminJson(e.status, { error: e.message });
      return adminJson(500, { error: e instanceof Error ? e.message : String(e) });
    }
  };
}

/**
 * `handle` with the admin API in front: a request under `/__sandbox/` goes to the admin handler
 * (built on first use, once the sandbox it reads exists), any other to `service`.
 */
export function withAdmin(
  service: (req: SandboxRequest) => Promise<SandboxResponse>,
  host: () => AdminHost,
): (req: SandboxRequest) => Promise<SandboxResponse> {
  let admin: ((req: SandboxRequest) => Promise<SandboxResponse>) | undefined;
  return (req) => {
    if (!isAdminRequest(req.url)) return service(req);
    admin ??= createAdmin(host());
    return admin(req);
  };
}

/** The header that carries the admin API's token when the server requires one. */
export const ADMIN_TOKEN_HEADER = 'x-sandbox-admin-token';

/** A header's value in a request, whatever the case of its name. */
function headerOf(req: SandboxRequest, name: string): string | undefined {
  const h = req.headers;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  for (const [k, v] of Object.entries(h as Record<string, string | string[] | undefined>)) {
    if (k.toLowerCase() === name) return Array.isArray(v) ? v.join(', ') : v;
  }
  return undefined;
}

/** `GET /__sandbox/openapi.json`: the document the package ships, public, so a generator fetches it without the token. */
function isPublicDocument(req: SandboxRequest): boolean {
  const method = req.method.toUpperCase();
  return (method === 'GET' || method === 'HEAD') && pathAndQuery(req.url).path === `${PREFIX}/openapi.json`;
}

/** Constant-time comparison of the token sent with the expected one. */
function tokenMatches(sent: string | undefined, token: string): boolean {
  if (sent === undefined) return false;
  const a = Buffer.from(sent, 'utf8');
  const b = Buffer.from(token, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `handle` whose admin API (everything under `/__sandbox/` but the public OpenAPI document)
 * answers only requests carrying `token` in {@link ADMIN_TOKEN_HEADER}: others get 401
 * `{ error }`, which names the header but never the token. The simulated API is untouched (it has
 * its own credentials).
 */
export function requireAdminToken(
  handle: (req: SandboxRequest) => Promise<SandboxResponse>,
  token: string,
): (req: SandboxRequest) => Promise<SandboxResponse> {
  return (req) => {
    const open = !isAdminRequest(req.url) || isPublicDocument(req);
    if (open || tokenMatches(headerOf(req, ADMIN_TOKEN_HEADER), token)) return handle(req);
    return Promise.resolve(
      adminJson(401, {
        error: `the admin API of this sandbox requires its token in the ${ADMIN_TOKEN_HEADER} header (the command prints it as MERCHANT_SANDBOX_ADMIN_TOKEN unless it was given)`,
      }),
    );
  };
}

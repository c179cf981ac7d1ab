/**
 * The admin HTTP API under the reserved prefix `/__sandbox/`, kept apart from the signed API: no
 * token, no signature, not in the request log. It is how a test in any language seeds, breaks and
 * inspects the sandbox (docs/sandbox-server.md lists every route).
 */
import type { InjectedFault } from '../faults.js';
import { renderInspector } from '../inspector/page.js';
import type { SandboxResponse } from '../responses.js';
import type { SandboxRequest } from '../service.js';
import { controlRoutes } from './control-routes.js';
import { AdminError, adminHtml, adminJson, matchPath, objectBody, type AdminRoute } from './http.js';
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

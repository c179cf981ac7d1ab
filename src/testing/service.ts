/**
 * The simulator's request pipeline: one function from raw request to response, used by the msw
 * handlers, the node:http server and tests directly.
 *
 * Check order (documented choice; the spec fixes only some of it), one step each in
 * `service-steps.ts`:
 * 1. injected fault (`before` kinds answer here, as a gateway or proxy would);
 * 2. token exchange is served on its own path (rate limit 20/min, credentials, environment, IP
 *    allowlist; unsigned);
 * 3. token (`invalid_token`), environment (`environment_mismatch`), IP allowlist
 *    (`ip_not_allowed`), merchant disabled;
 * 4. signature on every method but GET/HEAD (headers, timestamp window, HMAC, nonce), on the
 *    signature clock (real time plus an explicit skew), never on business time;
 * 5. route lookup (`not_found`, also for a sandbox-only route and a live key), scope
 *    (`insufficient_scope`), suspended merchant on writes;
 * 6. rate-limit bucket (`rate_limited`), so a throttled request never executes;
 * 7. member context (`member_context_required`, `member_not_found`);
 * 8. idempotency key (`idempotency_key_required`/`_invalid`, replay, `_reused`, `_in_progress`);
 * 9. the handler; its outcome is stored under the key unless it is 5xx or marked not storable.
 */
import type { SandboxEnvironment } from './auth.js';
import { fail } from './errors.js';
import type { StoredResponse } from './idempotency.js';
import { requestId as newRequestId } from './ids.js';
import { recordOutcome } from './outcome.js';
import type { Fault } from './faults.js';
import { failureResponse, faultResponse, garbled, type SandboxResponse } from './responses.js';
import {
  checkRateLimit,
  checkSignature,
  checkToken,
  claimKey,
  exchangeToken,
  findRoute,
  memberContext,
  routeContext,
  runHandler,
  settleKey,
  TOKEN_PATH,
  type Exchange,
} from './service-steps.js';
import type { RecordedRequest, ServiceDeps } from './service-deps.js';
import { sweep } from './sweep.js';

/** A request as the simulator receives it. */
export interface SandboxRequest {
  /** HTTP method, any case. */
  method: string;
  /** Path with query exactly as sent (`/v1/x?a=b`), or an absolute URL (its path and query are used unchanged). */
  url: string;
  /** Request headers, any case. */
  headers: Record<string, string | string[] | undefined> | Headers;
  /** Raw body bytes (or text, encoded as UTF-8). Signatures are verified over these bytes. */
  body?: Uint8Array | string | null;
  /** The deployment called (default `sandbox`): `live` is the simulated production host. */
  environment?: SandboxEnvironment;
  /** The caller's IP (server mode: the socket's); default the one set by `sandbox.setClientIp()`. */
  clientIp?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Path and query as sent: an absolute URL loses only its scheme and authority, nothing is re-encoded. */
function rawPathOf(url: string): string {
  const abs = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  const rest = abs ? url.slice(abs[0].length) : url;
  const noFragment = rest.split('#')[0] ?? '';
  return noFragment.startsWith('/') ? noFragment : `/${noFragment}`;
}

function lowerHeaders(h: SandboxRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (h as Headers).forEach === 'function' && typeof (h as Headers).get === 'function') {
    (h as Headers).forEach((v, k) => {
      out[k.toLowerCase()] = v;
    });
    return out;
  }
  for (const [k, v] of Object.entries(h as Record<string, string | string[] | undefined>)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function bytesOf(body: SandboxRequest['body']): Uint8Array {
  if (body === undefined || body === null) return new Uint8Array(0);
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

/** The request as the checks read it; `clientIp` is the caller's IP when the request has none. */
function exchangeOf(req: SandboxRequest, requestId: string, clientIp: string): Exchange {
  const method = req.method.toUpperCase();
  const pathWithQuery = rawPathOf(req.url);
  const q = pathWithQuery.indexOf('?');
  return {
    method,
    pathWithQuery,
    path: q < 0 ? pathWithQuery : pathWithQuery.slice(0, q),
    query: new URLSearchParams(q < 0 ? '' : pathWithQuery.slice(q + 1)),
    headers: lowerHeaders(req.headers),
    body: bytesOf(req.body),
    requestId,
    isRead: method === 'GET' || method === 'HEAD',
    environment: req.environment ?? 'sandbox',
    clientIp: req.clientIp ?? clientIp,
  };
}

/**
 * Steps 2 to 9 of the check order, in that order. `beforeHandler` runs an injected delay just
 * before the handler, while the idempotency key is held.
 */
async function process(deps: ServiceDeps, x: Exchange, beforeHandler: () => Promise<void>): Promise<StoredResponse> {
  try {
    if (x.path === TOKEN_PATH) {
      if (x.method !== 'POST') fail('not_found', 'No such endpoint.');
      await beforeHandler();
      return exchangeToken(deps, x);
    }
    const now = deps.clock.now();
    const key = checkToken(deps, x, now);
    checkSignature(deps, x, key);
    const { route, params } = findRoute(deps, x, key);
    checkRateLimit(deps, x, now);
    const member = memberContext(deps, x, route);
    const claim = claimKey(deps, x, route, now);
    if ('replay' in claim) return claim.replay;
    const ctx = routeContext(deps, x, params, member, claim.key);
    // An injected delay waits here, while the key is held: a concurrent retry sees in_progress.
    await beforeHandler();
    const { response, storable } = await runHandler(route, ctx);
    settleKey(deps, claim.key, response, storable);
    return response;
  } catch (e) {
    return failureResponse(e, x.requestId);
  }
}

/** Faults that answer in place of the request, which then never runs. */
function answersInstead(f: Fault): boolean {
  if (f.kind === 'delay' || f.kind === 'hang' || f.kind === 'garble') return false;
  return !(f.kind === 'status' && f.when === 'after');
}

/** The answer once the request ran: an `after` status replaces it, a `garble` spoils a 2xx body. */
function afterRun(f: Fault | undefined, outcome: SandboxResponse, requestId: string): SandboxResponse {
  if (f?.kind === 'status') return faultResponse(f, requestId);
  if (f?.kind === 'garble') return garbled(f, outcome);
  return outcome;
}

/** Builds `handle()`. */
export function createService(deps: ServiceDeps): (req: SandboxRequest) => Promise<SandboxResponse> {
  const { store, clock, faults, webhooks } = deps;
  return async function handle(req: SandboxRequest): Promise<SandboxResponse> {
    sweep(store, clock.now(), (e) => webhooks.auto(e));
    const x = exchangeOf(req, newRequestId(), deps.clientIp());
    const entry: RecordedRequest = {
      method: x.method,
      path: x.pathWithQuery,
      headers: x.headers,
      body: Buffer.from(x.body).toString('utf8'),
      at: clock.now(),
      requestId: x.requestId,
    };
    deps.requests.push(entry);

    const taken = faults.take(x.method, x.path);
    const fault = taken?.fault;
    // `delay` and `hang` hold the request once, where the first of these calls it.
    let pendingHold: (() => Promise<void>) | undefined =
      fault?.kind === 'delay' && fault.ms > 0 ? () => sleep(fault.ms) : fault?.kind === 'hang' ? () => taken!.hold() : undefined;
    const delay = async (): Promise<void> => {
      if (pendingHold === undefined) return;
      const hold = pendingHold;
      pendingHold = undefined;
      await hold();
    };
    const finish = async (r: SandboxResponse): Promise<SandboxResponse> => {
      await delay();
      if (fault?.kind === 'hang') taken!.answered();
      if (r.reset) return recordOutcome(entry, r);
      // The Date header follows the signature clock: clients correct their signing skew from it.
      return recordOutcome(entry, { ...r, headers: { ...r.headers, date: new Date(clock.signatureNow()).toUTCString() } });
    };

    // 1. `before` faults answer without running the request; `after` and `garble` once it ran (its outcome stored).
    if (fault && answersInstead(fault)) return finish(faultResponse(fault, x.requestId));
    return finish(afterRun(fault, await process(deps, x, delay), x.requestId));
  };
}

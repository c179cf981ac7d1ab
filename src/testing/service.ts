/**
 * The simulator's request pipeline: one function from raw request to response, used by the msw
 * handlers, the node:http server and tests directly.
 *
 * Check order (documented choice; the spec fixes only some of it):
 * 1. injected fault (`before` kinds answer here, as a gateway or proxy would);
 * 2. token exchange is served on its own path (rate limit 20/min, then credentials);
 * 3. token (`invalid_token`), merchant disabled;
 * 4. signature on every method but GET/HEAD (headers, timestamp window, HMAC, nonce);
 * 5. route lookup (`not_found`), scope (`insufficient_scope`), suspended merchant on writes;
 * 6. rate-limit bucket (`rate_limited`), so a throttled request never executes;
 * 7. member context (`member_context_required`, `member_not_found`);
 * 8. idempotency key (`idempotency_key_required`/`_invalid`, replay, `_reused`, `_in_progress`);
 * 9. the handler; its outcome is stored under the key unless it is 5xx or marked not storable.
 */
import { createHash } from 'node:crypto';
import type { KeyRing } from './auth.js';
import type { InternalClock } from './clock.js';
import { ServiceError, envelope, fail, typeOf } from './errors.js';
import type { Fault, FaultRegistry } from './faults.js';
import { IDEMPOTENCY_KEY_SHAPE, type IdempotencyStore, type StoredResponse } from './idempotency.js';
import { requestId as newRequestId } from './ids.js';
import { bucketOf, type RateLimiter } from './rate-limit.js';
import type { Router } from './router.js';
import type { RouteContext, RouteDef } from './routes/context.js';
import { findMember } from './routes/fields.js';
import { hasScope } from './scopes.js';
import { verifySignature, type NonceStore } from './signature.js';
import type { MemberRecord, Store } from './store.js';
import { sweep } from './sweep.js';
import type { InternalWebhooks } from './webhooks.js';

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
}

/** The simulator's answer. */
export interface SandboxResponse {
  /** HTTP status. */
  status: number;
  /** Lowercase header names. */
  headers: Record<string, string>;
  /** Body text. */
  body: string;
  /** True when the `reset` fault fired: adapters drop the connection instead of answering. */
  reset?: boolean;
}

/** One received request, for assertions (`sandbox.requests`). */
export interface RecordedRequest {
  /** HTTP method. */
  method: string;
  /** Path with query, exactly as received. */
  path: string;
  /** Lowercased headers. */
  headers: Record<string, string>;
  /** Body as UTF-8 text. */
  body: string;
  /** Sandbox time (ms) when received. */
  at: number;
  /** The `X-Request-Id` given to it. */
  requestId: string;
}

/** Everything the pipeline needs. */
export interface ServiceDeps {
  store: Store;
  clock: InternalClock;
  keys: KeyRing;
  nonces: NonceStore;
  idempotency: IdempotencyStore;
  limiter: RateLimiter;
  faults: FaultRegistry;
  router: Router;
  webhooks: InternalWebhooks;
  requests: RecordedRequest[];
  scopes: () => readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Path and query as sent: an absolute URL loses only its scheme and authority, nothing is re-encoded. */
export function rawPathOf(url: string): string {
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

function json(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): StoredResponse {
  return { status, headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...headers }, body: JSON.stringify(body) };
}

function errorResponse(e: ServiceError, requestId: string): StoredResponse {
  return {
    status: e.status,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...e.headers },
    body: envelope(e.status, e.code, e.message, requestId, e.extra),
  };
}

const REASONS: Record<number, string> = { 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable', 504: 'Gateway Time-out' };
const HTML_PAGE = (status: number): string => {
  const title = `${status} ${REASONS[status] ?? 'Error'}`;
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;
};

/** The response an injected fault produces (never for `delay` or `hang`). */
function faultResponse(f: Fault, requestId: string): SandboxResponse {
  switch (f.kind) {
    case 'status': {
      const code = f.code ?? (f.status === 500 ? 'api_error' : f.status === 502 ? 'upstream_error' : 'upstream_timeout');
      return errorResponse(new ServiceError(code, 'Injected failure.', { status: f.status }), requestId);
    }
    case 'in_progress':
      return errorResponse(new ServiceError('idempotency_in_progress', 'The first request with this key is still processing.'), requestId);
    case 'rate_limited': {
      const headers = { 'content-type': 'application/json', 'x-request-id': requestId, 'retry-after': String(f.retryAfter) };
      const message = 'Rate limit exceeded.';
      const body =
        f.shape === 'wrapped'
          ? { error: { code: 'rate_limited', message, retry_after: f.retryAfter } }
          : { type: typeOf(429), code: 'rate_limited', message, request_id: requestId, retry_after: f.retryAfter };
      return { status: 429, headers, body: JSON.stringify(body) };
    }
    case 'html':
      return { status: f.status, headers: { 'content-type': 'text/html' }, body: HTML_PAGE(f.status) };
    case 'reset':
      return { status: 0, headers: {}, body: '', reset: true };
    case 'unknown_code': {
      const status = f.status ?? 500;
      return errorResponse(new ServiceError(f.code ?? 'brand_new_code', 'Something new happened.', { status }), requestId);
    }
    case 'timestamp_skew':
      return errorResponse(
        new ServiceError('timestamp_out_of_range', 'x-timestamp is more than 300 seconds from the service clock.'),
        requestId,
      );
    case 'delay':
    case 'hang':
      throw new Error(`${f.kind} is not a response`);
  }
}

/** Builds `handle()`. */
export function createService(deps: ServiceDeps): (req: SandboxRequest) => Promise<SandboxResponse> {
  const { store, clock, keys, nonces, idempotency, limiter, faults, router, webhooks } = deps;

  function tokenExchange(headers: Record<string, string>, requestId: string): StoredResponse {
    const now = clock.now();
    store.stats.tokenExchangeAttempts += 1;
    if (!limiter.admit('token', 'merchant', now)) {
      fail('rate_limited', 'Too many token exchanges.', { extra: { retry_after: 60 }, headers: { 'retry-after': '60' } });
    }
    const { token, expiresAt } = keys.exchange(headers['x-client-id'], headers['x-api-key'], now);
    store.stats.tokenExchanges += 1;
    return json(
      200,
      { auth_token: token, expired_at: Math.floor(expiresAt / 1000), token_type: 'Bearer', scopes: [...deps.scopes()] },
      requestId,
    );
  }

  /** Runs a handler; `storable` is false for failures that must not be kept under the key. */
  async function run(route: RouteDef, ctx: RouteContext): Promise<{ response: StoredResponse; storable: boolean }> {
    try {
      const r = await route.handler(ctx);
      return { response: json(r.status, r.body, ctx.requestId, r.headers), storable: true };
    } catch (e) {
      if (e instanceof ServiceError) return { response: errorResponse(e, ctx.requestId), storable: e.storable };
      return { response: errorResponse(new ServiceError('api_error', 'Internal error in the sandbox.'), ctx.requestId), storable: false };
    }
  }

  async function process(
    method: string,
    pathWithQuery: string,
    headers: Record<string, string>,
    body: Uint8Array,
    requestId: string,
    beforeHandler: () => Promise<void>,
  ): Promise<StoredResponse> {
    const q = pathWithQuery.indexOf('?');
    const path = q < 0 ? pathWithQuery : pathWithQuery.slice(0, q);
    const query = new URLSearchParams(q < 0 ? '' : pathWithQuery.slice(q + 1));
    const isRead = method === 'GET' || method === 'HEAD';
    try {
      if (path === '/v1/connect/token') {
        if (method !== 'POST') fail('not_found', 'No such endpoint.');
        await beforeHandler();
        return tokenExchange(headers, requestId);
      }
      const now = clock.now();
      keys.verify(headers, now);
      if (store.merchant.status === 'disabled') fail('merchant_disabled', 'The merchant is disabled.');
      if (!isRead) verifySignature({ method, pathWithQuery, headers, body }, keys.credentials.signingKey, nonces, now);
      const match = router.match(method, path);
      if (!match) fail('not_found', `No endpoint ${method} ${path}.`);
      const { route, params } = match;
      if (route.scope !== undefined && !hasScope(deps.scopes(), route.scope)) {
        fail('insufficient_scope', `This key lacks the ${route.scope} scope.`, { extra: { required_scope: route.scope } });
      }
      if (!isRead && store.merchant.status === 'suspended') fail('merchant_disabled', 'The merchant is suspended; writes are rejected.');
      if (!limiter.admit(bucketOf(method, path), 'merchant', now)) {
        fail('rate_limited', 'Rate limit exceeded.', { extra: { retry_after: 60 }, headers: { 'retry-after': '60' } });
      }
      let member: MemberRecord | undefined;
      if (route.member !== 'none') {
        const ref = (headers['x-on-behalf-of'] ?? '').trim();
        if (ref === '' && route.member === 'required') fail('member_context_required', 'x-on-behalf-of is required.');
        if (ref !== '') {
          member = findMember(store, ref);
          if (!member) fail('member_not_found', 'No such member.');
        }
      }
      let key: string | undefined;
      if (route.idempotency !== 'none') {
        const raw = headers['x-idempotency-key'];
        if (raw === undefined || raw === '') {
          if (route.idempotency === 'required') fail('idempotency_key_required', 'x-idempotency-key is required.');
        } else {
          if (!IDEMPOTENCY_KEY_SHAPE.test(raw)) fail('idempotency_key_invalid', 'x-idempotency-key must be UUID-shaped.');
          const bodyHash = createHash('sha256').update(body).digest('hex');
          const claim = idempotency.claim(raw, `${method} ${path}`, bodyHash, now);
          if (claim.kind === 'reused') fail('idempotency_key_reused', 'This key was used with a different body or endpoint.');
          if (claim.kind === 'in_progress') fail('idempotency_in_progress', 'The first request with this key is still processing.');
          if (claim.kind === 'replay') {
            const stored = route.replay ? route.replay(claim.response) : claim.response;
            return { ...stored, headers: { ...stored.headers, 'x-idempotent-replay': 'true' } };
          }
          key = raw;
        }
      }
      const ctx = context(params, query, headers, body, requestId, member, key);
      // An injected delay waits here, while the key is held: a concurrent retry sees in_progress.
      await beforeHandler();
      const { response, storable } = await run(route, ctx);
      if (key !== undefined) {
        // 5xx outcomes are not kept, so a retry with the same key executes again (a card
        // activation mismatch is counted again, which is why clients must not retry it).
        if (response.status >= 500 || !storable) idempotency.release(key);
        else idempotency.complete(key, response);
      }
      return response;
    } catch (e) {
      if (e instanceof ServiceError) return errorResponse(e, requestId);
      return errorResponse(new ServiceError('api_error', 'Internal error in the sandbox.'), requestId);
    }
  }

  function context(
    params: Record<string, string>,
    query: URLSearchParams,
    headers: Record<string, string>,
    body: Uint8Array,
    requestId: string,
    member: MemberRecord | undefined,
    key: string | undefined,
  ): RouteContext {
    const now = clock.now();
    return {
      store,
      now,
      params,
      query,
      headers,
      requestId,
      member,
      idempotencyKey: key,
      json() {
        const text = Buffer.from(body).toString('utf8');
        if (text.trim() === '') return {};
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          fail('invalid_request', 'The body is not valid JSON.');
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          fail('invalid_request', 'The body must be a JSON object.');
        return parsed as Record<string, unknown>;
      },
      requireMember() {
        if (!member) fail('member_context_required', 'x-on-behalf-of is required.');
        return member;
      },
      effect(kind, id, detail = {}) {
        const defined = Object.fromEntries(Object.entries(detail).filter(([, v]) => v !== undefined));
        store.effects.push({ kind, id, idempotencyKey: key ?? null, at: now, ...defined });
      },
      emit: (e) => webhooks.auto(e),
      admit: (quota, k) => limiter.admit(quota, k, now),
    };
  }

  return async function handle(req: SandboxRequest): Promise<SandboxResponse> {
    sweep(store, clock.now(), (e) => webhooks.auto(e));
    const requestId = newRequestId();
    const method = req.method.toUpperCase();
    const pathWithQuery = rawPathOf(req.url);
    const path = pathWithQuery.split('?')[0] ?? '';
    const headers = lowerHeaders(req.headers);
    const body = bytesOf(req.body);
    deps.requests.push({ method, path: pathWithQuery, headers, body: Buffer.from(body).toString('utf8'), at: clock.now(), requestId });

    const taken = faults.take(method, path);
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
      if (r.reset) return r;
      // The Date header follows the sandbox clock: clients correct their skew from it.
      return { ...r, headers: { ...r.headers, date: new Date(clock.now()).toUTCString() } };
    };

    const after = fault?.kind === 'status' && fault.when === 'after';
    if (fault && fault.kind !== 'delay' && fault.kind !== 'hang' && !after) return finish(faultResponse(fault, requestId));
    const outcome = await process(method, pathWithQuery, headers, body, requestId, delay);
    // `after`: the request ran and its outcome is stored; the client sees the failure instead.
    if (fault && after) return finish(faultResponse(fault, requestId));
    return finish(outcome);
  };
}

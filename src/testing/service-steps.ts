/**
 * The checks of the simulator's request pipeline, one named step each, in the order `service.ts`
 * runs them (its header gives the order and why). A step either passes, answers early, or
 * throws a ServiceError that becomes the error envelope.
 */
import { createHash } from 'node:crypto';
import { withDiagnosis } from './diagnosis.js';
import { fail, ServiceError } from './errors.js';
import { IDEMPOTENCY_KEY_SHAPE, type StoredResponse } from './idempotency.js';
import { bucketOf } from './rate-limit.js';
import { errorResponse, json } from './responses.js';
import type { RouteContext, RouteDef } from './routes/context.js';
import { findMember } from './routes/fields.js';
import type { RouteMatch } from './router.js';
import { hasScope } from './scopes.js';
import type { ServiceDeps } from './service-deps.js';
import type { KeyRow, SandboxEnvironment } from './auth.js';
import { ipAllowed } from './ip-allowlist.js';
import { verifySignature } from './signature.js';
import type { MemberRecord } from './store.js';

/** The path of the token exchange, served before any token check. */
export const TOKEN_PATH = '/v1/connect/token';

/** One request on its way through the checks. */
export interface Exchange {
  readonly method: string;
  /** Path with query, exactly as received (what was signed). */
  readonly pathWithQuery: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** Lowercased headers. */
  readonly headers: Record<string, string>;
  readonly body: Uint8Array;
  readonly requestId: string;
  /** GET and HEAD: no signature, allowed for a suspended merchant. */
  readonly isRead: boolean;
  /** The deployment called: the sandbox host, or the simulated production host. */
  readonly environment: SandboxEnvironment;
  /** The caller's IP: the socket's in server mode, `sandbox.setClientIp()`'s in-process. */
  readonly clientIp: string;
}

/** Outcome of the idempotency step: a stored answer to replay, or the key the handler runs under. */
export type KeyClaim = { readonly replay: StoredResponse } | { readonly key: string | undefined };

const RATE_LIMITED = { extra: { retry_after: 60 }, headers: { 'retry-after': '60' } };

/** The key's environment is the deployment's, else 400 `environment_mismatch` (spec: Environments). */
function checkEnvironment(key: KeyRow, x: Exchange): void {
  if (key.environment !== x.environment) {
    fail('environment_mismatch', `These credentials belong to the ${key.environment} environment, not this ${x.environment} deployment.`);
  }
}

/** The caller's IP is on the key's allowlist, else 403 `ip_not_allowed`, without echoing the list. */
function checkIp(deps: ServiceDeps, key: KeyRow, x: Exchange): void {
  if (!ipAllowed(deps.keys.allowlists[key.environment], x.clientIp, key.environment))
    fail('ip_not_allowed', 'The caller’s IP address is not allowed for this key.');
}

/**
 * 2. The token exchange (POST only): its own quota (20 a minute), the credentials in
 * `x-client-id` and `x-api-key`, the environment, the IP allowlist. No signature: "the
 * signing_key is never used for token exchange", and its only documented error is 401
 * `invalid_credentials`; signature headers, if sent, are ignored.
 */
export function exchangeToken(deps: ServiceDeps, x: Exchange): StoredResponse {
  const { store, clock, keys, limiter } = deps;
  const now = clock.now();
  store.stats.tokenExchangeAttempts += 1;
  if (!limiter.admit('token', 'merchant', now)) fail('rate_limited', 'Too many token exchanges.', RATE_LIMITED);
  const key = keys.identify(x.headers['x-client-id'], x.headers['x-api-key'], now);
  checkEnvironment(key, x);
  checkIp(deps, key, x);
  const { token, expiresAt } = keys.issue(key, now);
  store.stats.tokenExchanges += 1;
  // The token lives 30 minutes of business time (moving it expires tokens, as renewal tests want);
  // `expired_at` is told on the signature clock, the `Date` header's, so that a client's own clock
  // reads the remaining lifetime right however far business time was moved.
  const expiredAt = Math.floor((clock.signatureNow() + expiresAt - now) / 1000);
  return json(200, { auth_token: token, expired_at: expiredAt, token_type: 'Bearer', scopes: [...deps.scopes()] }, x.requestId);
}

/**
 * 3. The bearer token (`invalid_token`, expiry on business time), its environment (`environment_mismatch`), the key's IP
 * allowlist (`ip_not_allowed`), then a disabled merchant (`merchant_disabled`). Returns the key.
 */
export function checkToken(deps: ServiceDeps, x: Exchange, now: number): KeyRow {
  const key = deps.keys.verify(x.headers, now);
  checkEnvironment(key, x);
  checkIp(deps, key, x);
  if (deps.store.merchant.status === 'disabled') fail('merchant_disabled', 'The merchant is disabled.');
  return key;
}

/**
 * 4. The signature of every write with the token's key: headers, timestamp window, HMAC, nonce;
 * a refusal is diagnosed. Checked against the signature clock, never business time.
 */
export function checkSignature(deps: ServiceDeps, x: Exchange, key: KeyRow): void {
  if (x.isRead) return;
  verifyDiagnosed(deps, x, key);
}

/** Verifies a write's signature with `key` on the signature clock; a refusal carries the diagnosis (never the key). */
function verifyDiagnosed(deps: ServiceDeps, x: Exchange, key: KeyRow): void {
  const { method, pathWithQuery, headers, body, requestId } = x;
  const now = deps.clock.signatureNow();
  const keysForDiagnosis = { signingKey: key.signingKey, apiKey: key.apiKey };
  const input = { method, pathWithQuery, headers, body, requestId, now, keys: keysForDiagnosis, requests: deps.requests };
  withDiagnosis(input, () => verifySignature({ method, pathWithQuery, headers, body }, key.signingKey, deps.nonces, now, key.environment));
}

/**
 * 5. The route (`not_found`; a sandbox-only route is `not_found` to a live key too), its scope
 * (`insufficient_scope`), a suspended merchant's writes.
 */
export function findRoute(deps: ServiceDeps, x: Exchange, key: KeyRow): RouteMatch {
  const match = deps.router.match(x.method, x.path);
  if (!match) fail('not_found', `No endpoint ${x.method} ${x.path}.`);
  if (match.route.sandboxOnly === true && key.environment === 'live') fail('not_found', 'This endpoint exists only in the sandbox.');
  const { scope } = match.route;
  if (scope !== undefined && !hasScope(deps.scopes(), scope)) {
    fail('insufficient_scope', `This key lacks the ${scope} scope.`, { extra: { required_scope: scope } });
  }
  if (!x.isRead && deps.store.merchant.status === 'suspended') fail('merchant_disabled', 'The merchant is suspended; writes are rejected.');
  return match;
}

/** 6. The rate-limit bucket, so that a throttled request never executes. */
export function checkRateLimit(deps: ServiceDeps, x: Exchange, now: number): void {
  if (!deps.limiter.admit(bucketOf(x.method, x.path), 'merchant', now)) fail('rate_limited', 'Rate limit exceeded.', RATE_LIMITED);
}

/** 7. The member context: `x-on-behalf-of` required or optional by route, resolved to an active member. */
export function memberContext(deps: ServiceDeps, x: Exchange, route: RouteDef): MemberRecord | undefined {
  if (route.member === 'none') return undefined;
  const ref = (x.headers['x-on-behalf-of'] ?? '').trim();
  if (ref === '') {
    if (route.member === 'required') fail('member_context_required', 'x-on-behalf-of is required.');
    return undefined;
  }
  const member = findMember(deps.store, ref);
  if (!member) fail('member_not_found', 'No such member.');
  return member;
}

/** 8. The idempotency key: required or optional by route, UUID-shaped, then claimed or replayed. */
export function claimKey(deps: ServiceDeps, x: Exchange, route: RouteDef, now: number): KeyClaim {
  if (route.idempotency === 'none') return { key: undefined };
  const raw = x.headers['x-idempotency-key'];
  if (raw === undefined || raw === '') {
    if (route.idempotency === 'required') fail('idempotency_key_required', 'x-idempotency-key is required.');
    return { key: undefined };
  }
  if (!IDEMPOTENCY_KEY_SHAPE.test(raw)) fail('idempotency_key_invalid', 'x-idempotency-key must be UUID-shaped.');
  const bodyHash = createHash('sha256').update(x.body).digest('hex');
  const claim = deps.idempotency.claim(raw, `${x.method} ${x.path}`, bodyHash, now);
  if (claim.kind === 'reused') fail('idempotency_key_reused', 'This key was used with a different body or endpoint.');
  if (claim.kind === 'in_progress') fail('idempotency_in_progress', 'The first request with this key is still processing.');
  if (claim.kind === 'replay') {
    const stored = route.replay ? route.replay(claim.response) : claim.response;
    return { replay: { ...stored, headers: { ...stored.headers, 'x-idempotent-replay': 'true' } } };
  }
  return { key: raw };
}

/** The body as a JSON object: empty is `{}`, anything else is 400 `invalid_request`. */
function jsonBody(body: Uint8Array): Record<string, unknown> {
  const text = Buffer.from(body).toString('utf8');
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail('invalid_request', 'The body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) fail('invalid_request', 'The body must be a JSON object.');
  return parsed as Record<string, unknown>;
}

/** What the route handler receives: the request, its member and key, and the store's hooks. */
export function routeContext(
  deps: ServiceDeps,
  x: Exchange,
  params: Record<string, string>,
  member: MemberRecord | undefined,
  key: string | undefined,
): RouteContext {
  const { store, webhooks, limiter } = deps;
  const now = deps.clock.now();
  return {
    store,
    now,
    params,
    query: x.query,
    headers: x.headers,
    requestId: x.requestId,
    member,
    idempotencyKey: key,
    json: () => jsonBody(x.body),
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

/** 9. The handler; `storable` is false for failures that must not be kept under the key. */
export async function runHandler(route: RouteDef, ctx: RouteContext): Promise<{ response: StoredResponse; storable: boolean }> {
  try {
    const r = await route.handler(ctx);
    return { response: json(r.status, r.body, ctx.requestId, r.headers), storable: true };
  } catch (e) {
    if (e instanceof ServiceError) return { response: errorResponse(e, ctx.requestId), storable: e.storable };
    return { response: errorResponse(new ServiceError('api_error', 'Internal error in the sandbox.'), ctx.requestId), storable: false };
  }
}

/**
 * Keeps the handler's outcome under the key, or frees the key: 5xx outcomes are not kept, so a
 * retry with the same key executes again (a card activation mismatch is counted again, which is
 * why clients must not retry it).
 */
export function settleKey(deps: ServiceDeps, key: string | undefined, response: StoredResponse, storable: boolean): void {
  if (key === undefined) return;
  if (response.status >= 500 || !storable) deps.idempotency.release(key);
  else deps.idempotency.complete(key, response);
}

/** What a route handler receives and returns. */
import type { StoredResponse } from '../idempotency.js';
import type { QuotaName } from '../rate-limit.js';
import type { MemberRecord, Store } from '../store.js';
import type { EmitRequest } from '../webhook-types.js';

/** Per-request context handed to a route. */
export interface RouteContext {
  readonly store: Store;
  /** Sandbox time (ms) at which the request is processed. */
  readonly now: number;
  /** Path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Lowercased request headers. */
  readonly headers: Readonly<Record<string, string>>;
  readonly requestId: string;
  /** Resolved `x-on-behalf-of` member (required routes always have one). */
  readonly member: MemberRecord | undefined;
  /** The request's idempotency key when the route uses one and it was sent. */
  readonly idempotencyKey: string | undefined;
  /** The JSON body as an object; empty body is `{}`; anything else is 400 `invalid_request`. */
  json(): Record<string, unknown>;
  /** The member, or 400 `member_context_required` (for routes where it is optional). */
  requireMember(): MemberRecord;
  /** Logs a money-moving effect that actually executed. */
  effect(kind: string, id: string, detail?: { memberId?: string; asset?: string; amount?: string }): void;
  /** Queues a webhook event (delivered only when a receiver is registered). */
  emit(event: EmitRequest): void;
  /** Admits one request against a secondary quota; false when exhausted. */
  admit(quota: QuotaName, key: string): boolean;
}

/** A route's answer. Failures are thrown as ServiceError instead. */
export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** One endpoint the simulator serves. */
export interface RouteDef {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Template with `:name` segments, e.g. `/v1/cards/:id/activate`. */
  path: string;
  /**
   * Scope required: only where the spec names one for the endpoint. Undefined elsewhere, and
   * then no scope is checked (the spec: "which endpoint needs which scope beyond those stated
   * above: not shown"; the sandbox does not invent one, so a key without `cards:write` can set
   * card limits and close a card, as the client's table says).
   */
  scope?: string;
  /** `required`: 400/404 member errors; `optional`: resolved when sent; `none`: ignored. */
  member: 'required' | 'optional' | 'none';
  /** `required`: 400 when missing; `optional`: applied when sent; `none`: header ignored. */
  idempotency: 'required' | 'optional' | 'none';
  handler(ctx: RouteContext): RouteResult | Promise<RouteResult>;
  /** Exists only in the sandbox: a live key gets 404 `not_found` (the faucet). */
  sandboxOnly?: boolean;
  /** Rewrites a stored response on replay (the faucet adds `duplicated: true`). */
  replay?(stored: StoredResponse): StoredResponse;
}

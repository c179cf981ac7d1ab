/**
 * What recovery sends or says for one intent: the intent as a prepared call (its own bytes, key
 * and member), and, for one not sent, where to look to learn whether it happened.
 */
import type { EndpointDescriptor } from '../../facts/endpoint.js';
import { bucketOf, subLimitOf } from '../../facts/rate-limits.js';
import type { PreparedCall } from '../call/call.js';
import type { JournalIntent } from './intent-journal.js';
import { isSignedMethod } from '../crypto/signing.js';

/** The intent as a call: its own path, body bytes and key; the bucket from its path. */
export function preparedOf(
  intent: JournalIntent,
  endpoint: EndpointDescriptor<unknown>,
  basePath: string,
  signal?: AbortSignal,
): PreparedCall {
  const filled = intent.path.startsWith(basePath) ? intent.path.slice(basePath.length) : intent.path;
  const member = intent.member ?? undefined;
  return {
    // The span and log lines of a resend say it is one, under the endpoint's one name.
    name: `recover ${endpoint.id}`,
    route: endpoint.path,
    method: intent.method,
    path: intent.path,
    body: intent.body === null ? undefined : new TextEncoder().encode(intent.body),
    signed: isSignedMethod(intent.method),
    idempotencyKey: intent.key,
    member,
    bucket: bucketOf(intent.method, filled),
    subKey: subLimitOf(intent.method, filled, member),
    extraHeaders: undefined,
    // Every reader asks `options?.signal`: without a signal this is the same as no options.
    options: { signal },
    secrets: [],
  };
}

/**
 * Where to look when an intent is not sent again: the object's GET where the spec has one (cards,
 * remittances), else the balances the operation moves (the spec shows no GET of a withdrawal, a
 * conversion or a payment by id; the idempotency key identifies the operation to support).
 */
export function checkFor(intent: JournalIntent): string {
  // Greedy from the start of the path (an anchor would add nothing): `<base>/v1/cards/<id>`.
  const object = /(.*\/v1\/(?:cards|remittances)\/[^/?]+)\//.exec(intent.path);
  if (object !== null) return `GET ${object[1]} shows whether it happened`;
  if (intent.endpoint === 'member.kyc.quickBind') return 'GET /v1/kyc (same member) shows whether the binding was made';
  const where = intent.endpoint.startsWith('member.')
    ? 'GET /v1/balances (same member; a withdrawal sits in withdrawing)'
    : 'GET /v1/merchant/balances';
  return `no GET by id in the spec: ${where} shows whether the funds moved; quote the idempotency key to support`;
}

/** `text` with the route's parameters (`{id}`) replaced by the intent's: `GET /v1/cards/crd_1`. */
export function withParams(text: string, route: string, path: string): string {
  const names: string[] = [];
  const source = route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_, name: string) => (names.push(name), '([^/?]+)'));
  const values = new RegExp(`${source}(?:\\?|$)`).exec(path);
  if (values === null) return text;
  return names.reduce((t, name, i) => t.replaceAll(`{${name}}`, values[i + 1]!), text);
}

/**
 * The spec's facts about each operation, held against the OpenAPI document: the operation itself,
 * its authentication, headers, errors by status, limits, pagination, and the webhooks. Driven by
 * the endpoint table (`src/facts/endpoints.ts`): every endpoint of it yields its facts, so a new
 * endpoint cannot skip the check, and a shown endpoint without a spec section fails.
 */
import { ENDPOINTS } from '../../src/facts/endpoints.js';
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import { DOC, accepts, deref, field, jsonSchema, operation, parameters, responses, successes, type Json } from './openapi-doc.js';
import { catalogue, deriveFacts, route, SPEC, specSections } from './spec-facts.js';

/** The categories the facts are counted in. */
export type Category =
  | 'operations'
  | 'auth'
  | 'headers'
  | 'errors by status'
  | 'request fields'
  | 'response fields'
  | 'limits'
  | 'webhooks'
  | 'pagination'
  | 'rule quotes';

/** One fact of the spec and whether the document says it. */
export interface Fact {
  readonly category: Category;
  /** The route, component or rule the fact is about. */
  readonly subject: string;
  /** The fact, in words. */
  readonly claim: string;
  readonly holds: boolean;
}

const UUID = '3f1e2d4c-5b6a-4789-8abc-def012345678';
const flat = (s: string): string => s.replace(/\s+/g, ' ');

/** The facts of every endpoint of the table. */
export function operationFacts(): Fact[] {
  const facts: Fact[] = [];
  const derived = deriveFacts(SPEC);
  const sections = specSections(SPEC);
  const shown = new Set(derived.shownRoutes);
  const nameOnly = new Set(derived.nameOnlyRoutes);
  const add = (category: Category, subject: string, claim: string, holds: boolean) => facts.push({ category, subject, claim, holds });

  for (const e of ENDPOINTS) {
    const key = route(e);
    const op = operation(key);
    const section = sections.get(key);
    add('operations', key, 'the spec shows or names it', shown.has(key) || nameOnly.has(key));
    add('operations', key, 'the document has the operation', op !== undefined);
    add(
      'operations',
      key,
      `its shape is ${shown.has(key) ? 'shown' : 'name-only'}`,
      op?.['x-shape'] === (shown.has(key) ? 'shown' : 'name-only'),
    );
    if (shown.has(key)) add('operations', key, 'the spec has its section', section !== undefined);
    authFacts(e, op, section, add);
    headerFacts(e, op, section, add);
    errorFacts(key, op, derived.endpointErrorStatuses[key] ?? {}, add);
    commonErrorFacts(e, op, section, add);
  }
  catalogueFacts(add);
  limitFacts(add);
  paginationFacts(add);
  webhookFacts(add);
  return facts;
}

type Add = (category: Category, subject: string, claim: string, holds: boolean) => void;

function authFacts(e: EndpointDescriptor, op: Json | undefined, section: string | undefined, add: Add): void {
  const key = route(e);
  const security = (op?.['security'] as Json[] | undefined) ?? [];
  if (e.path === '/v1/connect/token') {
    // "with headers `x-client-id` and `x-api-key` (not `Authorization`, not body fields)".
    add(
      'auth',
      key,
      'credentials in x-client-id and x-api-key',
      security.length === 1 && 'clientId' in security[0]! && 'apiKey' in security[0],
    );
    add('auth', key, 'no body', op?.['requestBody'] === undefined);
    add('auth', key, 'not signed (the signing key is never used for the exchange)', op?.['x-signed'] === false);
    return;
  }
  // "`x-auth-token: Bearer <ACCESS_TOKEN>` (the header `authorization: Bearer` is also accepted)".
  add(
    'auth',
    key,
    'x-auth-token accepted',
    security.some((s) => 'authToken' in s),
  );
  add(
    'auth',
    key,
    'authorization: Bearer accepted',
    security.some((s) => 'bearerAuth' in s),
  );
  // "A write is any method other than GET or HEAD"; writes carry the three signature headers.
  const write = e.method !== 'GET' && e.method !== 'HEAD';
  const signed = security.every((s) => 'signature' in s && 'signatureNonce' in s && 'signatureTimestamp' in s);
  add('auth', key, write ? 'signed' : 'not signed', signed === write && op?.['x-signed'] === write);
  const scope = section ? /\bScope `([^`]+)`/.exec(flat(section.split(/\n\s*\n/)[1] ?? ''))?.[1] : undefined;
  if (scope !== undefined) {
    add('auth', key, `scope ${scope}`, op?.['x-scope'] === scope && security.every((s) => Object.values(s)[0]?.[0] === scope));
  }
}

function headerFacts(e: EndpointDescriptor, op: Json | undefined, section: string | undefined, add: Add): void {
  const key = route(e);
  const head = section ? flat(section.split(/\n\s*\n/)[1] ?? '') : '';
  const header = (name: string) => parameters(op).find((p) => p['in'] === 'header' && p['name'] === name);
  if (/\bMember-scoped\b/.test(head)) {
    const p = header('x-on-behalf-of');
    add('headers', key, 'x-on-behalf-of required', p?.['required'] === true);
    // "missing or blank after trimming" answers member_context_required.
    add(
      'headers',
      key,
      'x-on-behalf-of refuses a blank value',
      p !== undefined && !accepts(p['schema'] as Json, '  ') && accepts(p['schema'] as Json, 'm'),
    );
  }
  if (/\bMerchant account\b/.test(head)) add('headers', key, 'no x-on-behalf-of', header('x-on-behalf-of') === undefined);
  if (/\bIdempotency key (\(UUID v4\) )?required\b/.test(head)) {
    const p = header('x-idempotency-key');
    add('headers', key, 'x-idempotency-key required', p?.['required'] === true);
    // "Key is not UUID-shaped (8-4-4-4-12 hex)" answers idempotency_key_invalid.
    add(
      'headers',
      key,
      'x-idempotency-key UUID-shaped',
      p !== undefined && accepts(p['schema'] as Json, UUID) && !accepts(p['schema'] as Json, 'key-1'),
    );
    for (const [status, r] of successes(op))
      add('headers', key, `X-Idempotent-Replay on ${status}`, r['headers']?.['X-Idempotent-Replay'] !== undefined);
    const bad = responses(op).find(([s]) => s === '400')?.[1];
    add('headers', key, 'X-Idempotent-Replay on a replayed 400', bad?.['headers']?.['X-Idempotent-Replay'] !== undefined);
  }
  if (/\bNo idempotency key\b/.test(head)) add('headers', key, 'no x-idempotency-key', header('x-idempotency-key') === undefined);
  // "Query `lang` (optional): ... When omitted, `Accept-Language` is used": the header is read, optional.
  for (const m of (section ?? '').matchAll(/When omitted, `([A-Za-z-]+)` is used/g)) {
    const p = parameters(op).find((x) => x['in'] === 'header' && String(x['name']).toLowerCase() === m[1]!.toLowerCase());
    add('headers', key, `${m[1]} declared, optional`, p !== undefined && p['required'] !== true);
  }
  // "Every response carries the `X-Request-Id` header".
  for (const [status, r] of responses(op)) add('headers', key, `X-Request-Id on ${status}`, r['headers']?.['X-Request-Id'] !== undefined);
  // "HTTP 429 `rate_limited` with `Retry-After: <seconds>`".
  const limited = responses(op).find(([s]) => s === '429')?.[1];
  add('headers', key, 'Retry-After on 429', limited?.['headers']?.['Retry-After'] !== undefined);
}

function errorFacts(key: string, op: Json | undefined, statuses: Readonly<Record<string, number>>, add: Add): void {
  const listed = new Map<string, string[]>();
  for (const [status, r] of responses(op)) listed.set(status, (r['x-error-codes'] as string[] | undefined) ?? []);
  for (const [code, status] of Object.entries(statuses)) {
    add('errors by status', key, `${status} ${code}`, listed.get(String(status))?.includes(code) === true);
    const elsewhere = [...listed].filter(([s, codes]) => s !== String(status) && codes.includes(code)).map(([s]) => s);
    add('errors by status', key, `${code} under no other status`, elsewhere.length === 0);
  }
}

/** The codes the common rules give an endpoint by its flags, at their catalogue status. */
function commonErrorFacts(e: EndpointDescriptor, op: Json | undefined, section: string | undefined, add: Add): void {
  const key = route(e);
  const head = section ? flat(section.split(/\n\s*\n/)[1] ?? '') : '';
  const listed = (status: string, code: string) =>
    add(
      'errors by status',
      key,
      `${status} ${code} (common rules)`,
      ((responses(op).find(([s]) => s === status)?.[1]['x-error-codes'] as string[]) ?? []).includes(code),
    );
  if (e.path === '/v1/connect/token') {
    // Environments: "Credentials and tokens crossing environments are rejected with `environment_mismatch`".
    if (/Credentials and tokens crossing environments are rejected with `environment_mismatch`/.test(SPEC))
      listed('400', 'environment_mismatch');
    return;
  }
  listed('401', 'invalid_token');
  if (e.method !== 'GET' && e.method !== 'HEAD') listed('401', 'invalid_signature');
  // "When `x-on-behalf-of` is missing or blank ... 400 `member_context_required`"; "An unknown, foreign or suspended member returns 404 `member_not_found`".
  if (/\bMember-scoped\b/.test(head)) {
    listed('400', 'member_context_required');
    listed('404', 'member_not_found');
  }
  if (/\bIdempotency key (\(UUID v4\) )?required\b/.test(head)) {
    listed('400', 'idempotency_key_required');
    listed('400', 'idempotency_key_invalid');
  }
  if (/\bScope `/.test(head)) listed('403', 'insufficient_scope');
  listed('429', 'rate_limited');
  listed('500', 'api_error');
}

function catalogueFacts(add: Add): void {
  const codes = (DOC['components']?.['schemas']?.['ErrorCode']?.['enum'] as string[] | undefined) ?? [];
  const envelope = DOC['components']?.['schemas']?.['Error'] as Json | undefined;
  for (const row of catalogue(SPEC)) add('errors by status', 'Code catalogue', `${row.code} is a public code`, codes.includes(row.code));
  // "An unknown code is treated as `api_error`": the envelope admits any code.
  add('errors by status', 'Error envelope', 'an unknown code passes', accepts(field(envelope, 'code'), 'brand_new_code'));
  for (const name of ['type', 'code', 'message', 'request_id'])
    add('errors by status', 'Error envelope', `${name} required`, ((envelope?.['required'] as string[]) ?? []).includes(name));
  // Extra fields: Unix seconds and seconds are whole numbers.
  for (const name of ['expires_at', 'retry_after'])
    add('errors by status', 'Error envelope', `${name} an integer`, field(envelope, name)?.['type'] === 'integer');
  add('errors by status', 'Error envelope', 'locked_until a timestamp', field(envelope, 'locked_until')?.['format'] === 'date-time');
}

function limitFacts(add: Add): void {
  // Rate limits table: deposits 60, members_write 300, orders 120, reads 1200 per minute.
  const start = SPEC.indexOf('### Rate limits');
  const table = SPEC.slice(start, SPEC.indexOf('\n- ', start));
  const buckets = (DOC['x-rate-limit-buckets'] as Json | undefined) ?? {};
  for (const m of table.matchAll(/^\| ([a-z_]+) \| .* \| (\d+) per minute \|$/gm)) {
    add('limits', 'Rate limits', `${m[1]} ${m[2]} per minute`, buckets[m[1]!] === Number(m[2]));
  }
  // "Pagination `limit` | default 20, maximum 100".
  const limit = deref({ $ref: '#/components/parameters/Limit' })?.['schema'] as Json | undefined;
  add('limits', 'Pagination limit', 'maximum 100', accepts(limit, 100) && !accepts(limit, 101));
  add('limits', 'Pagination limit', 'default 20', limit?.['default'] === 20);
  add('limits', 'Pagination limit', 'an integer', limit?.['type'] === 'integer' && !accepts(limit, 2.5));
}

function paginationFacts(add: Add): void {
  // "Envelope: `{data: [...], next_cursor: string|null, has_more: boolean}`"; "Static lists use the
  // same envelope with `next_cursor` null and `has_more` false" (a section writing `next_cursor: null`).
  const sections = specSections(SPEC);
  for (const key of ['GET /v1/reports', 'GET /v1/remit/corridors', 'GET /v1/balances']) {
    const schema = jsonSchema(successes(operation(key))[0]?.[1]);
    const isStatic = /`\{data: [^`]*next_cursor: null\b/.test(sections.get(key) ?? '');
    add('pagination', key, 'data an array', accepts(field(schema, 'data'), []) && !accepts(field(schema, 'data'), {}));
    add(
      'pagination',
      key,
      isStatic ? 'next_cursor null (a static list: no string)' : 'next_cursor a string or null',
      accepts(field(schema, 'next_cursor'), null) && accepts(field(schema, 'next_cursor'), 'c') !== isStatic,
    );
    add('pagination', key, 'has_more a boolean', accepts(field(schema, 'has_more'), false) && !accepts(field(schema, 'has_more'), 'no'));
  }
  const list = operation('GET /v1/reports');
  const names = parameters(list).map((p) => p['name'] as string);
  add(
    'pagination',
    'GET /v1/reports',
    'query limit and cursor, no offset',
    names.includes('limit') && names.includes('cursor') && !names.includes('offset'),
  );
  // `balances` stays as a transitional copy of `data`.
  add(
    'pagination',
    'GET /v1/balances',
    'balances array kept',
    field(jsonSchema(successes(operation('GET /v1/balances'))[0]?.[1]), 'balances') !== undefined,
  );
}

function webhookFacts(add: Add): void {
  const hooks = (DOC['webhooks'] as Json | undefined) ?? {};
  const start = SPEC.indexOf('### Event types');
  const table = SPEC.slice(start, SPEC.indexOf('\nRules:', start));
  const named = [...table.matchAll(/^\| `([a-z0-9.]+)` \|/gm)].map((m) => m[1]!);
  const others = /`card\.status\.updated`, `card\.activated`, `card\.application\.approved` and `kyc\.result\.updated`/.test(SPEC)
    ? ['card.status.updated', 'card.activated', 'card.application.approved', 'kyc.result.updated']
    : [];
  for (const type of [...named, ...others]) {
    const post = hooks[type]?.['post'] as Json | undefined;
    add('webhooks', type, 'declared', post !== undefined);
    const headers = ((post?.['parameters'] as Json[] | undefined) ?? []).map((p) => p['name'] as string);
    for (const h of ['z-signature', 'z-event-id', 'z-event-type']) add('webhooks', type, `${h} header`, headers.includes(h));
  }
  // Envelope table of Events > Delivery contract.
  const envelope = DOC['components']?.['schemas']?.['WebhookEnvelope'] as Json | undefined;
  const from = SPEC.indexOf('- Envelope:');
  for (const m of SPEC.slice(from, SPEC.indexOf('\n### ', from)).matchAll(/^\| ([a-z_.]+) \| (string|boolean|integer) \|/gm)) {
    const f = field(envelope, m[1]!);
    const sample = m[2] === 'string' ? 's' : m[2] === 'boolean' ? true : 1;
    add(
      'webhooks',
      'Envelope',
      `${m[1]} ${m[2]}`,
      f !== undefined && (m[1] === 'event_id' || m[1] === 'created_at' ? true : accepts(f, sample)),
    );
    if (m[2] === 'integer') add('webhooks', 'Envelope', `${m[1]} refuses 1.5`, !accepts(f, 1.5));
  }
  add('webhooks', 'Envelope', 'created_at a timestamp', field(envelope, 'created_at')?.['format'] === 'date-time');
}

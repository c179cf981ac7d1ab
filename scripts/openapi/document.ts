/**
 * Builds the OpenAPI 3.1 document of the API from the SDK's own tables: the endpoint descriptors
 * (`src/spec/endpoints.ts`: method, path, scope, member scope, idempotency, funds, retries), the
 * error catalogue, the success statuses, the rate-limit buckets, the zod response schemas
 * (`src/schemas`), the webhook schemas (`src/webhooks`), and the parameter types of the resource
 * methods (`src/resources`: which body and query fields the SDK sends). Nothing outside the
 * repository is read. Flags are read generically, so a changed descriptor only needs a rerun of
 * `npm run openapi`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { EndpointDescriptor } from '../../src/spec/endpoint.js';
import * as endpointTable from '../../src/spec/endpoints.js';
import { ENDPOINTS, NAME_ONLY_ENDPOINTS } from '../../src/spec/endpoints.js';
import { bucketOf, RATE_LIMIT_QUOTAS, SUB_LIMIT_QUOTAS, subLimitOf, TOKEN_EXCHANGES_PER_MINUTE } from '../../src/spec/rate-limits.js';
import { SUCCESS_STATUSES } from '../../src/spec/success-statuses.js';
import * as schemaModule from '../../src/schemas/index.js';
import { KNOWN_EVENT_TYPES, TYPED_EVENT_TYPES } from '../../src/webhooks/event-types.js';
import * as webhookSchemas from '../../src/webhooks/schemas.js';
import { SDK_VERSION } from '../../src/version.js';
import { sdkCall } from '../gen-endpoints-doc.js';
import { buildSchemaComponents, namedSchemasOf, type RootSchema, type SchemaComponents } from './components.js';
import { errorResponses, errorSchemas, operationCodes, shareErrorResponses } from './errors.js';
import { refineSchema } from './refine.js';
import { applyRule, REQUEST_DECIMALS, REQUEST_RULES } from './request-rules.js';
import { readResourceCalls, type ResourceCall } from './resource-calls.js';
import { isZod, type ZodLike } from './schema-docs.js';
import { docOf, SourceIndex } from './source-index.js';
import { infoDescription, SIGNING } from './text.js';
import type { JsonSchema, ObjectSchema } from './type-schema.js';

/** The sandbox CLI's default address (`merchant-stablecoin-sandbox`, port 4010). */
const SANDBOX_DEFAULT_URL = 'http://127.0.0.1:4010';

/** Member scope of a descriptor: `memberScoped: true` (or `'required'`), `'optional'`, else none. */
function memberMode(e: EndpointDescriptor): 'required' | 'optional' | 'none' {
  const v = flag(e, 'memberScoped');
  if (v === 'optional' || flag(e, 'memberOptional') === true) return 'optional';
  if (v === true || v === 'required') return 'required';
  return 'none';
}

/** `member.withdrawals.create` as `withdrawalsCreate`: the SDK's name without the member view. */
function operationIdOf(e: EndpointDescriptor): string {
  const parts = e.id.split('.').filter((p, i) => !(i === 0 && p === 'member'));
  return parts.map((p, i) => (i === 0 ? p : p.charAt(0).toUpperCase() + p.slice(1))).join('');
}

const isWrite = (e: EndpointDescriptor): boolean => e.method !== 'GET' && e.method !== 'HEAD';
const isTokenExchange = (e: EndpointDescriptor): boolean => e.path === '/v1/connect/token';
/** A flag of a descriptor read by name, so that flags added to the table reach the document on a rerun. */
const flag = (e: EndpointDescriptor, name: string): unknown => (e as unknown as Record<string, unknown>)[name];
/** Every write is signed but the token exchange (spec: "the signing_key is never used for token exchange"). */
const isSigned = (e: EndpointDescriptor): boolean => isWrite(e) && !isTokenExchange(e) && flag(e, 'unsigned') !== true;
const PARAM = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const HEADER = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The descriptor constants of `src/spec/endpoints.ts`, by descriptor. */
function constantsOf(): Map<EndpointDescriptor, string> {
  const out = new Map<EndpointDescriptor, string>();
  for (const [name, value] of Object.entries(endpointTable)) {
    if (ENDPOINTS.includes(value as EndpointDescriptor)) out.set(value as EndpointDescriptor, name);
  }
  return out;
}

/** The expression a descriptor's response schema is written as (the 4th argument of `endpoint()`). */
function responseExpression(index: SourceIndex, constant: string): { file: string; expr: ts.Expression } | undefined {
  const file = index.abs('src/spec/endpoints.ts');
  const found = index.resolve(file, constant);
  const init = found && ts.isVariableDeclaration(found.node) ? found.node.initializer : undefined;
  const arg = init && ts.isCallExpression(init) ? init.arguments[3] : undefined;
  return arg ? { file, expr: arg } : undefined;
}

function tagOf(e: EndpointDescriptor): string {
  const parts = e.id.split('.');
  return (parts[0] === 'member' ? parts[1] : parts[0]) ?? 'other';
}

function description(e: EndpointDescriptor, documented: readonly string[], member: string): string {
  const nameOnly = NAME_ONLY_ENDPOINTS.includes(e);
  const lines = [
    e.scope ? `Scope \`${e.scope}\`.` : 'Scope: not shown.',
    member === 'required'
      ? 'Member-scoped: send `x-on-behalf-of`.'
      : member === 'optional'
        ? 'Callable with or without `x-on-behalf-of`.'
        : 'Merchant account.',
    e.idempotent ? 'Idempotency key required.' : 'No idempotency key.',
    e.movesFunds ? 'Moves funds.' : 'Moves no funds.',
    isSigned(e) ? 'Signed.' : isWrite(e) ? 'Not signed.' : '',
  ].filter((l) => l !== '');
  const parts = [lines.join(' ')];
  if (nameOnly) {
    parts.push(
      "The specification names this endpoint without its shapes: request and response shapes, scope, member scope and idempotency are the SDK's documented assumptions, and the response is any JSON value.",
    );
  } else if (e.typing === 'loose') {
    parts.push('The response shape is not shown by the specification: any JSON value.');
  }
  parts.push(documented.length ? `Errors documented for it: ${documented.map((c) => `\`${c}\``).join(', ')}.` : 'Errors: not shown.');
  return parts.join('\n\n');
}

function parameters(e: EndpointDescriptor, call: ResourceCall | undefined, member: string): unknown[] {
  const out: unknown[] = [];
  for (const m of e.path.matchAll(/\{(\w+)\}/g)) {
    out.push({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...(call?.pathParamDoc ? { description: call.pathParamDoc } : {}),
    });
  }
  if (member === 'required') out.push(PARAM('XOnBehalfOf'));
  if (member === 'optional') out.push(PARAM('XOnBehalfOfOptional'));
  if (e.idempotent) out.push(PARAM('XIdempotencyKey'));
  if (isTokenExchange(e)) out.push(PARAM('XClientId'), PARAM('XApiKey'));
  for (const [name, schema] of Object.entries(call?.query?.properties ?? {})) {
    if (call?.listQuery && (name === 'limit' || name === 'cursor')) {
      out.push(PARAM(name === 'limit' ? 'Limit' : 'Cursor'));
      continue;
    }
    const rule = REQUEST_RULES[`${e.method} ${e.path}`]?.query?.[name];
    const { description: doc, ...rest } = rule ? applyRule(schema, rule) : schema;
    out.push({
      name,
      in: 'query',
      required: call?.query?.required?.includes(name) ?? false,
      schema: rest,
      ...(typeof doc === 'string' ? { description: doc } : {}),
    });
  }
  return out;
}

function requestBody(e: EndpointDescriptor, call: ResourceCall | undefined): unknown {
  if (!isWrite(e) || isTokenExchange(e)) return undefined;
  let schema: JsonSchema;
  if (call?.body === 'empty') schema = { type: 'object', description: 'An empty object: send `{}` (signed as these exact bytes).' };
  else if (call?.body) schema = bodySchema(call.body, `${e.method} ${e.path}`);
  else schema = { type: 'object', additionalProperties: true, description: 'Fields not shown by the specification: sent as given.' };
  return { required: true, content: { 'application/json': { schema } } };
}

function bodySchema(body: ObjectSchema, route: string): JsonSchema {
  const open = Object.keys(body.properties ?? {}).length === 0;
  if (open) return { type: 'object', additionalProperties: true, description: 'Fields not shown by the specification: sent as given.' };
  const rules = REQUEST_RULES[route];
  const properties = Object.fromEntries(
    Object.entries(body.properties).map(([name, schema]) => {
      const rule = rules?.body?.[name];
      return [name, rule ? applyRule(schema, rule) : schema];
    }),
  );
  return { ...body, properties, ...(rules?.bodyAdd?.add ?? {}) };
}

function successResponses(e: EndpointDescriptor, components: SchemaComponents): Record<string, unknown> {
  const statuses = SUCCESS_STATUSES[`${e.method} ${e.path}`] ?? ['2XX'];
  const schema: JsonSchema =
    e.typing === 'full'
      ? components.ref(e.response as unknown as ZodLike)
      : { description: 'Not shown by the specification: any JSON value.' };
  const headers: Record<string, unknown> = { 'X-Request-Id': HEADER('XRequestId') };
  if (e.idempotent) headers['X-Idempotent-Replay'] = HEADER('XIdempotentReplay');
  const out: Record<string, unknown> = {};
  for (const s of statuses) {
    out[String(s)] = {
      description: s === '2XX' ? 'Success (status not shown by the specification).' : 'Success.',
      headers,
      content: { 'application/json': { schema } },
    };
  }
  return out;
}

function rateLimit(e: EndpointDescriptor): JsonSchema {
  if (isTokenExchange(e)) return { bucket: 'token_exchange', per_minute: TOKEN_EXCHANGES_PER_MINUTE };
  const bucket = bucketOf(e.method, e.path);
  const sub = subLimitOf(e.method, e.path, 'member')?.split(':')[0] as keyof typeof SUB_LIMIT_QUOTAS | undefined;
  return {
    bucket,
    per_minute: RATE_LIMIT_QUOTAS[bucket],
    ...(sub ? { sub_limit: sub, sub_limit_per_minute: SUB_LIMIT_QUOTAS[sub], ...(sub === 'qrpay_quotes' ? { per: 'member' } : {}) } : {}),
  };
}

function operation(
  e: EndpointDescriptor,
  call: ResourceCall | undefined,
  documented: readonly string[],
  statuses: Readonly<Record<string, number>>,
  components: SchemaComponents,
) {
  const member = memberMode(e);
  const token = isTokenExchange(e);
  const roles = e.scope ? [e.scope] : [];
  return {
    operationId: operationIdOf(e),
    summary: token ? 'Exchanges the client id and api key for an access token' : (call?.summary ?? `${e.method} ${e.path}`),
    description: description(e, documented, member),
    tags: [tagOf(e)],
    parameters: parameters(e, call, member),
    ...(requestBody(e, call) ? { requestBody: requestBody(e, call) } : {}),
    responses: {
      ...successResponses(e, components),
      ...errorResponses(operationCodes(e, documented, member), statuses, e.idempotent),
    },
    security: security(e, roles),
    'x-sdk-method': sdkCall(e.id),
    'x-shape': NAME_ONLY_ENDPOINTS.includes(e) ? 'name-only' : 'shown',
    'x-scope': e.scope ?? null,
    'x-member-scope': member,
    'x-idempotency': e.idempotent ? 'required' : 'none',
    'x-moves-funds': e.movesFunds,
    'x-signed': isSigned(e),
    'x-rate-limit': rateLimit(e),
    'x-retry': e.retry ?? 'spec',
    ...(e.noRetryCodes?.length ? { 'x-no-retry-codes': [...e.noRetryCodes] } : {}),
    ...(flag(e, 'lockout') !== undefined ? { 'x-lockout': flag(e, 'lockout') } : {}),
  };
}

/**
 * The token exchange takes the credentials; every other call a token (either header), and a write
 * the three signature headers too. The signature headers are security schemes rather than
 * parameters: they are computed per request from the bytes sent (`x-signing`), so a generated
 * client sets them in one request hook instead of taking them as arguments of every call.
 */
function security(e: EndpointDescriptor, roles: string[]): Record<string, string[]>[] {
  if (isTokenExchange(e)) return [{ clientId: [], apiKey: [] }];
  const signed: Record<string, string[]> = isSigned(e) ? { signatureTimestamp: [], signatureNonce: [], signature: [] } : {};
  return [
    { authToken: roles, ...signed },
    { bearerAuth: roles, ...signed },
  ];
}

function componentParameters(): Record<string, unknown> {
  const header = (name: string, description: string, schema: JsonSchema, required = true) => ({
    name,
    in: 'header',
    required,
    description,
    schema,
  });
  return {
    // "missing or blank after trimming" answers `member_context_required`: at least one non-space.
    XOnBehalfOf: header('x-on-behalf-of', 'The member acted for: its `external_member_id` or `mem_<uuid>`; not blank.', {
      type: 'string',
      pattern: '\\S',
    }),
    XOnBehalfOfOptional: header(
      'x-on-behalf-of',
      'The member acted for (`external_member_id` or `mem_<uuid>`); optional on this endpoint, not blank when sent.',
      { type: 'string', pattern: '\\S' },
      false,
    ),
    XIdempotencyKey: header(
      'x-idempotency-key',
      'A UUID (8-4-4-4-12 hex), new per operation and reused by every retry of it. Window: 24 hours.',
      { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
    ),
    XClientId: header('x-client-id', 'The client identifier issued with the API key.', { type: 'string' }),
    XApiKey: header('x-api-key', 'The api key (never the signing key). Missing, empty and wrong credentials answer the same 401.', {
      type: 'string',
    }),
    Limit: {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Page size (default 20, maximum 100; a minimum is not shown by the specification). Not a cap on the total.',
      schema: { type: 'integer', maximum: 100, default: 20 },
    },
    Cursor: {
      name: 'cursor',
      in: 'query',
      required: false,
      description: "The previous page's `next_cursor` (opaque). An undecodable or expired cursor returns the first page.",
      schema: { type: 'string' },
    },
  };
}

function componentHeaders(): Record<string, unknown> {
  return {
    XRequestId: { description: 'Identifies the request; error bodies repeat it as `request_id`.', schema: { type: 'string' } },
    XIdempotentReplay: {
      description: '`true` when the answer replays the first outcome stored under the idempotency key.',
      schema: { type: 'string', enum: ['true'] },
    },
    RetryAfter: { description: 'Seconds to wait before calling this bucket again.', schema: { type: 'integer', minimum: 0 } },
  };
}

function securitySchemes(): Record<string, unknown> {
  const tokenNote = 'The token from `POST /v1/connect/token` (valid 30 minutes, no refresh flow).';
  return {
    authToken: { type: 'apiKey', in: 'header', name: 'x-auth-token', description: `\`Bearer <token>\`. ${tokenNote}` },
    bearerAuth: { type: 'http', scheme: 'bearer', description: `\`authorization: Bearer <token>\`, also accepted. ${tokenNote}` },
    clientId: { type: 'apiKey', in: 'header', name: 'x-client-id', description: 'Client identifier, for the token exchange only.' },
    apiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'API key, for the token exchange only (never used for signing).',
    },
    signatureTimestamp: {
      type: 'apiKey',
      in: 'header',
      name: 'x-timestamp',
      description:
        'Signature header: Unix seconds (not milliseconds), within 300 seconds of the service clock. Set per request by your signing hook.',
    },
    signatureNonce: {
      type: 'apiKey',
      in: 'header',
      name: 'x-nonce',
      description:
        'Signature header: new for every request, retries included; never reused within 5 minutes. Set per request by your signing hook.',
    },
    signature: {
      type: 'apiKey',
      in: 'header',
      name: 'x-signature',
      description:
        'Signature header: base64 HMAC-SHA256 with the signing key over METHOD, path with query, x-timestamp, x-nonce and the hex sha256 of the body, joined by newlines (`x-signing`). Set per request by your signing hook.',
    },
  };
}

function webhooks(components: SchemaComponents, webhookRoots: Map<string, ZodLike>, envelope: ZodLike, index: SourceIndex) {
  const file = index.abs('src/webhooks/schemas.ts');
  const out: Record<string, unknown> = {};
  for (const type of KNOWN_EVENT_TYPES) {
    const data = webhookRoots.get(type);
    const constant = Object.entries(webhookSchemas as Record<string, unknown>).find(([, v]) => v === data)?.[0];
    const found = constant ? index.resolve(file, constant) : undefined;
    const schema = {
      allOf: [
        components.ref(envelope),
        { type: 'object', properties: { event_type: { const: type }, ...(data ? { data: components.ref(data) } : {}) } },
      ],
    };
    out[type] = {
      post: {
        operationId: `event_${type.replace(/\./g, '_')}`,
        summary: type,
        description:
          (found ? docOf(found.node) : undefined) ??
          'Named by the specification without a payload shape: the envelope is typed, `data` passes through.',
        parameters: [
          {
            name: 'z-event-id',
            in: 'header',
            required: true,
            description: 'Deduplicate on it: deliveries are at least once.',
            schema: { type: 'string' },
          },
          { name: 'z-event-type', in: 'header', required: true, schema: { type: 'string', const: type } },
          {
            name: 'z-signature',
            in: 'header',
            required: true,
            description: 'Signature of the delivery; its procedure is not shown by the specification.',
            schema: { type: 'string' },
          },
        ],
        requestBody: { required: true, content: { 'application/json': { schema } } },
        // The receiver authenticates the sender by `z-signature`, whose procedure is not shown.
        security: [],
        responses: {
          '2XX': { description: 'Any 2xx acknowledges the delivery.' },
          default: { description: 'A non-2xx answer (or no answer within 10 seconds) is redelivered with backoff.' },
        },
      },
    };
  }
  return out;
}

/** The whole document, as the object written to `openapi.json`. */
export function buildOpenApiDocument(root: string): Record<string, unknown> {
  const index = new SourceIndex(root);
  const calls = readResourceCalls(index);
  const constants = constantsOf();
  const schemasFile = index.abs('src/schemas/index.ts');
  const webhooksFile = index.abs('src/webhooks/schemas.ts');
  const named = [...namedSchemasOf(schemaModule, schemasFile), ...namedSchemasOf(webhookSchemas, webhooksFile, 'Webhook')];
  const roots: RootSchema[] = ENDPOINTS.filter((e) => e.typing === 'full').map((e) => {
    const constant = constants.get(e);
    const source = constant ? responseExpression(index, constant) : undefined;
    return { schema: e.response as unknown as ZodLike, name: `${cap(operationIdOf(e))}Response`, ...(source ? { source } : {}) };
  });
  // `card.3ds.received` is typed by `card3dsReceivedDataSchema` (src/webhooks/schemas.ts).
  const webhookRoots = new Map<string, ZodLike>();
  for (const type of TYPED_EVENT_TYPES) {
    const constant = `${type.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase())}DataSchema`;
    const schema = (webhookSchemas as Record<string, unknown>)[constant];
    if (!isZod(schema)) throw new Error(`no ${constant} in src/webhooks/schemas.ts for the event ${type}`);
    webhookRoots.set(type, schema);
  }
  const envelope = webhookSchemas.envelopeSchema as unknown as ZodLike;
  roots.push({ schema: envelope, name: 'WebhookEnvelope' }, ...[...webhookRoots.values()].map((s) => ({ schema: s, name: 'WebhookData' })));
  const components = buildSchemaComponents(index, named, roots);
  refineSchema(components.schemas);

  const { codes: documented, statuses } = readDocumentedCodes(root);
  const paths: Record<string, Record<string, unknown>> = {};
  const ids = new Set<string>();
  for (const e of ENDPOINTS) {
    const key = `${e.method} ${e.path}`;
    const op = operation(e, calls.get(constants.get(e) ?? ''), documented[key] ?? [], statuses[key] ?? {}, components);
    if (ids.has(op.operationId)) throw new Error(`duplicate operationId ${op.operationId}`);
    ids.add(op.operationId);
    (paths[e.path] ??= {})[e.method.toLowerCase()] = op;
  }
  const responses = shareErrorResponses(paths as never);
  const tags = [...new Set(ENDPOINTS.map(tagOf))].map((name) => ({ name, description: tagDescription(name, calls, constants) }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Merchant Stablecoin Account API',
      version: SDK_VERSION,
      summary: 'Members, balances, withdrawals, QR payments, KYC, cards, remittances, the merchant prepaid account, reports and webhooks.',
      description: infoDescription(SANDBOX_DEFAULT_URL),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      {
        url: SANDBOX_DEFAULT_URL,
        description: "The SDK sandbox server (`merchant-stablecoin-sandbox`, default port; see the README's Install section).",
      },
      {
        url: '{base_url}',
        description: 'The service: production and sandbox are different hosts (not shown by the specification).',
        variables: { base_url: { default: SANDBOX_DEFAULT_URL, description: 'Base address of the environment called.' } },
      },
    ],
    tags,
    paths,
    webhooks: webhooks(components, webhookRoots, envelope, index),
    components: {
      schemas: { ...components.schemas, ...REQUEST_DECIMALS, ...refined(errorSchemas(index)) },
      responses,
      parameters: usedOnly(componentParameters(), JSON.stringify(paths), '#/components/parameters/'),
      headers: componentHeaders(),
      securitySchemes: securitySchemes(),
    },
    'x-api-version': 'v1',
    'x-signing': SIGNING,
    'x-rate-limit-buckets': { ...RATE_LIMIT_QUOTAS },
  };
}

/** The components a text references (an optional member header exists only once a descriptor has one). */
function usedOnly(all: Record<string, unknown>, text: string, prefix: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(all).filter(([name]) => text.includes(`"${prefix}${name}"`)));
}

function refined<T>(x: T): T {
  refineSchema(x);
  return x;
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The error codes each endpoint's spec section documents, and their statuses there (kept in the project by check:spec). */
function readDocumentedCodes(root: string): { codes: Record<string, string[]>; statuses: Record<string, Record<string, number>> } {
  const facts = JSON.parse(readFileSync(path.join(root, 'test/fixtures/spec-facts.json'), 'utf8')) as {
    endpointErrorCodes?: Record<string, string[]>;
    endpointErrorStatuses?: Record<string, Record<string, number>>;
  };
  return { codes: facts.endpointErrorCodes ?? {}, statuses: facts.endpointErrorStatuses ?? {} };
}

function tagDescription(tag: string, calls: Map<string, ResourceCall>, constants: Map<EndpointDescriptor, string>): string {
  // The doc of the resource class that serves most of the tag's endpoints.
  const counts = new Map<string, number>();
  for (const e of ENDPOINTS.filter((x) => tagOf(x) === tag)) {
    const doc = calls.get(constants.get(e) ?? '')?.classDoc;
    if (doc !== undefined) counts.set(doc, (counts.get(doc) ?? 0) + 1);
  }
  const best = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  return best ?? (tag === 'connect' ? 'The token exchange.' : tag);
}

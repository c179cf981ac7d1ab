/**
 * Builds the OpenAPI 3.1 document of the API from the SDK's own tables: the endpoint descriptors
 * (`src/facts/endpoints.ts`: method, path, scope, member scope, idempotency, funds, retries), the
 * error catalogue, the success statuses, the rate-limit buckets, the zod response schemas
 * (`src/schemas`), the webhook schemas (`src/webhooks`), and the parameter types of the resource
 * methods (`src/resources`: which body and query fields the SDK sends). Nothing outside the
 * repository is read. Flags are read generically, so a changed descriptor only needs a rerun of
 * `npm run openapi`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import * as endpointTable from '../../src/facts/endpoints.js';
import { ENDPOINTS, NAME_ONLY_ENDPOINTS } from '../../src/facts/endpoints.js';
import { bucketOf, RATE_LIMIT_QUOTAS, SUB_LIMIT_QUOTAS, subLimitOf, TOKEN_EXCHANGES_PER_MINUTE } from '../../src/facts/rate-limits.js';
import { SUCCESS_STATUSES } from '../../src/facts/success-statuses.js';
import * as schemaModule from '../../src/schemas/index.js';
import { TYPED_EVENT_TYPES } from '../../src/webhooks/event-types.js';
import * as webhookSchemas from '../../src/webhooks/schemas.js';
import { SDK_VERSION } from '../../src/version.js';
import { sdkCall } from '../gen-endpoints-doc.js';
import { buildSchemaComponents, namedSchemasOf, type RootSchema, type SchemaComponents } from './components.js';
import { errorResponses, errorSchemas, operationCodes, shareErrorResponses } from './errors.js';
import { refineSchema } from './refine.js';
import { applyResponseRules } from './response-rules.js';
import { REQUEST_DECIMALS } from './request-rules.js';
import { keyMode, parameters, requestBody } from './requests.js';
import { readResourceCalls, type ResourceCall } from './resource-calls.js';
import { isZod, type ZodLike } from './schema-docs.js';
import { SourceIndex } from './source-index.js';
import { componentHeaders, componentParameters, securitySchemes } from './shared-components.js';
import { infoDescription, SIGNING } from './text.js';
import { webhooks } from './webhooks.js';
import type { JsonSchema } from './type-schema.js';

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
const HEADER = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The descriptor constants of `src/facts/endpoints.ts`, by descriptor. */
function constantsOf(): Map<EndpointDescriptor, string> {
  const out = new Map<EndpointDescriptor, string>();
  for (const [name, value] of Object.entries(endpointTable)) {
    if (ENDPOINTS.includes(value as EndpointDescriptor)) out.set(value as EndpointDescriptor, name);
  }
  return out;
}

/** The expression a descriptor's response schema is written as (the 4th argument of `endpoint()`). */
function responseExpression(index: SourceIndex, constant: string): { file: string; expr: ts.Expression } | undefined {
  const file = index.abs('src/facts/endpoints.ts');
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
    { required: 'Idempotency key required.', optional: 'Idempotency key sent (not shown as required).', none: 'No idempotency key.' }[
      keyMode(e)
    ],
    e.journaled ? 'Moves funds.' : 'Moves no funds.',
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

function successResponses(e: EndpointDescriptor, components: SchemaComponents): Record<string, unknown> {
  const statuses = SUCCESS_STATUSES[`${e.method} ${e.path}`] ?? ['2XX'];
  const schema: JsonSchema =
    e.typing === 'full'
      ? components.ref(e.response as unknown as ZodLike)
      : { description: 'Not shown by the specification: any JSON value.' };
  const headers: Record<string, unknown> = { 'X-Request-Id': HEADER('XRequestId') };
  if (e.sendsKey) headers['X-Idempotent-Replay'] = HEADER('XIdempotentReplay');
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
      ...errorResponses(operationCodes(e, documented, member), statuses, e.sendsKey),
    },
    security: security(e, roles),
    'x-sdk-method': sdkCall(e.id),
    'x-shape': NAME_ONLY_ENDPOINTS.includes(e) ? 'name-only' : 'shown',
    'x-scope': e.scope ?? null,
    'x-member-scope': member,
    'x-idempotency': keyMode(e),
    'x-moves-funds': e.journaled,
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
  applyResponseRules(components.schemas);

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

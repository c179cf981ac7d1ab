/**
 * The error side of the document: the shared envelope with the `code` enum (the catalogue of
 * `src/facts/error-codes.ts`, extra fields from its `ErrorExtras` interface), the rate-limit shape
 * wrapped in `error`, and each operation's error responses grouped by status: the codes its spec
 * section documents (`test/fixtures/spec-facts.json`, which `npm run check:spec` derives from the
 * spec) plus the codes the common rules give every endpoint with its flags.
 */
import ts from 'typescript';
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import { ERROR_CODES, ERROR_TYPES, isKnownErrorCode } from '../../src/facts/error-codes.js';
import type { SourceIndex } from './source-index.js';
import { TypeSchemas, type JsonSchema, type ObjectSchema } from './type-schema.js';

const REF = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const HEADER = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** The shared schemas: `ErrorCode`, `ErrorType`, `Error`, `RateLimitedError`. */
export function errorSchemas(index: SourceIndex): Record<string, JsonSchema> {
  return {
    ErrorCode: {
      type: 'string',
      description:
        'The 50 public error codes of the catalogue. The code is the contract: branch on it, never on `message` (reworded at will) or on the HTTP status. Changing a code is a breaking change; a code not listed here is handled as `api_error` (retry once with the same idempotency key, then report the `request_id`).',
      enum: Object.keys(ERROR_CODES),
    },
    ErrorType: {
      type: 'string',
      description: 'Error type; each maps to one HTTP status (`invalid_request_error` 400 ... `upstream_timeout` 504).',
      'x-extensible-enum': Object.keys(ERROR_TYPES),
    },
    Error: envelopeSchema(index),
    RateLimitedError: {
      type: 'object',
      description:
        'The other shape the rate-limit answer is shown with: its fields wrapped in `error`. Clients accept both shapes; wait `retry_after` seconds (also the `Retry-After` header).',
      properties: {
        error: {
          type: 'object',
          properties: {
            code: { anyOf: [REF('ErrorCode'), { type: 'string' }] },
            message: { type: 'string' },
            retry_after: { type: 'integer', description: 'Seconds to wait.' },
          },
          required: ['code'],
        },
      },
      required: ['error'],
    },
  };
}

/** `{type, code, message, request_id}` plus every documented extra field, each saying whose it is. */
function envelopeSchema(index: SourceIndex): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    type: REF('ErrorType'),
    code: {
      description: 'Branch on this. One of `ErrorCode`; an unknown code is handled as `api_error`.',
      anyOf: [REF('ErrorCode'), { type: 'string' }],
    },
    message: { type: 'string', description: 'Human-readable; may be reworded at any time. Never branch on it.' },
    request_id: { type: 'string', description: 'Repeats the `X-Request-Id` header; quote it when reporting.' },
  };
  for (const [code, fields] of Object.entries(errorExtras(index))) {
    for (const [name, schema] of Object.entries(fields.properties)) {
      const prev = properties[name];
      const description = `${typeof schema['description'] === 'string' ? schema['description'] : ''} (\`${code}\`)`.trim();
      properties[name] = prev ? { ...prev, description: `${String(prev['description'])}; ${description}` } : { ...schema, description };
    }
  }
  return {
    type: 'object',
    description:
      'The error envelope. Every response carries the `X-Request-Id` header, and error bodies repeat it as `request_id`. A replayed failure (same idempotency key) carries `X-Idempotent-Replay: true`. Extra fields appear with the codes named in their descriptions.',
    properties,
    required: ['type', 'code', 'message', 'request_id'],
  };
}

/** The `ErrorExtras` interface of `src/facts/error-codes.ts`, one object schema per code. */
function errorExtras(index: SourceIndex): Record<string, ObjectSchema> {
  const file = index.abs('src/facts/error-codes.ts');
  const found = index.resolve(file, 'ErrorExtras');
  if (!found || !ts.isInterfaceDeclaration(found.node)) throw new Error('ErrorExtras not found in src/facts/error-codes.ts');
  const types = new TypeSchemas(index);
  const out: Record<string, ObjectSchema> = {};
  for (const m of found.node.members) {
    if (ts.isPropertySignature(m) && m.type) {
      const schema = types.of(found.file, m.type);
      if (schema['type'] === 'object') out[m.name.getText()] = schema as ObjectSchema;
    }
  }
  return out;
}

/**
 * Codes the SDK assumes on endpoints the spec names without shapes (their errors are not shown),
 * each a catalogue code whose meaning fits the call and which the sandbox answers there.
 */
const NAME_ONLY_ASSUMED: Readonly<Record<string, readonly string[]>> = {
  // "An identical record already exists": the same external_member_id twice.
  'POST /v1/members': ['duplicate_resource'],
  // "Action invalid in the object's current state": a withdrawal no longer `locked`.
  'POST /v1/withdrawals/{id}/confirm': ['state_invalid'],
  'POST /v1/withdrawals/{id}/fail': ['state_invalid'],
};

/** The codes an operation may answer, from its spec section and the common rules. */
export function operationCodes(e: EndpointDescriptor, documented: readonly string[], member: 'required' | 'optional' | 'none'): string[] {
  // Environments: "Credentials and tokens crossing environments are rejected with `environment_mismatch`".
  if (e.path === '/v1/connect/token') return [...new Set([...documented, 'environment_mismatch'])];
  const codes = new Set(documented);
  const add = (...c: string[]) => c.forEach((x) => codes.add(x));
  add('invalid_token', 'environment_mismatch', 'ip_not_allowed', 'merchant_disabled', 'rate_limited', 'api_error');
  // Retry rules: `upstream_error` (502) and `upstream_timeout` (504) are retried with the same key
  // wherever they occur, and "Write calls that time out (504) may have been executed".
  add('upstream_error', 'upstream_timeout');
  // `not_found`: "object nonexistent or not yours", on every path that names an object.
  if (e.path.includes('{')) add('not_found');
  add(...(NAME_ONLY_ASSUMED[`${e.method} ${e.path}`] ?? []));
  if (e.method !== 'GET' && e.method !== 'HEAD') add('invalid_signature', 'timestamp_out_of_range', 'nonce_reused');
  if (e.scope !== undefined) add('insufficient_scope');
  if (member === 'required') add('member_context_required', 'member_not_found');
  if (member === 'optional') add('member_not_found');
  // A key the service is not shown to require (the quotes) cannot be answered missing.
  if (e.sendsKey && e.keyNotRequired !== true) add('idempotency_key_required');
  if (e.sendsKey) add('idempotency_key_invalid', 'idempotency_key_reused', 'idempotency_in_progress');
  return [...codes];
}

/** Statuses at which a stored failure may be replayed under its key (the refusals before the key is read are not stored). */
const REPLAYABLE = (status: string): boolean => !['401', '403', '429'].includes(status);

/**
 * The error responses of an operation, by status: the status its spec section writes for a code
 * (`statuses`, e.g. the agreement's 503 `service_unavailable`), else the catalogue's; `default`
 * for any other error. Every one declares `X-Request-Id` (spec: "Every response carries the
 * `X-Request-Id` header"); those of an idempotent operation `X-Idempotent-Replay` too, since a
 * business failure is replayed under its key.
 */
export function errorResponses(
  codes: readonly string[],
  statuses: Readonly<Record<string, number>>,
  idempotent: boolean,
): Record<string, JsonSchema> {
  const byStatus = new Map<string, string[]>();
  // Catalogue order within a status, so equal sets compare equal (and share a component).
  const order = Object.keys(ERROR_CODES);
  const rank = (c: string) => (order.includes(c) ? order.indexOf(c) : order.length);
  for (const code of [...codes].sort((a, b) => rank(a) - rank(b))) {
    const given = statuses[code] ?? (isKnownErrorCode(code) ? ERROR_CODES[code].status : undefined);
    const status = given === undefined ? 'default' : String(given);
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const headers = (status: string): Record<string, unknown> => ({
    'X-Request-Id': HEADER('XRequestId'),
    ...(idempotent && REPLAYABLE(status) ? { 'X-Idempotent-Replay': HEADER('XIdempotentReplay') } : {}),
    ...(status === '429' ? { 'Retry-After': HEADER('RetryAfter') } : {}),
  });
  const out: Record<string, JsonSchema> = {};
  for (const status of [...byStatus.keys()].filter((s) => s !== 'default').sort()) {
    const list = byStatus.get(status)!;
    out[status] = {
      description: `${list.map((c) => `\`${c}\``).join(', ')}: branch on \`code\`.`,
      headers: headers(status),
      content: { 'application/json': { schema: status === '429' ? { anyOf: [REF('Error'), REF('RateLimitedError')] } : REF('Error') } },
      'x-error-codes': list,
    };
  }
  const others = byStatus.get('default') ?? [];
  out['default'] = {
    description: `${others.length ? `${others.map((c) => `\`${c}\``).join(', ')} (outside the catalogue), or any ` : 'Any '}other error: the envelope; an unknown code is handled as \`api_error\`.`,
    headers: headers('default'),
    content: { 'application/json': { schema: REF('Error') } },
    ...(others.length ? { 'x-error-codes': others } : {}),
  };
  return out;
}

const STATUS_NAMES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthorized',
  '403': 'Forbidden',
  '404': 'NotFound',
  '409': 'Conflict',
  '429': 'TooManyRequests',
  '500': 'InternalError',
  '503': 'ServiceUnavailable',
  '502': 'BadGateway',
  '504': 'GatewayTimeout',
  default: 'OtherError',
};

/**
 * Moves every error response that several operations share into `components.responses` (named by
 * its status and codes, so a name changes only when its codes do) and references it instead.
 */
export function shareErrorResponses(
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>,
): Record<string, unknown> {
  const uses = new Map<string, number>();
  const all = Object.values(paths).flatMap((item) => Object.values(item));
  const keyOf = (status: string, r: unknown) => `${status} ${JSON.stringify(r)}`;
  for (const op of all) {
    for (const [status, r] of Object.entries(op.responses)) {
      if (status.startsWith('2')) continue;
      const k = keyOf(status, r);
      uses.set(k, (uses.get(k) ?? 0) + 1);
    }
  }
  const shared: Record<string, unknown> = {};
  for (const op of all) {
    for (const [status, r] of Object.entries(op.responses)) {
      if (status.startsWith('2') || (uses.get(keyOf(status, r)) ?? 0) < 2) continue;
      const codes = ((r as { 'x-error-codes'?: string[] })['x-error-codes'] ?? []).map((c) =>
        c.replace(/(^|_)(\w)/g, (_, __, ch: string) => ch.toUpperCase()),
      );
      const name = [STATUS_NAMES[status] ?? `Status${status}`, ...codes].join('_');
      shared[name] = r;
      op.responses[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  return Object.fromEntries(
    Object.keys(shared)
      .sort()
      .map((k) => [k, shared[k]]),
  );
}

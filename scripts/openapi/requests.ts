/**
 * The request side of an operation: its path, header and query parameters, and its body, from the
 * resource method's parameter types with the spec's limits applied (`request-rules.ts`).
 */
import type { EndpointDescriptor } from '../../src/facts/endpoint.js';
import { applyRule, REQUEST_RULES } from './request-rules.js';
import type { ResourceCall } from './resource-calls.js';
import type { JsonSchema, ObjectSchema } from './type-schema.js';

const PARAM = (name: string) => ({ $ref: `#/components/parameters/${name}` });
const isWrite = (e: EndpointDescriptor): boolean => e.method !== 'GET' && e.method !== 'HEAD';
const isTokenExchange = (e: EndpointDescriptor): boolean => e.path === '/v1/connect/token';

/**
 * Whether an operation takes `x-idempotency-key`: `required` where the SDK sends one, `optional`
 * where it sends one the spec does not show required (`keyNotRequired`: the quotes), else `none`.
 */
export function keyMode(e: EndpointDescriptor): 'required' | 'optional' | 'none' {
  if (!e.sendsKey) return 'none';
  return e.keyNotRequired === true ? 'optional' : 'required';
}

/** The parameters of an operation (`member`: its member scope). */
export function parameters(e: EndpointDescriptor, call: ResourceCall | undefined, member: string): unknown[] {
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
  if (keyMode(e) === 'required') out.push(PARAM('XIdempotencyKey'));
  if (keyMode(e) === 'optional') out.push(PARAM('XIdempotencyKeyOptional'));
  if (isTokenExchange(e)) out.push(PARAM('XClientId'), PARAM('XApiKey'));
  for (const [name, h] of Object.entries(REQUEST_RULES[`${e.method} ${e.path}`]?.headers ?? {})) {
    out.push({ name, in: 'header', required: false, description: h.description, schema: { type: 'string' } });
  }
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

/** The request body of a write (none on the token exchange). */
export function requestBody(e: EndpointDescriptor, call: ResourceCall | undefined): unknown {
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

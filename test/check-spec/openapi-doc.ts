/**
 * The OpenAPI document as the fact-by-fact cross-check reads it (`openapi.check.ts`): operations by
 * route, references resolved, a field found through `anyOf`/`allOf`, and a JSON Schema validator
 * (ajv, 2020-12) for the facts that are behaviour (a value the spec refuses, one it accepts).
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document read as JSON of many shapes, field by field
export type Json = Record<string, any>;

/** The document checked: `openapi.json` of the repository, or `OPENAPI_DOCUMENT` (to measure another version). */
const PATH = process.env['OPENAPI_DOCUMENT'] ?? new URL('../../openapi.json', import.meta.url);
export const DOC = JSON.parse(readFileSync(PATH, 'utf8')) as Json;

const ID = 'https://merchant-stablecoin.invalid/openapi.json';
// Formats are named, not checked here: a fact about a format reads the keyword itself.
const ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false, formats: { 'date-time': true } });
ajv.addSchema({ ...DOC, $id: ID });
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** Whether `value` passes `schema` (a node of the document, its references resolved within it). */
export function accepts(schema: Json | undefined, value: unknown): boolean {
  if (schema === undefined) return false;
  const text = JSON.stringify(schema).replaceAll('"#/', `"${ID}#/`);
  const validate = compiled.get(text) ?? ajv.compile(JSON.parse(text) as Json);
  compiled.set(text, validate);
  return validate(value) === true;
}

/** A `$ref` resolved (repeatedly). */
export function deref(node: Json | undefined): Json | undefined {
  let at = node;
  for (let i = 0; at && typeof at['$ref'] === 'string' && i < 10; i++) {
    at = at['$ref']
      .slice(2)
      .split('/')
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((o: Json | undefined, k) => o?.[k] as Json | undefined, DOC);
  }
  return at;
}

/** The operation of `METHOD /path`. */
export function operation(route: string): Json | undefined {
  const [method, path] = route.split(' ') as [string, string];
  return DOC['paths']?.[path]?.[method.toLowerCase()] as Json | undefined;
}

/** An operation's parameters, resolved. */
export function parameters(op: Json | undefined): Json[] {
  return ((op?.['parameters'] as Json[] | undefined) ?? []).map((p) => deref(p)!);
}

/** An operation's responses, resolved, by status. */
export function responses(op: Json | undefined): Array<[string, Json]> {
  return Object.entries((op?.['responses'] as Json | undefined) ?? {}).map(([s, r]) => [s, deref(r as Json)!]);
}

/** The success responses (2xx) of an operation. */
export const successes = (op: Json | undefined): Array<[string, Json]> => responses(op).filter(([s]) => s.startsWith('2'));

/** The JSON schema of a response or request body. */
export const jsonSchema = (holder: Json | undefined): Json | undefined =>
  holder?.['content']?.['application/json']?.['schema'] as Json | undefined;

/** The object branches of a schema (itself, or those of `anyOf`/`oneOf`/`allOf`), resolved. */
function branches(schema: Json | undefined): Json[] {
  const s = deref(schema);
  if (!s) return [];
  const subs = [...((s['anyOf'] as Json[]) ?? []), ...((s['oneOf'] as Json[]) ?? []), ...((s['allOf'] as Json[]) ?? [])];
  return [s, ...subs.flatMap((b) => branches(b))];
}

/** A field of an object schema by a dotted path (`binding.id`; `[]` steps into array items). */
export function field(schema: Json | undefined, path: string): Json | undefined {
  let at: Json | undefined = schema;
  for (const step of path.split('.')) {
    if (step === '[]') {
      at = branches(at).find((b) => b['items'])?.['items'] as Json | undefined;
      continue;
    }
    at = branches(at).find((b) => b['properties']?.[step])?.['properties']?.[step] as Json | undefined;
    if (!at) return undefined;
  }
  return at;
}

/** Whether a schema (or one of its branches) is `required` to carry `name` at its level. */
export function requires(schema: Json | undefined, name: string): boolean {
  return branches(schema).some((b) => ((b['required'] as string[] | undefined) ?? []).includes(name));
}

/** The types a field's schema admits, through references and branches. */
export function types(schema: Json | undefined): Set<string> {
  const out = new Set<string>();
  for (const b of branches(schema)) {
    const t = b['type'];
    for (const x of Array.isArray(t) ? t : t === undefined ? [] : [t]) out.add(String(x));
    if (typeof b['format'] === 'string') out.add(`format:${String(b['format'])}`);
  }
  return out;
}

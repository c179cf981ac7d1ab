/**
 * `components.schemas` from the SDK's zod schemas, converted by zod 4's own `toJSONSchema` (the
 * schemas are `zod/mini` objects, some on zod's compiled object path: both convert, since they
 * share zod's core). Every exported schema that a response or a webhook reaches becomes a named
 * component (`withdrawalOrderSchema` is `WithdrawalOrder`, `decimalString` is `DecimalString`), so
 * generated clients get named types; field docs and open-enum values come from the sources
 * (`schema-docs.ts`).
 */
import type ts from 'typescript';
import { registry, toJSONSchema } from 'zod/v4/core';
import { isZod, SchemaDocReader, type SchemaDocs, type ZodLike } from './schema-docs.js';
import type { SourceIndex } from './source-index.js';
import type { JsonSchema } from './type-schema.js';

/** An exported schema constant that may become a component. */
export interface NamedSchema {
  readonly name: string;
  readonly file: string;
  readonly constant: string;
  readonly schema: ZodLike;
}

/** A schema that must be converted (a response or a webhook payload), with a fallback name. */
export interface RootSchema {
  readonly schema: ZodLike;
  /** Name used when the schema is not one of the named constants. */
  readonly name: string;
  /** The expression that builds it (for its docs), when it is not a named constant. */
  readonly source?: { readonly file: string; readonly expr: ts.Expression };
}

/** The converted components and the reference of each root. */
export interface SchemaComponents {
  readonly schemas: Record<string, JsonSchema>;
  /** `{ $ref }` of a root schema. */
  ref(schema: ZodLike): JsonSchema;
}

const SAFE_MIN = -9007199254740991;
const SAFE_MAX = 9007199254740991;

/** `withdrawalOrderSchema` as `WithdrawalOrder`, `decimalString` as `DecimalString`. */
function componentName(constant: string, prefix = ''): string {
  const base = constant.replace(/Schema$/, '');
  const pascal = base.charAt(0).toUpperCase() + base.slice(1);
  return pascal.startsWith(prefix) ? pascal : `${prefix}${pascal}`;
}

/**
 * The exported zod constants of a module that can stand as components: objects and unions
 * (`xSchema`), and string schemas carrying a check (a pattern such as `decimalString`).
 */
export function namedSchemasOf(module: Record<string, unknown>, file: string, prefix = ''): NamedSchema[] {
  const out: NamedSchema[] = [];
  for (const [constant, value] of Object.entries(module)) {
    if (!isZod(value)) continue;
    const def = value._zod.def;
    const shaped = def.type === 'object' || def.type === 'union';
    const checkedString = def.type === 'string' && Array.isArray(def['checks']) && def['checks'].length > 0;
    if ((shaped && constant.endsWith('Schema')) || checkedString)
      out.push({ name: componentName(constant, prefix), file, constant, schema: value });
  }
  return out;
}

/** Every zod schema reachable from `root` (shapes, wrappers, elements, options, pipes). */
function reachable(root: ZodLike, seen = new Set<ZodLike>()): Set<ZodLike> {
  if (seen.has(root)) return seen;
  seen.add(root);
  const def = root._zod.def;
  const children: unknown[] = [def['innerType'], def['element'], def['in'], def['out'], def['catchall']];
  if (def['shape'] && typeof def['shape'] === 'object') children.push(...Object.values(def['shape']));
  if (Array.isArray(def['options'])) children.push(...(def['options'] as unknown[]));
  for (const c of children) if (isZod(c)) reachable(c, seen);
  return seen;
}

/** Converts the roots and the named schemas they reach into components. */
export function buildSchemaComponents(index: SourceIndex, named: readonly NamedSchema[], roots: readonly RootSchema[]): SchemaComponents {
  const byObject = new Map(named.map((n) => [n.schema, n]));
  const used = new Map<ZodLike, string>();
  const reader = new SchemaDocReader(index);
  for (const root of roots) {
    for (const s of reachable(root.schema)) {
      const n = byObject.get(s);
      if (n && !used.has(s)) {
        used.set(s, n.name);
        reader.addConstant(n.file, n.constant, s);
      }
    }
    if (!used.has(root.schema)) {
      used.set(root.schema, root.name);
      if (root.source) reader.addExpression(root.source.file, root.source.expr, root.schema);
    }
  }
  const names = [...used.values()];
  if (new Set(names).size !== names.length) throw new Error(`two component schemas share a name: ${names.join(', ')}`);
  const reg = registry<{ id: string }>();
  for (const [schema, id] of used) reg.add(schema as never, { id });
  const converted = toJSONSchema(reg, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id: string) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, JsonSchema> };
  // A tree of its own: zod may share one JSON object between places, and docs differ per place.
  const schemas = JSON.parse(JSON.stringify(converted.schemas)) as Record<string, JsonSchema>;
  for (const [schema, id] of used) {
    const json = schemas[id];
    if (!json) continue;
    delete json['$schema'];
    delete json['$id'];
    applyDocs(schema, json, reader.docs, true);
    stripSafeIntegerBounds(json);
  }
  const sorted = Object.fromEntries(
    Object.keys(schemas)
      .sort()
      .map((k) => [k, schemas[k]!]),
  );
  return {
    schemas: sorted,
    ref(schema) {
      const id = used.get(schema);
      if (id === undefined) throw new Error('schema was not given as a root');
      return { $ref: `#/components/schemas/${id}` };
    },
  };
}

/** Writes field docs and open-enum values into `json`, walking it beside the schema that made it. */
function applyDocs(rt: ZodLike, json: JsonSchema, docs: SchemaDocs, root = false): void {
  if (!root && typeof json['$ref'] === 'string') return;
  const values = docs.enums.get(rt);
  if (values) json['x-extensible-enum'] = [...values];
  const def = rt._zod.def;
  const anyOf = Array.isArray(json['anyOf']) ? (json['anyOf'] as JsonSchema[]) : undefined;
  switch (def.type) {
    case 'object': {
      const props = (json['properties'] ?? {}) as Record<string, JsonSchema>;
      const fields = docs.fields.get(rt);
      for (const [key, child] of Object.entries(def['shape'] as Record<string, unknown>)) {
        const p = props[key];
        if (!p) continue;
        const doc = fields?.get(key);
        if (doc !== undefined) p['description'] = doc;
        if (isZod(child)) applyDocs(child, p, docs);
      }
      return;
    }
    case 'optional':
    case 'readonly':
      if (isZod(def['innerType'])) applyDocs(def['innerType'], json, docs);
      return;
    case 'nullable': {
      const branch = anyOf?.find((b) => b['type'] !== 'null');
      if (branch && isZod(def['innerType'])) applyDocs(def['innerType'], branch, docs);
      return;
    }
    case 'array':
      if (isZod(def['element']) && json['items']) applyDocs(def['element'], json['items'] as JsonSchema, docs);
      return;
    case 'union':
      (def['options'] as unknown[]).forEach((o, i) => {
        const branch = anyOf?.[i];
        if (branch && isZod(o)) applyDocs(o, branch, docs);
      });
      return;
    default:
      return;
  }
}

/** `z.int()` bounds itself to the safe integers; a document reader only sees noise in them. */
function stripSafeIntegerBounds(json: unknown): void {
  if (Array.isArray(json)) {
    for (const x of json) stripSafeIntegerBounds(x);
    return;
  }
  if (typeof json !== 'object' || json === null) return;
  const o = json as JsonSchema;
  if (o['minimum'] === SAFE_MIN) delete o['minimum'];
  if (o['maximum'] === SAFE_MAX) delete o['maximum'];
  for (const v of Object.values(o)) stripSafeIntegerBounds(v);
}

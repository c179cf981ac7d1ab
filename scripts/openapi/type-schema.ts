/**
 * JSON Schema of a parameter type declared in the SDK's sources (a method's params interface),
 * read from the syntax tree: what the SDK sends is what the document states.
 *
 * Mapping: `AmountInput` (a decimal string or a Decimal, always sent as a string) is the
 * `UnsignedDecimalString` component; `OpenEnum<'a' | 'b'>` and a union with `(string & {})` are strings
 * whose known values ride in `x-extensible-enum`; a union of string literals is an `enum`;
 * `Readonly<Record<string, unknown>>` and an index signature mean other keys are sent as given
 * (`additionalProperties: true`). A member whose TSDoc says "Not sent." is a client-side option
 * and is left out.
 */
import ts from 'typescript';
import { docOf, type SourceIndex } from './source-index.js';

/** A JSON Schema object (OpenAPI 3.1 uses JSON Schema 2020-12). */
export type JsonSchema = { [key: string]: unknown };

/** Reference to the request-amount schema (no sign; `request-rules.ts` narrows it to positive where the spec says so). */
const DECIMAL_REF: JsonSchema = { $ref: '#/components/schemas/UnsignedDecimalString' };

/** An object schema read from an interface or a type literal, members in declaration order. */
export interface ObjectSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
}

/** Open string enum: any string, the known values listed. */
function openEnumSchema(values: readonly string[], description?: string): JsonSchema {
  return {
    type: 'string',
    ...(description !== undefined ? { description } : {}),
    'x-extensible-enum': [...values],
  };
}

function literalValues(types: readonly ts.TypeNode[]): string[] | undefined {
  const out: string[] = [];
  for (const t of types) {
    if (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal)) out.push(t.literal.text);
    else return undefined;
  }
  return out;
}

/** `(string & {})`: the open end of an open enum. */
function isOpenEnd(t: ts.TypeNode): boolean {
  const inner = ts.isParenthesizedTypeNode(t) ? t.type : t;
  return ts.isIntersectionTypeNode(inner) && inner.types.some((x) => x.kind === ts.SyntaxKind.StringKeyword);
}

/** Converts type nodes of one file into JSON Schema. */
export class TypeSchemas {
  readonly #index: SourceIndex;

  constructor(index: SourceIndex) {
    this.#index = index;
  }

  /** The schema of a type node used in `file`. */
  of(file: string, node: ts.TypeNode): JsonSchema {
    switch (node.kind) {
      case ts.SyntaxKind.StringKeyword:
        return { type: 'string' };
      case ts.SyntaxKind.NumberKeyword:
        return { type: 'number' };
      case ts.SyntaxKind.BooleanKeyword:
        return { type: 'boolean' };
      case ts.SyntaxKind.UnknownKeyword:
      case ts.SyntaxKind.AnyKeyword:
        return {};
      default:
        break;
    }
    if (ts.isParenthesizedTypeNode(node)) return this.of(file, node.type);
    if (ts.isLiteralTypeNode(node) && ts.isStringLiteral(node.literal)) return { type: 'string', const: node.literal.text };
    if (ts.isUnionTypeNode(node)) return this.#union(file, node);
    if (ts.isArrayTypeNode(node)) return { type: 'array', items: this.of(file, node.elementType) };
    if (ts.isTypeLiteralNode(node)) return this.members(file, node.members);
    if (ts.isIntersectionTypeNode(node)) return mergeObjects(node.types.map((t) => this.of(file, t)));
    if (ts.isTypeReferenceNode(node)) return this.#reference(file, node);
    return {};
  }

  /** The object schema of an interface's or a type literal's members. */
  members(file: string, members: ts.NodeArray<ts.TypeElement>): ObjectSchema {
    const out: ObjectSchema = { type: 'object', properties: {} };
    const required: string[] = [];
    for (const m of members) {
      if (ts.isIndexSignatureDeclaration(m)) {
        out.additionalProperties = true;
        continue;
      }
      if (!ts.isPropertySignature(m) || !m.type) continue;
      const name = m.name.getText();
      const doc = docOf(m);
      if (doc !== undefined && /\bNot sent\./.test(doc)) continue;
      const schema = this.of(file, m.type);
      out.properties[name] = doc === undefined ? schema : withDescription(schema, doc);
      if (!m.questionToken) required.push(name);
    }
    if (required.length > 0) out.required = required;
    return out;
  }

  #union(file: string, node: ts.UnionTypeNode): JsonSchema {
    const types = node.types.filter((t) => t.kind !== ts.SyntaxKind.UndefinedKeyword);
    const open = types.some(isOpenEnd);
    const closed = types.filter((t) => !isOpenEnd(t));
    const values = literalValues(closed);
    if (values !== undefined) return open ? openEnumSchema(values) : { type: 'string', enum: values };
    if (types.length === 1) return this.of(file, types[0]!);
    return { anyOf: types.map((t) => this.of(file, t)) };
  }

  #reference(file: string, node: ts.TypeReferenceNode): JsonSchema {
    const name = ts.isIdentifier(node.typeName) ? node.typeName.text : node.typeName.right.text;
    const args = node.typeArguments ?? [];
    if (name === 'AmountInput') return { ...DECIMAL_REF };
    if (name === 'Readonly' && args[0]) return this.of(file, args[0]);
    if ((name === 'Array' || name === 'ReadonlyArray') && args[0]) return { type: 'array', items: this.of(file, args[0]) };
    if (name === 'Record') return { type: 'object', additionalProperties: args[1] ? this.of(file, args[1]) : true };
    if (name === 'OpenEnum' && args[0]) {
      const inner = args[0];
      const values = ts.isUnionTypeNode(inner) ? literalValues(inner.types) : literalValues([inner]);
      return openEnumSchema(values ?? []);
    }
    const found = this.#index.resolveEntity(file, node.typeName);
    if (!found) return {};
    if (ts.isInterfaceDeclaration(found.node)) return this.members(found.file, found.node.members);
    if (ts.isTypeAliasDeclaration(found.node)) return this.of(found.file, found.node.type);
    return {};
  }
}

function withDescription(schema: JsonSchema, description: string): JsonSchema {
  return { ...schema, description };
}

/** The members of several object schemas as one (an intersection of parameter types). */
function mergeObjects(parts: JsonSchema[]): JsonSchema {
  const out: ObjectSchema = { type: 'object', properties: {} };
  const required: string[] = [];
  for (const p of parts) {
    if (p['type'] !== 'object') continue;
    Object.assign(out.properties, (p as ObjectSchema).properties ?? {});
    required.push(...((p as ObjectSchema).required ?? []));
    if ((p as ObjectSchema).additionalProperties === true) out.additionalProperties = true;
  }
  if (required.length > 0) out.required = required;
  return out;
}

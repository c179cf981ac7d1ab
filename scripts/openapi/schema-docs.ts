/**
 * The TSDoc of the zod schemas' fields and the known values of their open enums, which the
 * schema objects do not carry at run time (an `openEnum([...])` is a plain string check, a field's
 * comment is only in the source). Each schema constant's initializer is walked beside the schema
 * object it built, so a field's doc lands on the right object even where one shape is reused.
 *
 * Forms understood: `looseObject({...})`, `z.looseObject({...})`, `z.object({...})`,
 * `z.extend(base, {...})`, spreads of `pageShape(item)` and `base.shape`, `z.optional`,
 * `z.nullable`, `z.array`, `z.union([...])`, `openEnum(VALUES)`, and a call of a local function
 * with a single `return` (`pageSchema(item)`). Anything else is left undocumented, never wrong.
 */
import ts from 'typescript';
import { docOf, type SourceIndex } from './source-index.js';

/** A zod schema at run time, as far as the walk needs it (zod 4 classic and mini share `_zod.def`). */
export interface ZodLike {
  readonly _zod: { readonly def: Record<string, unknown> & { readonly type: string } };
}

/** Field docs of an object schema. */
export type FieldDocs = Map<string, string>;

/** What the sources say about the schema objects. */
export interface SchemaDocs {
  /** Docs of an object schema's fields, by field. */
  readonly fields: Map<ZodLike, FieldDocs>;
  /** Known values of an open enum's string schema. */
  readonly enums: Map<ZodLike, readonly string[]>;
}

interface Bound {
  readonly file: string;
  readonly expr: ts.Expression;
  readonly env: Env;
}
type Env = ReadonlyMap<string, Bound>;

const OBJECT_BUILDERS = new Set(['looseObject', 'z.looseObject', 'z.object', 'z.strictObject']);

/** Whether a value is a zod schema. */
export function isZod(value: unknown): value is ZodLike {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

function unwrapExpr(e: ts.Expression): ts.Expression {
  let x = e;
  while (ts.isParenthesizedExpression(x) || ts.isAsExpression(x) || ts.isSatisfiesExpression(x)) x = x.expression;
  return x;
}

/** Reads the docs of schemas whose constants are named, walking what each built. */
export class SchemaDocReader {
  readonly #index: SourceIndex;
  readonly docs: SchemaDocs = { fields: new Map(), enums: new Map() };
  readonly #visited = new Set<ZodLike>();

  constructor(index: SourceIndex) {
    this.#index = index;
  }

  /** Documents `schema`, the value of the constant `name` declared in `file`. */
  addConstant(file: string, name: string, schema: ZodLike): void {
    const found = this.#index.resolve(file, name);
    if (found && ts.isVariableDeclaration(found.node) && found.node.initializer) {
      this.#pair({ file: found.file, expr: found.node.initializer, env: new Map() }, schema);
    }
  }

  /** Documents `schema`, built by the expression `expr` of `file` (an argument of a descriptor). */
  addExpression(file: string, expr: ts.Expression, schema: ZodLike): void {
    this.#pair({ file, expr, env: new Map() }, schema);
  }

  #pair(b: Bound, rt: ZodLike): void {
    const expr = unwrapExpr(b.expr);
    if (ts.isIdentifier(expr) || ts.isPropertyAccessExpression(expr)) {
      const target = this.#follow(b.file, expr, b.env);
      if (target) this.#pair(target, rt);
      return;
    }
    if (!ts.isCallExpression(expr)) return;
    const callee = expr.expression.getText();
    const def = rt._zod.def;
    if (OBJECT_BUILDERS.has(callee) || callee === 'z.extend') {
      this.#object(b, expr, rt);
    } else if (callee === 'openEnum') {
      const values = this.#values(b.file, expr.arguments[0], b.env);
      if (values) this.docs.enums.set(rt, values);
    } else if ((callee === 'z.optional' || callee === 'z.nullable') && isZod(def['innerType'])) {
      this.#arg(b, expr, 0, def['innerType']);
    } else if (callee === 'z.array' && isZod(def['element'])) {
      this.#arg(b, expr, 0, def['element']);
    } else if (callee === 'z.union' && Array.isArray(def['options'])) {
      const list = expr.arguments[0] && unwrapExpr(expr.arguments[0]);
      if (list && ts.isArrayLiteralExpression(list)) {
        list.elements.forEach((el, i) => {
          const option: unknown = (def['options'] as unknown[])[i];
          if (isZod(option)) this.#pair({ ...b, expr: el }, option);
        });
      }
    } else {
      this.#callLocal(b, expr, rt);
    }
  }

  #arg(b: Bound, call: ts.CallExpression, i: number, rt: ZodLike): void {
    const a = call.arguments[i];
    if (a) this.#pair({ ...b, expr: a }, rt);
  }

  /** A local function with one `return`: its body, its parameters bound to the arguments. */
  #callLocal(b: Bound, call: ts.CallExpression, rt: ZodLike): void {
    if (!ts.isIdentifier(call.expression)) return;
    const fn = this.#index.resolve(b.file, call.expression.text);
    if (!fn || !ts.isFunctionDeclaration(fn.node) || !fn.node.body) return;
    const ret = fn.node.body.statements.find(ts.isReturnStatement);
    if (!ret?.expression) return;
    const env = new Map<string, Bound>();
    fn.node.parameters.forEach((p, i) => {
      const a = call.arguments[i];
      if (ts.isIdentifier(p.name) && a) env.set(p.name.text, { ...b, expr: a });
    });
    this.#pair({ file: fn.file, expr: ret.expression, env }, rt);
  }

  #object(b: Bound, call: ts.CallExpression, rt: ZodLike): void {
    const shape = rt._zod.def['shape'] as Record<string, unknown> | undefined;
    if (!shape || this.#visited.has(rt)) return;
    this.#visited.add(rt);
    const fields: FieldDocs = this.docs.fields.get(rt) ?? new Map();
    this.docs.fields.set(rt, fields);
    const literals: Bound[] = [];
    if (call.expression.getText() === 'z.extend' && call.arguments[0]) this.#collectFrom({ ...b, expr: call.arguments[0] }, literals);
    const last = call.arguments[call.arguments.length - 1];
    if (last) this.#collectFrom({ ...b, expr: last }, literals);
    for (const lit of literals) this.#fields(lit, shape, fields);
  }

  /** The object literals that make up a shape argument: the literal itself, or a base's. */
  #collectFrom(b: Bound, out: Bound[], depth = 0): void {
    if (depth > 8) return;
    const expr = unwrapExpr(b.expr);
    if (ts.isObjectLiteralExpression(expr)) {
      out.push({ ...b, expr });
      return;
    }
    if (ts.isIdentifier(expr) || ts.isPropertyAccessExpression(expr)) {
      // `base.shape` spreads the fields of `base`.
      const base = ts.isPropertyAccessExpression(expr) && expr.name.text === 'shape' ? expr.expression : expr;
      const target = this.#follow(b.file, base, b.env);
      if (target) this.#collectFrom(target, out, depth + 1);
      return;
    }
    if (!ts.isCallExpression(expr)) return;
    const callee = expr.expression.getText();
    if (OBJECT_BUILDERS.has(callee) || callee === 'z.extend') {
      if (callee === 'z.extend' && expr.arguments[0]) this.#collectFrom({ ...b, expr: expr.arguments[0] }, out, depth + 1);
      const last = expr.arguments[expr.arguments.length - 1];
      if (last) this.#collectFrom({ ...b, expr: last }, out, depth + 1);
      return;
    }
    if (ts.isIdentifier(expr.expression)) {
      const fn = this.#index.resolve(b.file, expr.expression.text);
      if (!fn || !ts.isFunctionDeclaration(fn.node) || !fn.node.body) return;
      const ret = fn.node.body.statements.find(ts.isReturnStatement);
      if (!ret?.expression) return;
      const env = new Map<string, Bound>();
      fn.node.parameters.forEach((p, i) => {
        const a = expr.arguments[i];
        if (ts.isIdentifier(p.name) && a) env.set(p.name.text, { ...b, expr: a });
      });
      this.#collectFrom({ file: fn.file, expr: ret.expression, env }, out, depth + 1);
    }
  }

  #fields(lit: Bound, shape: Record<string, unknown>, fields: FieldDocs): void {
    for (const p of (lit.expr as ts.ObjectLiteralExpression).properties) {
      if (ts.isSpreadAssignment(p)) {
        const inner: Bound[] = [];
        this.#collectFrom({ ...lit, expr: p.expression }, inner);
        for (const i of inner) this.#fields(i, shape, fields);
        continue;
      }
      if (!ts.isPropertyAssignment(p) || !p.name || ts.isComputedPropertyName(p.name)) continue;
      const key = p.name.getText().replace(/^['"]|['"]$/g, '');
      const doc = docOf(p);
      if (doc !== undefined) fields.set(key, doc);
      const child = shape[key];
      if (isZod(child)) this.#pair({ ...lit, expr: p.initializer }, child);
    }
  }

  /** An identifier (or `ns.name`): a bound parameter, or a constant's initializer. */
  #follow(file: string, expr: ts.Expression, env: Env): Bound | undefined {
    if (ts.isIdentifier(expr)) {
      const bound = env.get(expr.text);
      if (bound) return bound;
    }
    const found = this.#index.resolveEntity(file, expr);
    if (found && ts.isVariableDeclaration(found.node) && found.node.initializer) {
      return { file: found.file, expr: found.node.initializer, env: new Map() };
    }
    return undefined;
  }

  /** The strings of an array literal (`['a', 'b'] as const`), directly or through a constant. */
  #values(file: string, arg: ts.Expression | undefined, env: Env): string[] | undefined {
    if (!arg) return undefined;
    let b: Bound | undefined = { file, expr: arg, env };
    for (let i = 0; b && i < 5; i++) {
      const e = unwrapExpr(b.expr);
      if (ts.isArrayLiteralExpression(e)) {
        const out = e.elements.map((el) => (ts.isStringLiteral(el) ? el.text : undefined));
        return out.every((v): v is string => v !== undefined) ? out : undefined;
      }
      b = ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) ? this.#follow(b.file, e, b.env) : undefined;
    }
    return undefined;
  }
}

/**
 * What the SDK's resource methods send, read from `src/resources`: for each endpoint descriptor a
 * method hands to the pipeline (`this.#api.send(WITHDRAWALS_CREATE, { body, options })`), the
 * method's TSDoc summary, the doc of its path id, and the type of the parameter it turns into the
 * body (writes) or the query (reads). The endpoint table says what an endpoint is; the resource
 * methods say which fields the SDK sends.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { docOf, paramDocOf, type SourceIndex } from './source-index.js';
import { TypeSchemas, type JsonSchema, type ObjectSchema } from './type-schema.js';

/** What one endpoint's resource method sends. */
export interface ResourceCall {
  /** Name of the descriptor constant in `src/facts/endpoints.ts`. */
  readonly constant: string;
  /** First sentence of the TSDoc of the method users call for it. */
  readonly summary: string | undefined;
  /** Doc of the path id parameter (`@param cardId - ...`). */
  readonly pathParamDoc: string | undefined;
  /** `empty`: the method always sends `{}`; a schema: the fields it sends; undefined: no body. */
  readonly body: 'empty' | ObjectSchema | undefined;
  /** Query parameters (reads), or undefined. */
  readonly query: ObjectSchema | undefined;
  /** Whether the query is a keyset list query (`ListParams`: `limit`, `cursor`). */
  readonly listQuery: boolean;
  /** TSDoc of the resource class (the namespace). */
  readonly classDoc: string | undefined;
}

interface Sender {
  readonly file: string;
  readonly cls: ts.ClassDeclaration;
  readonly method: ts.MethodDeclaration;
  readonly call: ts.CallExpression;
  readonly constant: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? filesUnder(path.join(dir, d.name)) : d.name.endsWith('.ts') ? [path.join(dir, d.name)] : [],
  );
}

/** `this.#api.<anything>(...)`. */
function isPipelineCall(node: ts.Node): node is ts.CallExpression {
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return false;
  const target = node.expression.expression;
  return ts.isPropertyAccessExpression(target) && target.expression.kind === ts.SyntaxKind.ThisKeyword && target.name.text === '#api';
}

function findCall(node: ts.Node, test: (n: ts.Node) => boolean): ts.CallExpression | undefined {
  let hit: ts.CallExpression | undefined;
  const visit = (n: ts.Node): void => {
    if (hit) return;
    if (test(n)) hit = n as ts.CallExpression;
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return hit;
}

/** First sentence of a TSDoc text, its route in backticks removed, cut at the first `;` or `:`. */
function summaryOf(doc: string | undefined): string | undefined {
  if (doc === undefined) return undefined;
  const first = (doc.split('\n\n')[0] ?? '').split(/(?<=\.)\s+(?=[A-Z])/)[0] ?? '';
  let s = first
    .replace(/\s*\(`(?:GET|POST|PATCH|PUT|DELETE) [^`]+`\)/g, '')
    .replace(/`(?:GET|POST|PATCH|PUT|DELETE) [^`]+`/g, 'this endpoint')
    .trim();
  const cut = s.search(/[;:]/);
  if (cut >= 15) s = s.slice(0, cut);
  return s.replace(/\.$/, '').trim();
}

/** Reads every resource method that hands a descriptor of `src/facts/endpoints.ts` to the pipeline. */
export function readResourceCalls(index: SourceIndex): Map<string, ResourceCall> {
  const endpointsFile = index.abs('src/facts/endpoints.ts');
  const types = new TypeSchemas(index);
  const senders: Sender[] = [];
  for (const file of filesUnder(index.abs('src/resources'))) {
    const sf = index.sourceFile(file);
    for (const cls of sf.statements.filter(ts.isClassDeclaration)) {
      for (const method of cls.members.filter(ts.isMethodDeclaration)) {
        const call = method.body && findCall(method.body, isPipelineCall);
        const arg = call?.arguments[0];
        if (!call || !arg) continue;
        const found = index.resolveEntity(file, arg);
        if (found?.file !== endpointsFile || !ts.isVariableDeclaration(found.node) || !ts.isIdentifier(found.node.name)) continue;
        senders.push({ file, cls, method, call, constant: found.node.name.text });
      }
    }
  }
  const out = new Map<string, ResourceCall>();
  for (const s of senders) if (!out.has(s.constant)) out.set(s.constant, describe(s, types));
  return out;
}

function describe(s: Sender, types: TypeSchemas): ResourceCall {
  const opts = s.call.arguments[1];
  const props = opts && ts.isObjectLiteralExpression(opts) ? opts.properties : ts.factory.createNodeArray<ts.ObjectLiteralElementLike>();
  const prop = (name: string) => props.find((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === name);
  const bodyProp = prop('body');
  const dataParam = s.method.parameters.find((p) => p.type && !isIdType(p.type) && !isOptionsType(p.type));
  const idParam = s.method.parameters.find((p) => p.type && isIdType(p.type));
  const data = dataParam?.type ? types.of(s.file, dataParam.type) : undefined;
  const asObject = (schema: JsonSchema | undefined): ObjectSchema | undefined =>
    schema?.['type'] === 'object' ? (schema as ObjectSchema) : undefined;
  let body: ResourceCall['body'];
  if (bodyProp && ts.isPropertyAssignment(bodyProp) && isEmptyObject(bodyProp.initializer)) body = 'empty';
  else if (bodyProp) body = asObject(data) ?? { type: 'object', properties: {}, additionalProperties: true };
  return {
    constant: s.constant,
    summary: summaryOf(docOf(userFacing(s))),
    pathParamDoc: idParam && ts.isIdentifier(idParam.name) ? paramDocOf(s.method, idParam.name.text) : undefined,
    body,
    query: prop('query') ? asObject(data) : undefined,
    listQuery: dataParam?.type !== undefined && /\bListParams\b/.test(dataParam.type.getText()),
    classDoc: docOf(s.cls),
  };
}

/**
 * The method users call: a method of the same class that delegates to the sender
 * (`corridors()` maps `corridorsEnvelope()`) and comes first, else the sender itself.
 */
function userFacing(s: Sender): ts.MethodDeclaration {
  const name = s.method.name.getText();
  for (const m of s.cls.members.filter(ts.isMethodDeclaration)) {
    if (m === s.method) return m;
    const delegates = m.body && findCall(m.body, (n) => ts.isCallExpression(n) && n.expression.getText() === `this.${name}`);
    if (delegates) return m;
  }
  return s.method;
}

function isIdType(t: ts.TypeNode): boolean {
  return t.kind === ts.SyntaxKind.StringKeyword;
}

function isOptionsType(t: ts.TypeNode): boolean {
  return ts.isTypeReferenceNode(t) && t.typeName.getText() === 'CallOptions';
}

function isEmptyObject(e: ts.Expression): boolean {
  return ts.isObjectLiteralExpression(e) && e.properties.length === 0;
}

/**
 * The repository's TypeScript sources as syntax trees, with the little name resolution the
 * OpenAPI generator needs: a top-level declaration by name, followed through `import { x }`,
 * `import * as ns` and `export { x } from`. No type checker (and no `lib` or node_modules): the
 * generator reads the SDK's own declarations (parameter interfaces, TSDoc, `as const` arrays),
 * nothing else.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** A declaration found by name, with the file it lives in. */
export interface Found {
  readonly file: string;
  readonly node: ts.Node;
}

interface Parsed {
  readonly sf: ts.SourceFile;
  /** Top-level declarations by name (const initializers, interfaces, type aliases, classes, functions). */
  readonly decls: Map<string, ts.Node>;
  /** `import { a as b } from './x.js'` and `export { a } from './x.js'`: local name to source. */
  readonly imports: Map<string, { file: string; name: string }>;
  /** `import * as ns from './x.js'`: namespace to file. */
  readonly namespaces: Map<string, string>;
  /** `export * from './x.js'`: files whose exports are this file's too. */
  readonly stars: string[];
}

/** Parses files on demand under one root. */
export class SourceIndex {
  readonly #root: string;
  readonly #files = new Map<string, Parsed>();

  constructor(root: string) {
    this.#root = root;
  }

  /** Absolute path of a repository-relative file. */
  abs(rel: string): string {
    return path.resolve(this.#root, rel);
  }

  /** The syntax tree of a file (absolute path). */
  sourceFile(file: string): ts.SourceFile {
    return this.#parsed(file).sf;
  }

  /** A top-level declaration of `file` named `name`, following imports and re-exports. */
  resolve(file: string, name: string, depth = 0): Found | undefined {
    if (depth > 10) return undefined;
    const p = this.#parsed(file);
    const local = p.decls.get(name);
    if (local) return { file, node: local };
    const imported = p.imports.get(name);
    if (imported) return this.resolve(imported.file, imported.name, depth + 1);
    for (const star of p.stars) {
      const found = this.resolve(star, name, depth + 1);
      if (found) return found;
    }
    return undefined;
  }

  /** Resolves an identifier or `ns.name` expression or type name used in `file`. */
  resolveEntity(file: string, entity: ts.EntityName | ts.Expression): Found | undefined {
    if (ts.isIdentifier(entity)) return this.resolve(file, entity.text);
    const left = ts.isQualifiedName(entity) ? entity.left : ts.isPropertyAccessExpression(entity) ? entity.expression : undefined;
    const right = ts.isQualifiedName(entity) ? entity.right : ts.isPropertyAccessExpression(entity) ? entity.name : undefined;
    if (!left || !right || !ts.isIdentifier(left) || !ts.isIdentifier(right)) return undefined;
    const ns = this.#parsed(file).namespaces.get(left.text);
    return ns === undefined ? undefined : this.resolve(ns, right.text);
  }

  #parsed(file: string): Parsed {
    const cached = this.#files.get(file);
    if (cached) return cached;
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
    const parsed: Parsed = { sf, decls: new Map(), imports: new Map(), namespaces: new Map(), stars: [] };
    for (const st of sf.statements) this.#index(file, st, parsed);
    this.#files.set(file, parsed);
    return parsed;
  }

  #index(file: string, st: ts.Statement, p: Parsed): void {
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) p.decls.set(d.name.text, d);
    } else if (
      (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isClassDeclaration(st) || ts.isFunctionDeclaration(st)) &&
      st.name
    ) {
      p.decls.set(st.name.text, st);
    } else if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const from = this.#target(file, st.moduleSpecifier.text);
      const bindings = st.importClause?.namedBindings;
      if (from === undefined || !bindings) return;
      if (ts.isNamespaceImport(bindings)) p.namespaces.set(bindings.name.text, from);
      else for (const el of bindings.elements) p.imports.set(el.name.text, { file: from, name: (el.propertyName ?? el.name).text });
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      const from = this.#target(file, st.moduleSpecifier.text);
      if (from === undefined) return;
      if (!st.exportClause) p.stars.push(from);
      if (!st.exportClause || !ts.isNamedExports(st.exportClause)) return;
      for (const el of st.exportClause.elements) p.imports.set(el.name.text, { file: from, name: (el.propertyName ?? el.name).text });
    }
  }

  /** `./x.js` next to `file` as the `.ts` file that exists; packages (zod, ...) are not followed. */
  #target(file: string, spec: string): string | undefined {
    if (!spec.startsWith('.')) return undefined;
    const base = path.resolve(path.dirname(file), spec).replace(/\.js$/, '');
    for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (existsSync(candidate)) return candidate;
    return undefined;
  }
}

/** The TSDoc comment text of a node (tags excluded), `{@link X}` written as `X`, on one line per paragraph. */
export function docOf(node: ts.Node): string | undefined {
  // A constant's TSDoc sits on its statement.
  const holder = ts.isVariableDeclaration(node) ? node.parent.parent : node;
  const docs = (holder as { jsDoc?: ts.JSDoc[] }).jsDoc;
  const last = docs?.[docs.length - 1];
  if (!last) return undefined;
  const text = typeof last.comment === 'string' ? last.comment : ts.getTextOfJSDocComment(last.comment);
  if (!text) return undefined;
  return cleanDoc(text);
}

/** The text of a `@param name` tag of a function-like node. */
export function paramDocOf(node: ts.Node, name: string): string | undefined {
  const docs = (node as { jsDoc?: ts.JSDoc[] }).jsDoc;
  for (const tag of docs?.[docs.length - 1]?.tags ?? []) {
    if (ts.isJSDocParameterTag(tag) && ts.isIdentifier(tag.name) && tag.name.text === name) {
      const text = typeof tag.comment === 'string' ? tag.comment : ts.getTextOfJSDocComment(tag.comment);
      if (text) return cleanDoc(text.replace(/^-\s*/, ''));
    }
  }
  return undefined;
}

/** `{@link A.b}` as `A.b`, paragraphs kept, lines inside a paragraph joined. */
function cleanDoc(text: string): string {
  return text
    .replace(/\{@link\s+([^}|\s]+)(?:\s*\|\s*([^}]+))?\}/g, (_, target: string, label?: string) => label ?? target)
    .split(/\n\s*\n/)
    .map((para) => para.replace(/\s*\n\s*/g, ' ').trim())
    .filter((para) => para !== '')
    .join('\n\n');
}

/**
 * The TypeScript blocks (```ts) of the shipped guides, and one compiler program that checks them
 * all against the package's types under a user's strictest settings. Used by
 * test/docs/ts-blocks.test.ts; CONTRIBUTING.md ("Code in the docs") says how a block declares
 * what it leaves out.
 *
 * - Each block is a module of its own (`moduleDetection: force`), as if saved as a file next to
 *   the reader's `package.json` (`"type": "module"`, so top-level `await` works).
 * - `merchant-stablecoin` and its subpaths resolve, through `paths`, to the source entries that
 *   tsup builds each into the declarations of that entry: no build needed.
 * - A fragment that uses names defined elsewhere (a `client`, a `pool`) declares them in an HTML
 *   comment right before the block, which GitHub and typedoc do not show:
 *   `<!-- ts-preamble: declare const client: MerchantClient; -->` (several such comments add up).
 *   Imports from the package in a preamble are written as in a block.
 * - Packages the guides use that this repository does not install (a web framework, a logger, an
 *   exporter) are declared as untyped modules: the SDK's side of those lines is still checked.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The shipped guides: README.md and docs/*.md, from the repository root. */
export function shippedGuides(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs];
}

export interface TsBlock {
  /** The guide, from the repository root. */
  readonly doc: string;
  /** The line of the opening fence (1-based). */
  readonly line: number;
  /** The preamble declared before the block (empty when none). */
  readonly preamble: string;
  readonly code: string;
}

const PREAMBLE = /^<!--\s*ts-preamble:\s*([\s\S]*?)\s*-->$/;

/** The ```ts blocks of a Markdown text, each with the preamble comments right before it. */
export function tsBlocks(doc: string, markdown: string): TsBlock[] {
  const lines = markdown.split('\n');
  const blocks: TsBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trimEnd() !== `${indent}\`\`\``) end++;
    const code = lines
      .slice(i + 1, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    blocks.push({ doc, line: i + 1, preamble: preambleBefore(lines, i), code });
    i = end;
  }
  return blocks;
}

/** The `ts-preamble` comments on the lines right above line `at` (blank lines between allowed). */
function preambleBefore(lines: string[], at: number): string {
  const parts: string[] = [];
  for (let j = at - 1; j >= 0; j--) {
    const line = lines[j]!.trim();
    if (line === '') continue;
    const m = PREAMBLE.exec(line);
    if (!m) break;
    parts.unshift(m[1]!);
  }
  return parts.join('\n');
}

/**
 * Packages the guides import that this repository does not install, declared as untyped modules
 * (`any`). express gets the little its route lines need, so that their callbacks are typed.
 */
const UNTYPED_MODULES: readonly string[] = [
  'pino',
  '@opentelemetry/sdk-node',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/exporter-metrics-otlp-http',
];

/**
 * The reader's own values that the guides use without defining them (their client, their member
 * view, their database), declared once for every block: a block that defines one of these names
 * shadows it. Anything else a fragment needs (a name an earlier block of its guide imports or
 * defines) is in that block's `ts-preamble`, where the reader of the Markdown source sees it.
 */
const READER_GLOBALS = `
import type { MerchantClient, MemberView, WithdrawalCreateParams } from 'merchant-stablecoin';
import type { Sandbox } from 'merchant-stablecoin/testing';
import type { WebhookVerifier } from 'merchant-stablecoin/webhooks';
import type { Redis } from 'ioredis';
import type { Pool } from 'pg';
declare global {
  const client: MerchantClient;
  const member: MemberView;
  const sandbox: Sandbox;
  const params: WithdrawalCreateParams;
  const key: string;
  const payoutId: string;
  const cardId: string;
  const redis: Redis;
  const pool: Pool;
  const verify: WebhookVerifier;
  /** The reader's database layer, whatever it is. */
  const db: any;
}
`;

/** express's default export, as loosely as its middleware signatures are in `@types/express`. */
const EXPRESS = `declare module 'express' {
  type Handler = (req: any, res: any, next: (err?: unknown) => void) => unknown;
  interface App {
    post(path: string, ...handlers: Handler[]): App;
    use(...handlers: Handler[]): App;
    listen(port: number, callback?: () => void): unknown;
  }
  interface Express {
    (): App;
    raw(options?: { type?: string }): Handler;
    json(): Handler;
  }
  const express: Express;
  export default express;
}`;

/** The reader's own modules a guide imports by relative path, other than the generated API types. */
const READER_MODULES: Readonly<Record<string, string>> = {
  // docs/fleet.md: the service's signature check, written by the reader (the spec does not give it).
  'verify-signature.ts':
    "import type { WebhookVerifier } from 'merchant-stablecoin/webhooks';\nexport declare const verify: WebhookVerifier;\n",
};

/** `src/merchant-api.d.ts` as docs/other-languages.md has the reader generate it: openapi-typescript on openapi.json. */
async function generatedApiTypes(): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  return astToString(await openapiTS(new URL('openapi.json', `file://${ROOT}/`)));
}

/** `merchant-stablecoin` and each subpath of its exports map, to the source file tsup builds it from. */
function entrySources(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { node: { import: { types: string } } }>;
  };
  const tsup = readFileSync(join(ROOT, 'tsup.config.ts'), 'utf8');
  const built = new Map([...tsup.matchAll(/^\s*'?([\w-]+)'?:\s*'(src\/[^']+)'/gm)].map((m) => [m[1]!, m[2]!]));
  const out: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    const name = /^\.\/dist\/([\w-]+)\.d\.ts$/.exec(target.node.import.types)?.[1];
    const source = name === undefined ? undefined : built.get(name);
    if (source === undefined) throw new Error(`no tsup entry builds ${subpath}`);
    out[subpath === '.' ? 'merchant-stablecoin' : `merchant-stablecoin/${subpath.slice(2)}`] = source;
  }
  return out;
}

/** A user's strictest settings, for a Node ESM project. */
const STRICT_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  esModuleInterop: true,
  skipLibCheck: true,
  noEmit: true,
  types: ['node'],
};

/** Where the blocks are placed (virtually): a folder with the repository's `package.json` above it. */
const BLOCK_DIR = join(ROOT, 'test', 'docs');

export interface BlockError {
  readonly block: TsBlock;
  /** `docs/x.md:12`: the guide's line the error is on (the opening fence when it is in the preamble). */
  readonly where: string;
  readonly message: string;
}

/**
 * The block's text as compiled, and the number of lines before its code. A block written as the
 * body of the reader's function (it `return`s at top level) is compiled inside an async function,
 * its imports left at the top: an import is always the block's first lines.
 */
function blockSource(block: TsBlock): { text: string; offset: number } {
  const head = `${block.preamble}\n`;
  const parsed = ts.createSourceFile('block.ts', block.code, ts.ScriptTarget.ES2022);
  if (!returnsAtTop(parsed)) return { text: `${head}${block.code}\n`, offset: lineCount(head) };
  const imports = parsed.statements.filter(ts.isImportDeclaration);
  const split = imports.length === 0 ? 0 : imports[imports.length - 1]!.end;
  const opening = `${block.code.slice(0, split)} async function readerCode() {`;
  const text = `${head}${opening}${block.code.slice(split)}\n}\n`;
  // The function's opening shares the last import's line, so the block's lines keep their numbers.
  return { text, offset: lineCount(head) };
}

/** Whether a `return` of the code is outside any function of its own. */
function returnsAtTop(node: ts.Node): boolean {
  if (ts.isReturnStatement(node)) return true;
  if (ts.isFunctionLike(node) || ts.isClassLike(node)) return false;
  return ts.forEachChild(node, returnsAtTop) ?? false;
}

function lineCount(text: string): number {
  return text.split('\n').length - 1;
}

/** Type-checks every block in one program; answers each error with the guide's line it is on. */
export async function checkBlocks(blocks: readonly TsBlock[]): Promise<BlockError[]> {
  const virtual = new Map<string, string>();
  const fileOf = new Map<string, { block: TsBlock; offset: number }>();
  blocks.forEach((block, n) => {
    const name = join(BLOCK_DIR, `__doc-block-${n}.ts`);
    const { text, offset } = blockSource(block);
    virtual.set(name, text);
    fileOf.set(name, { block, offset });
  });
  for (const [file, text] of Object.entries(READER_MODULES)) virtual.set(join(BLOCK_DIR, file), text);
  virtual.set(join(BLOCK_DIR, 'merchant-api.d.ts'), await generatedApiTypes());
  virtual.set(join(BLOCK_DIR, '__doc-reader.d.ts'), READER_GLOBALS);
  const ambient = [...UNTYPED_MODULES.map((m) => `declare module '${m}';`), EXPRESS].join('\n');
  virtual.set(join(BLOCK_DIR, '__doc-untyped-modules.d.ts'), ambient);

  const paths = Object.fromEntries(Object.entries(entrySources()).map(([k, v]) => [k, [v]]));
  const options: ts.CompilerOptions = { ...STRICT_OPTIONS, baseUrl: ROOT, paths };
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f) ?? readFile.call(host, f);
  host.getSourceFile = (f, lang, onError, create) => {
    const text = virtual.get(f);
    return text === undefined ? getSourceFile.call(host, f, lang, onError, create) : ts.createSourceFile(f, text, lang);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);

  const errors: BlockError[] = [];
  for (const [file, { block, offset }] of fileOf) {
    const source = program.getSourceFile(file)!;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    for (const d of diagnostics) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const docLine = line < offset ? block.line : block.line + 1 + (line - offset);
      errors.push({ block, where: `${block.doc}:${docLine}`, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    }
  }
  return errors;
}

/** Every ```ts block of the shipped guides. */
export function shippedBlocks(): TsBlock[] {
  return shippedGuides().flatMap((doc) => tsBlocks(doc, readFileSync(join(ROOT, doc), 'utf8')));
}

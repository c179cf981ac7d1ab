/**
 * The guides must not drift from the code: every relative link (and `#anchor`) resolves, every
 * name a code block imports from the package is really exported by that entry, and every method
 * chain on `client.…` or on a member view exists on a real client.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/testing/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCS = join(ROOT, 'docs');
const PAGES = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
];
const text = new Map(PAGES.map((p) => [p, readFileSync(p, 'utf8')]));

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const m = !inFence && /^#{1,6}\s+(.*)$/.exec(line);
    if (m) out.add(slug(m[1]!));
  }
  return out;
}

/** Fenced code blocks of a language. */
function codeBlocks(markdown: string, langs: readonly string[]): string[] {
  return [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].filter((m) => langs.includes(m[1]!)).map((m) => m[2]!);
}

const ENTRIES: Record<string, string> = {
  'merchant-stablecoin': 'src/index.ts',
  'merchant-stablecoin/testing': 'src/testing/index.ts',
  'merchant-stablecoin/webhooks': 'src/webhooks/index.ts',
  'merchant-stablecoin/payouts': 'src/payouts/index.ts',
  'merchant-stablecoin/postgres': 'src/postgres/index.ts',
};

/** Exported names (values and types) of each package entry, from the TypeScript checker. */
function entryExports(): Map<string, Set<string>> {
  const files = Object.values(ENTRIES).map((f) => join(ROOT, f));
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, Set<string>>();
  for (const [name, file] of Object.entries(ENTRIES)) {
    const source = program.getSourceFile(join(ROOT, file))!;
    const symbol = checker.getSymbolAtLocation(source)!;
    out.set(name, new Set(checker.getExportsOfModule(symbol).map((s) => s.name)));
  }
  return out;
}

/** Every `import { ... } from 'merchant-stablecoin[/entry]'` of a page's ts and js blocks. */
function packageImports(md: string): { list: string; specifier: string }[] {
  return codeBlocks(md, ['ts', 'js']).flatMap((block) =>
    [...block.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'(merchant-stablecoin(?:\/[\w-]+)?)'/g)].map((m) => ({
      list: m[1]!,
      specifier: m[2]!,
    })),
  );
}

/** The imported names of an import list (`A, type B, C as D` gives A, B, C). */
function importedNames(list: string): string[] {
  return list
    .split(',')
    .map((raw) =>
      raw
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)[0]!
        .trim(),
    )
    .filter((name) => name !== '');
}

describe('docs links', () => {
  for (const page of PAGES) {
    it(`${relative(ROOT, page)}: every relative link and anchor resolves`, () => {
      const broken: string[] = [];
      const md = text.get(page)!;
      const withoutCode = md.replace(/```[\s\S]*?```/g, '');
      for (const m of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : resolve(dirname(page), path);
        if (!existsSync(file)) {
          broken.push(target);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md')) {
          const md2 = text.get(file) ?? readFileSync(file, 'utf8');
          if (!anchors(md2).has(anchor)) broken.push(target);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});

describe('docs code blocks', () => {
  const exportsByEntry = entryExports();

  it('import only names the package entries really export', () => {
    const missing: string[] = [];
    for (const [page, md] of text) {
      for (const { list, specifier } of packageImports(md)) {
        const entry = exportsByEntry.get(specifier);
        if (entry === undefined) {
          if (specifier !== 'merchant-stablecoin/redis') missing.push(`${relative(ROOT, page)}: unknown entry ${specifier}`);
          continue;
        }
        for (const name of importedNames(list)) {
          if (!entry.has(name)) missing.push(`${relative(ROOT, page)}: ${name} from ${specifier}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('call only methods that exist on the client and on a member view', async () => {
    const sandbox = createSandbox();
    const client = sandbox.client();
    const view = client.member('docs-check');
    const missing: string[] = [];
    const walk = (root: unknown, chain: string[]): boolean => {
      let node: unknown = root;
      for (const part of chain) {
        if (node === null || (typeof node !== 'object' && typeof node !== 'function')) return false;
        node = (node as Record<string, unknown>)[part];
      }
      return typeof node === 'function';
    };
    for (const [page, md] of text) {
      for (const block of codeBlocks(md, ['ts', 'js'])) {
        for (const m of block.matchAll(/\bclient\.member\([^)]*\)((?:\.\w+)+)\(/g)) {
          const chain = m[1]!.slice(1).split('.');
          if (!walk(view, chain)) missing.push(`${relative(ROOT, page)}: client.member(…).${chain.join('.')}`);
        }
        for (const m of block.matchAll(/\bclient\.(?!member\()((?:\w+\.)*\w+)\(/g)) {
          const chain = m[1]!.split('.');
          if (!walk(client, chain)) missing.push(`${relative(ROOT, page)}: client.${chain.join('.')}`);
        }
        for (const m of block.matchAll(/\bmember\.((?:\w+\.)*\w+)\(/g)) {
          const chain = m[1]!.split('.');
          if (!walk(view, chain)) missing.push(`${relative(ROOT, page)}: member.${chain.join('.')}`);
        }
      }
    }
    await client.close();
    expect(missing).toEqual([]);
  });
});

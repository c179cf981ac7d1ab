/**
 * Fast static checks of the package manifest and the entry graph, run with the unit tests.
 * The full gates (build, publint, attw, an installed tarball imported from ESM, CJS and
 * TypeScript) are in `npm run check:package` (scripts/check-package.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/testing/cli/args.js';
import { SDK_VERSION } from '../../src/version.js';
import { shippedBy, shippedMarkdown } from './doc-references.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  type: string;
  engines: { node: string };
  files: string[];
  main: string;
  module: string;
  types: string;
  sideEffects: boolean;
  exports: Record<string, string | { node: { import: { types: string; default: string } } }>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  bin?: Record<string, string>;
  scripts: Record<string, string>;
};
/** The conditions of runtimes that get the fetch-only build (`dist/web`), in order. */
const WEB_CONDITIONS = ['workerd', 'worker', 'edge-light', 'browser', 'deno', 'bun'];
const tsupConfig = readFileSync(join(ROOT, 'tsup.config.ts'), 'utf8');
const tsupEntries = [...tsupConfig.matchAll(/^\s*'?([\w-]+)'?:\s*'(src\/[^']+)'/gm)].map((m) => ({ name: m[1]!, source: m[2]! }));

describe('package.json', () => {
  it('maps every entry to the Node build (ESM and CJS) and, for other runtimes, to the fetch-only build; types first', () => {
    // `./package.json` and `./openapi.json` are data files, exported as they are.
    const entries = Object.entries(pkg.exports).filter(([k]) => k !== './package.json' && k !== './openapi.json');
    expect(entries.map(([k]) => k)).toEqual(expect.arrayContaining(['.', './testing', './webhooks']));
    for (const [subpath, target] of entries) {
      expect(typeof target, subpath).toBe('object');
      const t = target as Record<string, Record<string, unknown>>;
      // Order matters: the first condition a resolver knows wins, so the runtimes come before `node`.
      expect(Object.keys(t), subpath).toEqual([...WEB_CONDITIONS, 'node', 'import', 'require', 'default']);
      const name = /^\.\/dist\/web\/([\w-]+)\.js$/.exec(String(t['default']!['default']))![1]!;
      const web = { types: `./dist/${name}.d.ts`, default: `./dist/web/${name}.js` };
      for (const cond of [...WEB_CONDITIONS, 'import', 'default']) expect(t[cond], `${subpath} ${cond}`).toEqual(web);
      const esm = { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` };
      const cjs = { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` };
      expect(t['node'], `${subpath} node`).toEqual({ import: esm, require: cjs });
      expect(Object.keys(t['node']!['import'] as object)).toEqual(['types', 'default']);
      expect(t['require'], `${subpath} require`).toEqual(cjs);
    }
    expect(pkg.exports['./package.json']).toBe('./package.json');
    expect(pkg.exports['./openapi.json']).toBe('./openapi.json');
  });

  it('builds every exported file from a tsup entry', () => {
    const names = new Set(tsupEntries.map((e) => e.name));
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') continue;
      const name = /\.\/dist\/([\w-]+)\.js$/.exec(target.node.import.default)![1]!;
      expect(names.has(name), `${subpath} -> ${name}`).toBe(true);
    }
    for (const bin of Object.values(pkg.bin ?? {})) expect(names.has(/\.\/dist\/([\w-]+)\.js$/.exec(bin)![1]!), bin).toBe(true);
    expect(pkg.main).toBe('./dist/index.cjs');
    expect(pkg.module).toBe('./dist/index.js');
    expect(pkg.types).toBe('./dist/index.d.ts');
  });

  it('sends the package version in the user agent (SDK_VERSION follows package.json)', () => {
    expect(SDK_VERSION).toBe(pkg.version);
  });

  it('ships only dist, the OpenAPI document, the docs and the other-language examples, supports Node 20.18.1+, and is side-effect free', () => {
    expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'openapi.json', 'docs/*.md', 'examples/other-languages']));
    const shipped = [
      'dist',
      'openapi.json',
      'docs/*.md',
      'examples/other-languages',
      'bench/README.md',
      'README.md',
      'CHANGELOG.md',
      'CONTRIBUTING.md',
      'LICENSE',
    ];
    expect(pkg.files.every((f) => shipped.includes(f))).toBe(true);
    expect(pkg.engines.node).toBe('>=20.18.1');
    expect(pkg.type).toBe('module');
    expect(pkg.sideEffects).toBe(false);
  });

  it('builds dist/ from git with prepare, and packs a package.json without it (prepack strips it, postpack puts it back)', () => {
    // A package.json without prepare here means a pack died between its prepack and postpack:
    // `tsx scripts/pack-manifest.ts restore` puts it back. Git installs need it to build dist/.
    expect(pkg.scripts['prepare']).toBe('tsx scripts/prepare.ts');
    expect(pkg.scripts['prepack']).toBe('tsx scripts/prepare.ts && tsx scripts/pack-manifest.ts strip');
    expect(pkg.scripts['postpack']).toBe('tsx scripts/pack-manifest.ts restore');
    // No script npm counts as an install script may reach the tarball: npm 11 lists them on install.
    for (const name of ['preinstall', 'install', 'postinstall']) expect(pkg.scripts[name], name).toBeUndefined();
  });

  it('keeps runtime dependencies to undici, zod, decimal.js and uuid; msw, ioredis and pg are optional peers', () => {
    for (const dep of Object.keys(pkg.dependencies)) expect(['undici', 'zod', 'decimal.js', 'uuid']).toContain(dep);
    for (const peer of ['msw', 'ioredis', 'pg']) {
      expect(pkg.dependencies[peer]).toBeUndefined();
      if (pkg.peerDependencies?.[peer] !== undefined) expect(pkg.peerDependenciesMeta?.[peer]?.optional, peer).toBe(true);
    }
  });
});

/** Relative imports of a source file, resolved to files (static and dynamic, type-only excluded). */
function localImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'";]*?from\s+'([^']+)'/gm),
    ...text.matchAll(/^\s*import\s+'([^']+)'/gm),
    ...text.matchAll(/(?<!typeof\s+)import\(\s*'([^']+)'\s*\)/g), // `typeof import()` is a type
  ].map((m) => m[1]!);
  return specs;
}

/**
 * Every module specifier reachable at run time from an entry (relative ones followed). `web`
 * follows the fetch-only build, where `platform/web.ts` stands in for `platform/node.ts`.
 */
function reachable(entry: string, web = false): { files: Set<string>; bare: Set<string> } {
  const files = new Set<string>();
  const bare = new Set<string>();
  const queue = [resolve(ROOT, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const spec of localImports(file)) {
      const local = web ? spec.replace(/\/platform\/node\.js$/, '/platform/web.js') : spec;
      if (local.startsWith('.')) queue.push(resolve(dirname(file), local.replace(/\.js$/, '.ts')));
      else bare.add(spec);
    }
  }
  return { files, bare };
}

describe('entry graph', () => {
  it('the main and webhooks entries never load msw, ioredis, pg or the testing kit', () => {
    for (const entry of ['src/index.ts', 'src/webhooks/index.ts']) {
      const { files, bare } = reachable(entry);
      expect(
        [...bare].filter((b) => /^(msw|ioredis|pg)(\/|$)/.test(b)),
        entry,
      ).toEqual([]);
      expect(
        [...files].filter((f) => f.includes(`${join('src', 'testing')}`)),
        entry,
      ).toEqual([]);
    }
  });

  it('the build for other runtimes never loads undici nor imports a node: module, from the main and webhooks entries', () => {
    for (const entry of ['src/index.ts', 'src/webhooks/index.ts']) {
      const { files, bare } = reachable(entry, true);
      expect(
        [...bare].filter((b) => /^(undici|node:)/.test(b) || b === 'crypto' || b === 'buffer'),
        entry,
      ).toEqual([]);
      expect(
        [...files].filter((f) => /transport[\\/]undici|platform[\\/]node/.test(f)),
        entry,
      ).toEqual([]);
      expect(
        [...files].some((f) => /platform[\\/]web\.ts$/.test(f)),
        entry,
      ).toBe(entry === 'src/index.ts');
    }
    // The Node build does reach the undici transport (loaded on the first call, by a name
    // bundlers do not follow: no static or literal dynamic import of undici anywhere).
    const node = reachable('src/index.ts');
    expect([...node.files].some((f) => /transport[\\/]undici\.ts$/.test(f))).toBe(true);
    expect([...node.bare].filter((b) => b === 'undici')).toEqual([]);
  });

  it('the testing entry loads msw only lazily (no static import of it)', () => {
    const { bare } = reachable('src/testing/index.ts');
    expect([...bare].filter((b) => /^msw(\/|$)/.test(b))).toEqual([]);
  });
});

describe('what users meet in the package', () => {
  const shipped = shippedBy(pkg.files);
  const markdown = shippedMarkdown(ROOT, shipped);

  it('ships the guides the README links to, and every relative link of a shipped page resolves in the package', () => {
    expect(markdown).toEqual(expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/testing.md', 'bench/README.md']));
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (link === undefined || /^([a-z]+:|#)/.test(link)) continue;
        const target = posix.normalize(posix.join(posix.dirname(file), link.split('#')[0]!));
        if (!shipped(target) || !existsSync(join(ROOT, target))) broken.push(`${file} -> ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('the sandbox command names documentation that the installed package holds', () => {
    const doc = /Documentation: node_modules\/merchant-stablecoin\/(\S+)/.exec(USAGE)?.[1];
    expect(doc).toBe('docs/sandbox-server.md');
    expect(shipped(doc!)).toBe(true);
    expect(existsSync(join(ROOT, doc!))).toBe(true);
  });

  it('no user document names an internal issue', () => {
    const examples = readdirSync(join(ROOT, 'examples'))
      .filter((f) => /\.(ts|md)$/.test(f))
      .map((f) => `examples/${f}`);
    for (const file of [...markdown, ...examples]) {
      expect(readFileSync(join(ROOT, file), 'utf8'), file).not.toMatch(/\bissue\s+#?\d+/i);
    }
  });
});

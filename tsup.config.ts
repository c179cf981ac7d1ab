import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

const ENTRIES = {
  index: 'src/index.ts',
  // Not a package entry: idempotencyKeyFor in a file of its own, so that a bundler drops it (and
  // uuid with it) from an application that does not call it (uuid's v5 sets properties on the
  // function, which a bundler keeps when the code shares a file with what the application uses).
  'idempotency-key': 'src/core/call/idempotency-key.ts',
  testing: 'src/testing/index.ts',
  'testing-msw': 'src/testing/msw.ts',
  webhooks: 'src/webhooks/index.ts',
  payouts: 'src/payouts/index.ts',
  redis: 'src/redis/index.ts',
  postgres: 'src/postgres/index.ts',
};

/**
 * The OpenAPI document the sandbox serves (`src/testing/admin/openapi.ts`, a chunk loaded on first
 * request) is bundled as one `JSON.parse` of its compact text: a third smaller than the object
 * literal esbuild would write, faster to parse, and with a one-line source map.
 */
const openapiJson: EsbuildPlugin = {
  name: 'openapi-json',
  setup(build) {
    build.onLoad({ filter: /[\\/]openapi\.json$/ }, async (args) => {
      const compact = JSON.stringify(JSON.parse(await readFile(args.path, 'utf8')));
      return { contents: `export default JSON.parse(${JSON.stringify(compact)});`, loader: 'js' };
    });
  },
};

/** `import './chunk-X.js';`: an import for its evaluation order only. */
const BARE_CHUNK_IMPORT = /^import '\.\/(chunk-[A-Z0-9]+\.js)';$/gm;
const CHUNK_IMPORT = /from '\.\/(chunk-[A-Z0-9]+\.js)'/g;

/**
 * Blanks each bare chunk import of an ESM output file that its named imports already reach.
 * esbuild writes them to keep the order chunks run in; with `"sideEffects": false` a consumer's
 * bundler then warns on every build ("Ignoring this import … no side effects"). A chunk that a
 * named import reaches runs before that import's chunk anyway, so the line adds nothing. A bare
 * import nothing else reaches is kept (and check:package's bundling then fails on its warning).
 * The line is blanked rather than removed, so the source map's lines still match.
 */
async function blankRedundantBareImports(outDir: string): Promise<void> {
  const files = (await readdir(outDir)).filter((f) => f.endsWith('.js'));
  const text = new Map(await Promise.all(files.map(async (f) => [f, await readFile(join(outDir, f), 'utf8')] as const)));
  const reached = (from: string[]): Set<string> => {
    const seen = new Set<string>();
    const todo = [...from];
    for (let f = todo.pop(); f !== undefined; f = todo.pop()) {
      if (seen.has(f)) continue;
      seen.add(f);
      for (const m of (text.get(f) ?? '').matchAll(CHUNK_IMPORT)) todo.push(m[1]!);
      for (const m of (text.get(f) ?? '').matchAll(BARE_CHUNK_IMPORT)) todo.push(m[1]!);
    }
    return seen;
  };
  for (const [file, code] of text) {
    const named = [...code.matchAll(CHUNK_IMPORT)].map((m) => m[1]!);
    const via = reached(named);
    const next = code.replace(BARE_CHUNK_IMPORT, (line, chunk: string) => (via.has(chunk) ? '' : line));
    if (next !== code) await writeFile(join(outDir, file), next);
  }
}

const shared: Options = {
  sourcemap: true,
  treeshake: true,
  // Shared chunks: one copy of the client and error classes across entries, so instanceof holds.
  splitting: true,
  // msw is an optional peer of the testing/msw entry only; @opentelemetry/api an optional peer of all.
  // pg likewise, of the postgres entry (which never imports it at run time: the caller passes a pool).
  external: ['msw', 'msw/node', '@opentelemetry/api', 'pg'],
  // zod's code is bundled (tree-shaken) rather than imported from node_modules: loading its
  // ~60 ESM files took most of the SDK's import time (`npm run bench`). Its types stay a
  // dependency: the published declarations infer result types from `zod/mini`.
  // uuid (idempotencyKeyFor's v5) is bundled too: uuid 14 ships ESM only, which a CJS build's
  // require() cannot load on Node 20.18, and bundling resolves its node:crypto SHA-1 for Node
  // and its plain-JS SHA-1 for the web build (workerd, edge, Deno, browsers).
  noExternal: [/^zod(\/|$)/, /^uuid$/],
  esbuildPlugins: [openapiJson],
};

/**
 * The build for Bun, Deno, workerd and edge runtimes takes `platform/web.ts` (fetch only) where
 * the Node build takes `platform/node.ts` (undici, loaded on the first call): that build never
 * mentions undici, and a platform-neutral bundle of it needs no `node:` module.
 */
const webPlatform: EsbuildPlugin = {
  name: 'web-platform',
  setup(build) {
    build.onResolve({ filter: /\/platform\/node\.js$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.replace(/node\.js$/, 'web.ts')),
    }));
  },
};

export default defineConfig([
  {
    ...shared,
    entry: {
      ...ENTRIES,
      'sandbox-bin': 'src/testing/bin.ts',
    },
    format: ['esm', 'cjs'],
    // Declarations tagged @internal (constructors the SDK calls, the pipeline's plumbing) are left
    // out of the published types, so the .d.ts is the public surface and nothing more. Both
    // builds share these declarations: they differ in no exported type.
    dts: { compilerOptions: { stripInternal: true } },
    // Everything but the other build's folder, which that build cleans itself.
    clean: ['!web/**'],
    target: 'node20',
    platform: 'node',
    onSuccess: () => blankRedundantBareImports('dist'),
  },
  {
    ...shared,
    entry: ENTRIES,
    outDir: 'dist/web',
    format: ['esm'],
    clean: true,
    target: 'es2022',
    platform: 'neutral',
    // The simulator's server and the fleet stores use `node:` modules that Bun and Deno provide.
    external: [...(shared.external ?? []), /^node:/, 'ioredis', 'pg'],
    esbuildPlugins: [openapiJson, webPlatform],
    onSuccess: () => blankRedundantBareImports('dist/web'),
  },
]);

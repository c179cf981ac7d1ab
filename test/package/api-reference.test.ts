/**
 * The API reference (`npm run docs`, typedoc) covers the package's public surface: one entry
 * point per entry of package.json's `exports` map, and a page for each class an entry exports.
 * A new entry added to `exports` without a typedoc entry point fails here, not in a user's search
 * of the reference.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Application, ReflectionKind, TSConfigReader, TypeDocReader, type ProjectReflection } from 'typedoc';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { node: { import: { types: string } } }>;
};
const typedocConfig = JSON.parse(readFileSync(join(ROOT, 'typedoc.json'), 'utf8')) as { entryPoints: string[] };
const tsupConfig = readFileSync(join(ROOT, 'tsup.config.ts'), 'utf8');
const tsupEntries = new Map([...tsupConfig.matchAll(/^\s*'?([\w-]+)'?:\s*'(src\/[^']+)'/gm)].map((m) => [m[1]!, m[2]!]));

/** Each code entry of `exports` (data files such as `./openapi.json` left out) with its source file. */
function exportedEntries(): { subpath: string; source: string }[] {
  return Object.entries(pkg.exports).flatMap(([subpath, target]) => {
    if (typeof target === 'string') return [];
    // `./dist/testing-msw.d.ts` is tsup's entry `testing-msw`, built from its source file.
    const name = /^\.\/dist\/([\w-]+)\.d\.ts$/.exec(target.node.import.types)?.[1];
    const source = name === undefined ? undefined : tsupEntries.get(name);
    if (source === undefined) throw new Error(`no tsup entry builds ${subpath} (${target.node.import.types})`);
    return [{ subpath, source }];
  });
}

/** The classes an entry exports at run time: what a user can `new` or `instanceof`. */
async function exportedClasses(source: string): Promise<string[]> {
  const mod = (await import(join(ROOT, source))) as Record<string, unknown>;
  return Object.entries(mod)
    .filter(([, v]) => typeof v === 'function' && Function.prototype.toString.call(v).startsWith('class'))
    .map(([k]) => k)
    .sort();
}

describe('API reference', () => {
  it('has one typedoc entry point per entry of the exports map, and none that is not an entry', () => {
    const sources = exportedEntries().map((e) => e.source);
    expect(sources).toContain('src/postgres/index.ts');
    expect(sources).toContain('src/payouts/index.ts');
    expect([...typedocConfig.entryPoints].sort()).toEqual([...sources].sort());
  });

  it('finds the classes an entry exports (the check below does not pass for want of any)', async () => {
    expect(await exportedClasses('src/index.ts')).toContain('MerchantClient');
    expect(await exportedClasses('src/postgres/index.ts')).toEqual(
      expect.arrayContaining(['PostgresEventStore', 'PostgresJournal', 'PostgresStoreError']),
    );
  });

  describe('as typedoc converts it', () => {
    let project: ProjectReflection;
    beforeAll(async () => {
      const app = await Application.bootstrapWithPlugins({ options: join(ROOT, 'typedoc.json') }, [
        new TypeDocReader(),
        new TSConfigReader(),
      ]);
      const converted = await app.convert();
      if (converted === undefined) throw new Error('typedoc could not convert the entry points');
      project = converted;
    });

    it.each(exportedEntries())('documents each class that $subpath exports', async ({ source }) => {
      const classes = await exportedClasses(source);
      // typedoc names a module after its entry point's path (src/testing/msw.ts: `testing/msw`).
      const moduleName = source.replace(/^src\//, '').replace(/(\/index)?\.ts$/, '');
      const mod = project.getChildByName(moduleName);
      expect(mod, `typedoc module for ${source}`).toBeDefined();
      const documented = project
        .getReflectionsByKind(ReflectionKind.Class)
        .filter((r) => r.parent === mod)
        .map((r) => r.name)
        .sort();
      expect(documented).toEqual(expect.arrayContaining(classes));
    });
  });
});

/**
 * `prepare` (npm runs it after `npm install` in a clone, for `npm install <git url>` and before
 * `npm pack`): builds `dist/` when it is missing or older than a source file, so that a package
 * installed from git or packed from a clone has its build, and an up-to-date clone pays nothing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BUILT = ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/web/index.js'].map((f) => join(ROOT, f));

function newestMtime(path: string): number {
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(child) : statSync(child).mtimeMs);
  }
  return newest;
}

const sources = Math.max(
  newestMtime(join(ROOT, 'src')),
  statSync(join(ROOT, 'tsup.config.ts')).mtimeMs,
  statSync(join(ROOT, 'package.json')).mtimeMs,
);
const stale = !BUILT.every(existsSync) || Math.min(...BUILT.map((f) => statSync(f).mtimeMs)) < sources;
if (stale) {
  const tsup = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'tsup', 'dist', 'cli-default.js')], {
    cwd: ROOT,
    stdio: ['ignore', 2, 2],
  });
  process.exitCode = tsup.status ?? 1;
} else {
  // On stderr: `npm pack --json` answers on stdout, and runs this as part of `prepack`.
  console.error('prepare: dist/ is up to date');
}

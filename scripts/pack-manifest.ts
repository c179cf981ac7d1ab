/**
 * `prepack` and `postpack`: the packed package.json carries no `prepare` script.
 *
 * `prepare` (scripts/prepare.ts) is what builds `dist/` when the package is installed from git:
 * npm runs it in its clone. In a tarball it has no use (`dist/` is inside), and npm 11 lists a
 * tarball's `prepare` among the install scripts "not yet covered by allowScripts", a warning on
 * every `npm install ./merchant-stablecoin-<version>.tgz`. So `npm pack` (and `npm publish`) packs
 * a package.json without it:
 *
 * - `prepack` builds `dist/` first (scripts/prepare.ts: npm would run `prepare` while packing, but
 *   it reads the scripts after `prepack`, so it no longer sees one), then
 *   `tsx scripts/pack-manifest.ts strip` removes `scripts.prepare` from package.json and keeps it,
 *   with the script name before it, in `node_modules/.cache/merchant-stablecoin/prepare-script.json`;
 * - `postpack` (`tsx scripts/pack-manifest.ts restore`) puts it back at its place, in the
 *   package.json as it is then (any other edit made meanwhile stays), and removes the kept copy.
 *
 * package.json is written as `JSON.stringify(pkg, null, 2)`, the form it is kept in, so a pack
 * leaves no diff. If a pack dies between the two steps, the next `prepack` or `postpack` finds
 * the kept copy and restores it first; `npm run check:package` and test/package/manifest.test.ts
 * fail while package.json lacks `prepare`.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PKG = join(ROOT, 'package.json');
const KEPT = join(ROOT, 'node_modules', '.cache', 'merchant-stablecoin', 'prepare-script.json');

interface Manifest {
  scripts?: Record<string, string>;
  [key: string]: unknown;
}

interface Kept {
  /** The `prepare` command. */
  readonly script: string;
  /** The script name before `prepare` in `scripts`, or null when it was the first. */
  readonly after: string | null;
}

const read = (): Manifest => JSON.parse(readFileSync(PKG, 'utf8')) as Manifest;
/**
 * Writes package.json back, keeping its modification time: a pack must not make `dist/` look
 * older than package.json (scripts/prepare.ts would then rebuild inside the next `npm pack`, and
 * the build's output would land in `npm pack --json`'s answer).
 */
const write = (pkg: Manifest): void => {
  const { atime, mtime } = statSync(PKG);
  writeFileSync(PKG, `${JSON.stringify(pkg, null, 2)}\n`);
  utimesSync(PKG, atime, mtime);
};

/** Puts the kept `prepare` back, unless package.json already has one; removes the kept copy. */
function restore(): void {
  if (!existsSync(KEPT)) return;
  const kept = JSON.parse(readFileSync(KEPT, 'utf8')) as Kept;
  const pkg = read();
  const scripts = pkg.scripts ?? {};
  if (scripts['prepare'] === undefined) {
    const entries = Object.entries(scripts);
    const at = kept.after === null ? 0 : entries.findIndex(([name]) => name === kept.after) + 1;
    entries.splice(at === 0 && kept.after !== null ? entries.length : at, 0, ['prepare', kept.script]);
    pkg.scripts = Object.fromEntries(entries);
    write(pkg);
    console.error('pack-manifest: scripts.prepare restored in package.json');
  }
  rmSync(KEPT);
}

/** Removes `scripts.prepare` from package.json, keeping it for `restore`. */
function strip(): void {
  restore(); // a pack that died before its postpack
  const pkg = read();
  const scripts = pkg.scripts ?? {};
  const script = scripts['prepare'];
  if (script === undefined) return;
  const names = Object.keys(scripts);
  const kept: Kept = { script, after: names[names.indexOf('prepare') - 1] ?? null };
  mkdirSync(dirname(KEPT), { recursive: true });
  writeFileSync(KEPT, JSON.stringify(kept));
  delete scripts['prepare'];
  write(pkg);
  console.error('pack-manifest: scripts.prepare left out of the packed package.json');
}

const mode = process.argv[2];
if (mode === 'strip') strip();
else if (mode === 'restore') restore();
else {
  console.error('usage: tsx scripts/pack-manifest.ts strip|restore');
  process.exitCode = 2;
}

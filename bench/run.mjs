// `npm run bench`: installs the benchmark's own dependencies (peer SDKs) into bench/node_modules
// when missing, builds the SDK when dist/ is missing or stale, then runs the suite with
// --expose-gc.
// Options: BENCH_QUICK=1 (a short smoke run), BENCH_PAGES=N (pages of 100 for the pagination run).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = dirname(benchDir);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, cwd) {
  console.error(`> ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error(`bench: \`${cmd} ${args.join(' ')}\` failed (${r.status ?? r.signal}).`);
    process.exit(r.status ?? 1);
  }
}

const peers = ['openai', 'stripe'];
if (!peers.every((p) => existsSync(join(benchDir, 'node_modules', p, 'package.json')))) {
  const lock = existsSync(join(benchDir, 'package-lock.json'));
  run(npm, [lock ? 'ci' : 'install', '--prefix', benchDir, '--no-audit', '--no-fund', '--loglevel=error'], root);
}
// The suite measures dist/: build it when missing, or older than a source file.
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
const builtFiles = ['index.js', 'index.cjs'].map((f) => join(root, 'dist', f));
const stale = !builtFiles.every(existsSync) || Math.min(...builtFiles.map((f) => statSync(f).mtimeMs)) < newestMtime(join(root, 'src'));
if (stale) run(npm, ['run', 'build'], root);

const suite = spawnSync(process.execPath, ['--expose-gc', join(benchDir, 'suite.mjs')], { cwd: root, stdio: 'inherit' });
process.exit(suite.status ?? 1);

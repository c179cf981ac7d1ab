/**
 * The merchant's Express app and its vitest + msw suite (examples/merchant-app), run as a
 * merchant runs them: copied into an empty folder, the packed tarball installed with express,
 * vitest and msw from npm. msw 2 under the Node at hand (20 in CI); msw 3, which needs Node 22.12
 * or later, under Node 22 and 24 from the runtime smoke's cache (scripts/runtimes.ts).
 * `npm run test:merchant-app`; `--keep` keeps the folder.
 *
 * A Node that cannot be installed or run here is reported with a loud `!! NOT RUN` line, never
 * counted as passed; a suite that fails fails the run.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MSW3, NODE_LTS, NPM, ROOT, binary, clean, installRuntimes, run } from './runtimes.js';

const APP = join(ROOT, 'examples', 'merchant-app');
const keep = process.argv.includes('--keep');
/** The version of a dev dependency installed here, so the project tests with what the SDK does. */
function version(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}
const VITEST = `vitest@${version('vitest')}`;
const EXPRESS = 'express@^5.1.0';
const MSW2 = 'msw@^2.7.0';
/** What the merchant's project type-checks with: the SDK's TypeScript, express's and Node's types. */
const TYPES = [`typescript@${version('typescript')}`, '@types/express@^5', '@types/node@^22'];

type Outcome = { readonly name: string; readonly status: 'passed' | 'failed' | 'not run'; readonly detail: string };

/** An empty project with the app, its suite, and the tarball installed beside `msw`. */
async function project(work: string, name: string, tarball: string, msw: string): Promise<string | { failed: string }> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `merchant-app-${name}`, private: true, type: 'module' }));
  for (const file of ['app.ts', 'app.test.ts', 'tsconfig.json']) copyFileSync(join(APP, file), join(dir, file));
  const install = await run(NPM, ['install', '--no-audit', '--no-fund', '--engine-strict=false', tarball, EXPRESS, VITEST, msw, ...TYPES], {
    cwd: dir,
    timeoutMs: 600_000,
  });
  return install.code === 0 ? dir : { failed: `npm install ${msw} beside the tarball failed:\n${clean(install.output)}` };
}

/** `tsc` over the app and its suite against the packed declarations, then `vitest run`, on `node`. */
async function suite(name: string, node: string, dir: string): Promise<Outcome> {
  const started = performance.now();
  const tsc = await run(node, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: dir, timeoutMs: 300_000 });
  if (tsc.code !== 0) return { name, status: 'failed', detail: `tsc:\n${clean(tsc.output)}` };
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const r = await run(node, [join('node_modules', 'vitest', 'vitest.mjs'), 'run'], { cwd: dir, env, timeoutMs: 300_000 });
  const seconds = Math.round((performance.now() - started) / 1000);
  const tests = /Tests\s+(\d+ passed[^\n]*)/.exec(r.output)?.[1] ?? '';
  return r.code === 0
    ? { name, status: 'passed', detail: `${tests.trim()}, ${seconds} s` }
    : { name, status: 'failed', detail: clean(r.output).split('\n').slice(-60).join('\n') };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ms-merchant-app-'));
  const results: Outcome[] = [];
  try {
    const failedRuntimes = await installRuntimes();
    const packed = await run(NPM, ['pack', '--ignore-scripts', '--pack-destination', work], { timeoutMs: 300_000 });
    const file = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (packed.code !== 0 || file === undefined) throw new Error(`npm pack failed:\n${clean(packed.output)}`);
    const tarball = join(work, file);

    const msw2 = await project(work, 'msw2', tarball, MSW2);
    const here = `msw 2 on node ${process.versions.node}`;
    results.push(
      typeof msw2 === 'string' ? await suite(here, process.execPath, msw2) : { name: here, status: 'failed', detail: msw2.failed },
    );

    const msw3 = await project(work, 'msw3', tarball, MSW3);
    for (const [runtime, path] of NODE_LTS) {
      const name = `msw 3 on ${runtime}`;
      if (typeof msw3 !== 'string') results.push({ name, status: 'failed', detail: msw3.failed });
      else if (failedRuntimes !== undefined)
        results.push({ name, status: 'not run', detail: `npm ci in smoke/runtimes failed: ${failedRuntimes}` });
      else {
        const b = await binary(path, ['--version']);
        results.push('skip' in b ? { name, status: 'not run', detail: b.skip } : await suite(name, b.bin, msw3));
      }
    }
  } finally {
    if (keep) console.log(`kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  for (const r of results) {
    if (r.status === 'passed') console.log(`== merchant app, ${r.name}: passed (${r.detail})`);
    else if (r.status === 'not run') console.log(`!! NOT RUN: merchant app, ${r.name}, NOT PASSED: ${r.detail}`);
    else console.log(`!! FAILED: merchant app, ${r.name}:\n${r.detail}`);
  }
  if (results.some((r) => r.status === 'failed')) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});

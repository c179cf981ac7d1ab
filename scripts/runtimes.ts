/**
 * The other runtimes' binaries, shared by the runtime smoke (scripts/runtime-smoke.ts) and the
 * suites under Node 22 and 24 (scripts/test-node-lts.ts): their npm packages, pinned in
 * `smoke/runtimes/package.json`, are installed by `npm ci` into `smoke/runtimes/node_modules` (a
 * cache folder, never the SDK's own install), once per lock.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNTIMES = join(ROOT, 'smoke', 'runtimes');
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The msw 3 release installed beside the tarball (msw 3 needs Node 22.12 or later). */
export const MSW3 = 'msw@3.0.5';

/** Node 22 and 24, the LTS lines merchants run, as their packages place the binary. */
export const NODE_LTS = [
  ['node 22', 'node22/bin/node'],
  ['node 24', 'node24/bin/node'],
] as const;

export interface RunResult {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command, capturing stdout and stderr together. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(killed after ${options.timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 300_000);
    child.on('error', (err) => (output += `\n${String(err)}`));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Output without npm's noise about unknown config keys. */
export function clean(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^npm warn Unknown (user|env|project) config/.test(line))
    .join('\n')
    .trim();
}

/** Installs the runtimes' packages into the cache folder; `undefined` when that worked. */
export async function installRuntimes(): Promise<string | undefined> {
  // Already installed from this lock: npm's own record of the tree is newer than the lock.
  const record = join(RUNTIMES, 'node_modules', '.package-lock.json');
  if (existsSync(record) && statSync(record).mtimeMs >= statSync(join(RUNTIMES, 'package-lock.json')).mtimeMs) return undefined;
  const r = await run(NPM, ['ci', '--no-audit', '--no-fund'], { cwd: RUNTIMES, timeoutMs: 900_000 });
  return r.code === 0 ? undefined : clean(r.output).split('\n').slice(-5).join('\n');
}

/** The binary of a runtime package, or the reason it cannot run here. */
export async function binary(path: string, versionArgs: readonly string[]): Promise<{ bin: string } | { skip: string }> {
  const bin = join(RUNTIMES, 'node_modules', path);
  if (!existsSync(bin)) return { skip: `${path} is not installed` };
  const r = await run(bin, versionArgs, { timeoutMs: 60_000 });
  return r.code === 0 ? { bin } : { skip: `${path} does not run here: ${clean(r.output).split('\n')[0] ?? ''}` };
}

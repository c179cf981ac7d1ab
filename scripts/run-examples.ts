/**
 * Runs every runnable example (`examples/*.ts`, not `*.test.ts`) as its own child process
 * (`node --import tsx <file>`) and fails if any exits non-zero or times out, so that an example
 * can never rot. `npm run examples`; `test/docs/examples.test.ts` uses the same functions.
 *
 * The examples run against the embedded sandbox simulator: the `MERCHANT_API_*` variables are
 * removed from the children's environment so that the quickstart never calls a real service.
 *
 *   npx tsx scripts/run-examples.ts                 all examples
 *   npx tsx scripts/run-examples.ts cards qrpay     only these (file names without .ts)
 *   npx tsx scripts/run-examples.ts --verbose       print every transcript
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The examples folder. */
export const EXAMPLES_DIR = join(ROOT, 'examples');

/**
 * Per-example time limit, a hang guard: an example runs in seconds (tsx start-up included), more
 * on a loaded machine running ten at once; anything near this limit has hung.
 */
export const EXAMPLE_TIMEOUT_MS = 120_000;

/** Absolute paths of the runnable examples, sorted by name. */
export function listExamples(): string[] {
  return readdirSync(EXAMPLES_DIR)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts'))
    .sort()
    .map((name) => join(EXAMPLES_DIR, name));
}

/** What one example run produced. */
export interface ExampleResult {
  /** File name, e.g. `cards.ts`. */
  readonly name: string;
  /** Exit code (null when killed by a signal or the time limit). */
  readonly code: number | null;
  /** Whether the time limit killed it. */
  readonly timedOut: boolean;
  /** Standard output (the transcript). */
  readonly stdout: string;
  /** Standard error. */
  readonly stderr: string;
  /** Wall time in milliseconds. */
  readonly ms: number;
}

function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('MERCHANT_API_')) delete env[key];
  return env;
}

/** Runs one example in a child process: `node --import tsx <file>` from the repository root. */
export function runExample(file: string, timeoutMs: number = EXAMPLE_TIMEOUT_MS): Promise<ExampleResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ name: basename(file), code, timedOut, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
    child.on('error', (err) => {
      stderr += String(err);
    });
  });
}

/** Runs the examples with bounded parallelism, results in input order. */
export async function runExamples(
  files: readonly string[],
  concurrency: number = Math.max(1, Math.min(4, availableParallelism())),
): Promise<ExampleResult[]> {
  const results: ExampleResult[] = new Array(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const i = next++;
      results[i] = await runExample(files[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
  return results;
}

function indent(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const verbose = args.includes('--verbose');
  const wanted = args.filter((a) => !a.startsWith('--'));
  let files = listExamples();
  if (wanted.length > 0) {
    files = files.filter((f) => wanted.includes(basename(f, '.ts')) || wanted.includes(basename(f)));
    const missing = wanted.filter((w) => !files.some((f) => basename(f, '.ts') === w || basename(f) === w));
    if (missing.length > 0) {
      console.error(`no such example: ${missing.join(', ')}`);
      process.exit(2);
    }
  }
  const started = performance.now();
  const results = await runExamples(files);
  let failed = 0;
  for (const r of results) {
    const ok = r.code === 0 && !r.timedOut;
    if (!ok) failed++;
    console.log(
      `${ok ? 'ok  ' : 'FAIL'} ${r.name.padEnd(26)} ${String(r.ms).padStart(6)} ms${r.timedOut ? ' (timed out)' : ok ? '' : ` (exit ${String(r.code)})`}`,
    );
    if (!ok || verbose) {
      if (r.stdout.trim()) console.log(indent(r.stdout));
      if (r.stderr.trim()) console.log(indent(r.stderr));
    }
  }
  const total = Math.round(performance.now() - started);
  console.log(`${results.length - failed}/${results.length} examples passed in ${total} ms`);
  if (failed > 0) process.exit(1);
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * The suites that pin a call's state, its retries, the errors, the webhook receiver, the journal
 * and the payouts, under Node 22 and Node 24, the LTS lines merchants run (`npm test` runs
 * everything under the Node at hand). `npm run test:node-lts` (`npx tsx scripts/test-node-lts.ts`).
 *
 * The binaries come from the runtime smoke's cache (`smoke/runtimes`, installed by `npm ci` from
 * its pinned lock; see scripts/runtimes.ts). A runtime that cannot be installed or run here is
 * reported with a loud `!! NOT RUN` line naming it: never counted as passed, never failing the
 * run. A suite that fails under either fails the run.
 */
import { spawn } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';
import { NODE_LTS, ROOT, binary, installRuntimes } from './runtimes.js';

/**
 * The suites that pin money behaviour: call state, retries, errors, the webhook receiver, the
 * sandbox, the intent journal with its crash recovery (real child processes killed with SIGKILL),
 * the PostgreSQL journal and event store (exactly once in the merchant's database), and the payout
 * workflow with its crash tests (each payout ends once, the chain paid at most once).
 */
const SUITES = ['test/core', 'test/reliability', 'test/webhooks', 'test/testing', 'test/journal', 'test/postgres', 'test/payouts'];

type Outcome = { readonly status: 'passed' | 'failed' | 'not run'; readonly detail: string };

/** Runs vitest on `node`, its output streamed; the exit code. */
function vitest(node: string): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(node, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...SUITES], {
      cwd: ROOT,
      // The suites' child processes (process.execPath, or `node` by name) run on the same Node.
      env: { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env['PATH'] ?? ''}` },
      stdio: 'inherit',
    });
    child.on('error', () => resolve(null));
    child.on('close', (code) => resolve(code));
  });
}

async function main(): Promise<void> {
  const results: Array<[string, Outcome]> = [];
  const failedInstall = await installRuntimes();
  for (const [name, path] of NODE_LTS) {
    if (failedInstall !== undefined) {
      results.push([name, { status: 'not run', detail: `npm ci in smoke/runtimes failed: ${failedInstall}` }]);
      continue;
    }
    const b = await binary(path, ['--version']);
    if ('skip' in b) {
      results.push([name, { status: 'not run', detail: b.skip }]);
      continue;
    }
    console.log(`== ${name}: vitest run ${SUITES.join(' ')}`);
    const started = performance.now();
    const code = await vitest(b.bin);
    const seconds = Math.round((performance.now() - started) / 1000);
    results.push([name, { status: code === 0 ? 'passed' : 'failed', detail: `${seconds} s, exit ${String(code)}` }]);
  }
  let failed = 0;
  for (const [name, outcome] of results) {
    if (outcome.status === 'passed') console.log(`== ${name}: passed (${outcome.detail})`);
    else if (outcome.status === 'not run') console.log(`!! NOT RUN under ${name}, NOT PASSED: ${outcome.detail}`);
    else {
      failed++;
      console.log(`!! FAILED under ${name} (${outcome.detail})`);
    }
  }
  if (failed > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});

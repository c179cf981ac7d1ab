/**
 * The README's quickstart, run as printed against the sandbox server: the code block is written
 * to a file unchanged except for the package name, which points at `src/` (the package is not
 * built for the suite), and runs in a child process whose only configuration is the four
 * `MERCHANT_API_*` variables the quickstart reads.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxServer } from '../../src/testing/index.js';

const run = promisify(execFile);
const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const SRC_INDEX = pathToFileURL(new URL('../../src/index.ts', import.meta.url).pathname).href;

function quickstartBlock(): string {
  const section = README.slice(README.indexOf('## Quickstart'));
  const m = /```ts\n([\s\S]*?)```/.exec(section);
  if (m === null) throw new Error('README has no ts block under ## Quickstart');
  return m[1]!;
}

describe('README quickstart', () => {
  let sandbox: Sandbox;
  let server: SandboxServer;
  let dir: string;

  beforeAll(async () => {
    sandbox = createSandbox();
    server = await sandbox.listen({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'quickstart-'));
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports only the package, and reads its configuration from the environment', () => {
    const code = quickstartBlock();
    expect([...code.matchAll(/from '([^']+)'/g)].map((m) => m[1])).toEqual(['merchant-stablecoin']);
    expect(code).toContain('new MerchantClient()');
  });

  it('runs as printed against the sandbox server: member created and funded, one withdrawal locked', async () => {
    const file = join(dir, 'quickstart.mts');
    writeFileSync(file, quickstartBlock().replace("from 'merchant-stablecoin'", `from '${SRC_INDEX}'`));
    const env: Record<string, string | undefined> = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('MERCHANT_API_')) delete env[k];
    Object.assign(env, {
      MERCHANT_API_BASE_URL: server.url,
      MERCHANT_API_CLIENT_ID: sandbox.credentials.clientId,
      MERCHANT_API_KEY: sandbox.credentials.apiKey,
      MERCHANT_API_SIGNING_KEY: sandbox.credentials.signingKey,
    });
    // A hang guard, not a speed bound: starting tsx takes seconds, more on a loaded machine.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { env, cwd: process.cwd(), timeout: 110_000 });

    expect(stdout).toMatch(/^wdr_\S+ locked$/m);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
    expect(sandbox.state.balance('ext-42', 'USDT')).toMatchObject({ available: '74.500000', withdrawing: '25.500000' });
  }, 120_000);
});

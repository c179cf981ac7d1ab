/**
 * docs/sandbox-server.md's "Call it by hand" recipe, run as printed by `sh` against a served
 * sandbox seeded with the page's own seed file, with nothing on `PATH` but the tools the page
 * names (curl, openssl, python3) and the shell's date and cut: no jq, no uuidgen. A missing tool
 * skips the test with a banner on stderr, never silently.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox, type SandboxSeed, type SandboxServer } from '../../src/testing/index.js';

const doc = readFileSync(new URL('../../docs/sandbox-server.md', import.meta.url), 'utf8');

/** The first fenced block of `lang` after `heading`. */
function blockAfter(heading: string, lang: string): string {
  const at = doc.indexOf(heading);
  if (at < 0) throw new Error(`docs/sandbox-server.md has no ${heading}`);
  const m = new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'm').exec(doc.slice(at));
  if (m === null) throw new Error(`no ${lang} block after ${heading}`);
  return m[1]!;
}

const RECIPE = blockAfter('## Call it by hand', 'sh');
const SEED = JSON.parse(blockAfter('### The seed file', 'json')) as SandboxSeed;

/** Where a tool is, or undefined. python3 by its real executable (a version manager's shim needs its own tools). */
function locate(tool: string): string | undefined {
  if (tool === 'python3') {
    const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
    return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : undefined;
  }
  const r = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim().startsWith('/') ? r.stdout.trim() : undefined;
}

const TOOLS = ['curl', 'openssl', 'python3', 'date', 'cut'];
const located = Object.fromEntries(TOOLS.map((t) => [t, locate(t)]));
const missing = TOOLS.filter((t) => located[t] === undefined);
if (missing.length > 0) process.stderr.write(`\n!! ${missing.join(', ')} not found: the sandbox-server.md recipe test is SKIPPED\n\n`);

describe.skipIf(missing.length > 0)('docs/sandbox-server.md: the curl recipe, with curl, openssl and python3 only', () => {
  let sandbox: Sandbox;
  let server: SandboxServer;
  let bin: string;

  beforeAll(async () => {
    bin = mkdtempSync(join(tmpdir(), 'recipe-bin-'));
    for (const tool of TOOLS) symlinkSync(located[tool]!, join(bin, tool));
    sandbox = createSandbox({ seed: SEED });
    server = await sandbox.listen({ port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(bin, { recursive: true, force: true });
  });

  /** Runs a script with `sh`, the PATH holding only the five tools, and the command's four exports. */
  function sh(script: string): Promise<{ code: number | null; out: string; err: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', script], {
        env: {
          PATH: bin,
          MERCHANT_API_BASE_URL: server.url,
          MERCHANT_API_CLIENT_ID: sandbox.credentials.clientId,
          MERCHANT_API_KEY: sandbox.credentials.apiKey,
          MERCHANT_API_SIGNING_KEY: sandbox.credentials.signingKey,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, out, err }));
    });
  }

  it('needs neither jq nor uuidgen', () => {
    expect(RECIPE).not.toMatch(/\b(jq|uuidgen)\b/);
    expect(RECIPE).toContain("python3 -c 'import uuid;print(uuid.uuid4())'");
  });

  it('runs as printed: the token, then a signed withdrawal with an idempotency key, locked', async () => {
    const { code, out, err } = await sh(RECIPE);
    expect(err).toBe('');
    expect(code).toBe(0);
    const order = JSON.parse(out) as Record<string, unknown>;
    expect(order).toMatchObject({ status: 'locked', asset: 'USDT', to_address: 'TQ7x1Vb9' });
    expect(order['id']).toMatch(/^wdr_/);
    const sent = sandbox.requests.find((r) => r.method === 'POST' && r.path === '/v1/withdrawals');
    expect(sent?.headers['x-idempotency-key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(sandbox.state.balance('alice', 'USDT')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
  });

  it('as it was, with $(uuidgen) where uuidgen is not installed, the write is refused idempotency_key_required', async () => {
    const old = RECIPE.replace("$(python3 -c 'import uuid;print(uuid.uuid4())')", '$(uuidgen)');
    expect(old).not.toBe(RECIPE);
    const { out } = await sh(old);
    expect(JSON.parse(out.trim().split('\n').pop()!)).toMatchObject({ code: 'idempotency_key_required' });
    expect(sandbox.state.balance('alice', 'USDT')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
  });
});

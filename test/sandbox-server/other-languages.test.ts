/**
 * The non-Node examples against the CLI sandbox, as a team in another language runs them: the
 * command's export lines as environment, Python (standard library only) and a POSIX shell script
 * (curl and openssl). Each exchanges a token, signs a withdrawal, reads the balance and prints the
 * diagnosis of a signature made over the wrong path. A missing interpreter or tool skips its test
 * with a banner on stderr, never silently.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner, exportsViaShell, type CliRun } from './cli-process.js';

const has = (cmd: string, ...args: string[]): boolean => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
const PYTHON = has('python3', '--version');
const SHELL_TOOLS = has('curl', '--version') && has('openssl', 'version');
if (!PYTHON) process.stderr.write('\n!! python3 not found: the Python example test is SKIPPED\n\n');
if (!SHELL_TOOLS) process.stderr.write('\n!! curl or openssl not found: the shell example test is SKIPPED\n\n');

const run = cliRunner('all');
const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-examples-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a program with the sandbox's exports; resolves with its exit code and output. */
function runExample(cmd: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe.skipIf(!PYTHON && !SHELL_TOOLS)('examples/other-languages against merchant-stablecoin-sandbox', () => {
  let cli: CliRun;
  let env: Record<string, string>;
  beforeAll(async () => {
    const seed = path.join(dir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        members: [{ external_member_id: 'py' }, { external_member_id: 'sh' }].map((m) => ({
          ...m,
          balances: { USDT: { available: '100' } },
        })),
      }),
    );
    cli = run(['--port', '0', '--seed', seed], {
      MERCHANT_API_CLIENT_ID: 'cli_polyglot',
      MERCHANT_API_KEY: 'ak_polyglot',
      MERCHANT_API_SIGNING_KEY: 'sk_polyglot',
    });
    await cli.line(/^# sandbox-only credentials/);
    env = await exportsViaShell(cli.stdout());
  });

  /** The member's USDT row as the admin API reads it. */
  async function usdt(member: string): Promise<Record<string, string>> {
    const res = await fetch(`${env['MERCHANT_API_BASE_URL']}/__sandbox/members/${member}/balances`);
    const { data } = (await res.json()) as { data: Array<Record<string, string>> };
    return data.find((b) => b['asset'] === 'USDT')!;
  }

  const DIAGNOSIS = 'diagnosis: path: you signed /v1/withdrawals, the request line was /v1/withdrawals?x=1';

  it.skipIf(!PYTHON)('Python (urllib, hmac, hashlib): token, signed withdrawal, balance, printed diagnosis', async () => {
    const { code, out, err } = await runExample('python3', ['examples/other-languages/sign_by_hand.py', 'py'], env);
    expect(err).toBe('');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^token: ok, expires at \d+$/);
    expect(lines[1]).toMatch(/^withdrawal: 201 wdr_[0-9a-f-]+ locked$/);
    expect(lines[2]).toBe('balance: USDT available 90.000000 withdrawing 10.000000');
    expect(lines[3]).toBe('refused: 401 invalid_signature');
    expect(lines[4]).toBe(DIAGNOSIS);
    expect(lines[5]).toMatch(/^expected string-to-sign: "POST\\n\/v1\/withdrawals\?x=1\\n\d+\\n[0-9a-f]{32}\\n[0-9a-f]{64}"$/);
    expect(await usdt('py')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
  });

  it.skipIf(!SHELL_TOOLS)('shell (curl, openssl): token, signed withdrawal, balance, printed diagnosis', async () => {
    const { code, out, err } = await runExample('sh', ['examples/other-languages/sign-by-hand.sh', 'sh'], env);
    expect(err).toBe('');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('token: ok');
    expect(lines[1]).toMatch(/^withdrawal: 201 wdr_[0-9a-f-]+$/);
    expect(lines[2]).toBe('balance: USDT available 90.000000');
    expect(lines[3]).toBe('refused: invalid_signature');
    expect(lines[4]).toBe(DIAGNOSIS);
    expect(await usdt('sh')).toMatchObject({ available: '90.000000', withdrawing: '10.000000' });
  });
});

/**
 * `merchant-stablecoin-sandbox` spawned as a child process: help, bad flags, a port in use, fixed
 * credentials from the environment and flags, a seed file, pasteable export lines, the signed API
 * and the admin API on the printed URL, and a clean stop on SIGTERM and SIGINT.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../src/index.js';
import { cliRunner, exportsViaShell } from './cli-process.js';

const run = cliRunner();
const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const READY = /^# sandbox-only credentials/;

describe('usage', () => {
  it('--help prints every option and exits 0 without listening', async () => {
    const cli = run(['--help']);
    expect(await cli.exited()).toBe(0);
    for (const flag of ['--host', '--port', '--client-id', '--api-key', '--signing-key', '--seed', '--help'])
      expect(cli.stdout()).toContain(flag);
    for (const env of ['PORT', 'HOST', 'MERCHANT_API_CLIENT_ID', 'MERCHANT_API_KEY', 'MERCHANT_API_SIGNING_KEY'])
      expect(cli.stdout()).toContain(env);
    expect(cli.stdout()).not.toContain('listening');
  });

  it('an unknown flag and a bad port value exit 2 with the reason on stderr', async () => {
    const bogus = run(['--bogus']);
    const badPort = run(['--port', 'http']);
    expect(await bogus.exited()).toBe(2);
    expect(bogus.stderr()).toContain('unknown option --bogus');
    expect(bogus.stderr()).toContain('--help');
    expect(bogus.stdout()).toBe('');
    expect(await badPort.exited()).toBe(2);
    expect(badPort.stderr()).toContain('--port must be a port number from 0 to 65535, not http');
  });

  it('a port in use exits 1 and says so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const cli = run([], { PORT: String(port) });
      expect(await cli.exited()).toBe(1);
      expect(cli.stderr()).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('a seed file that is not JSON exits 1 naming the file', async () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, '{ members: ');
    const cli = run(['--port', '0', '--seed', file]);
    expect(await cli.exited()).toBe(1);
    expect(cli.stderr()).toContain(`seed file ${file} is not valid JSON`);
  });
});

describe('serving', () => {
  it('fixed credentials, a seed file, pasteable exports, the signed and admin APIs, reset re-seeds, SIGTERM stops cleanly', async () => {
    const seed = path.join(dir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        members: [{ external_member_id: 'alice', balances: { USDT: { available: '100' } } }],
        reports: [{ status: 'ready' }],
      }),
    );
    const apiKey = "ak with 'quote' and space";
    const cli = run(['--port', '0', '--seed', seed, '--signing-key', 'sk_from_flag'], {
      MERCHANT_API_CLIENT_ID: 'cli_ci_fixed',
      MERCHANT_API_KEY: apiKey,
      MERCHANT_API_SIGNING_KEY: 'sk_from_env',
    });
    await cli.line(READY);
    const env = await exportsViaShell(cli.stdout());
    expect(env).toMatchObject({
      MERCHANT_API_CLIENT_ID: 'cli_ci_fixed',
      MERCHANT_API_KEY: apiKey,
      MERCHANT_API_SIGNING_KEY: 'sk_from_flag',
    });
    expect(env['MERCHANT_API_BASE_URL']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cli.stdout()).toContain(`# Inspector page and admin API: ${env['MERCHANT_API_BASE_URL']}/__sandbox/`);

    const base = env['MERCHANT_API_BASE_URL']!;
    const client = new MerchantClient({ baseUrl: base, clientId: 'cli_ci_fixed', apiKey, signingKey: 'sk_from_flag' });
    try {
      const rows = await client.member('alice').balances.list();
      expect(rows.map((r) => [r.asset, r.available])).toEqual([['USDT', '100.000000']]);
      await client.member('alice').withdrawals.create({ asset: 'USDT', amount: '40', to_address: 'T' });
      expect((await client.member('alice').balances.list())[0]?.available).toBe('60.000000');
      expect((await client.reports.list()).data).toHaveLength(1);

      const reset = await fetch(`${base}/__sandbox/reset`, { method: 'POST' });
      expect(reset.status).toBe(200);
      // The seed is applied again: alice is back with her 100, the credentials unchanged.
      expect((await client.member('alice').balances.list())[0]?.available).toBe('100.000000');
    } finally {
      await client.close();
    }

    cli.child.kill('SIGTERM');
    expect(await cli.exited()).toBe(0);
    expect(cli.stdout()).toContain('# sandbox stopped (SIGTERM)');
    await expect(fetch(`${base}/__sandbox/state`)).rejects.toThrow();
  });

  it('PORT and HOST from the environment; Ctrl-C (SIGINT) stops cleanly', async () => {
    const cli = run([], { PORT: '0', HOST: '127.0.0.1' });
    const line = await cli.line(/^export MERCHANT_API_BASE_URL=/);
    const base = line.slice('export MERCHANT_API_BASE_URL='.length);
    const state = await fetch(`${base}/__sandbox/state`);
    expect(state.status).toBe(200);
    await cli.line(READY);
    cli.child.kill('SIGINT');
    expect(await cli.exited()).toBe(0);
    expect(cli.stdout()).toContain('# sandbox stopped (SIGINT)');
    expect(cli.stderr()).toBe('');
  });
});

/**
 * `merchant-stablecoin-sandbox` spawned as a child process: help, bad flags, a port in use, fixed
 * credentials from the environment and flags (never printed back), a seed file, pasteable export
 * lines, the signed API and the admin API on the printed URL, the admin token beyond loopback,
 * and a clean stop on SIGTERM and SIGINT.
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
    const given = { MERCHANT_API_CLIENT_ID: 'cli_ci_fixed', MERCHANT_API_KEY: apiKey, MERCHANT_API_SIGNING_KEY: 'sk_from_env' };
    const cli = run(['--port', '0', '--seed', seed, '--signing-key', 'sk_from_flag'], given);
    await cli.line(READY);
    // Pasted into the shell that started it (the given values already set), the block adds what
    // the command generated: the base URL and the webhook secret. The flag wins over the variable.
    const env = await exportsViaShell(cli.stdout(), given);
    expect(env).toMatchObject({ ...given, MERCHANT_WEBHOOK_SECRET: expect.stringMatching(/^whsec_sbx_[0-9a-f]{32}$/) });
    expect(env['MERCHANT_SANDBOX_ADMIN_TOKEN']).toBeUndefined();
    expect(cli.stdout()).toContain('# MERCHANT_API_CLIENT_ID, MERCHANT_API_KEY, MERCHANT_API_SIGNING_KEY: as given, not printed');
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

/** Whether this machine can listen on `host` (an IPv6 wildcard needs IPv6). */
async function canListen(host: string): Promise<boolean> {
  const server = net.createServer();
  const ok = await new Promise<boolean>((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, host, () => resolve(true));
  });
  if (ok) await new Promise<void>((resolve) => server.close(() => resolve()));
  return ok;
}
const IPV6 = await canListen('::');
if (!IPV6) process.stderr.write('\n!! cannot listen on :: (no IPv6): the :: admin token test is SKIPPED\n\n');

describe('secrets and the admin API', () => {
  it('credentials and secrets given in the environment appear in neither stdout nor stderr, from start to stop', async () => {
    const given = {
      MERCHANT_API_CLIENT_ID: 'cli_live_c1ient1d_given',
      MERCHANT_API_KEY: 'ak_live_this_is_a_real_looking_key_0123456789',
      MERCHANT_API_SIGNING_KEY: 'sk_live_signing_key_given_abcdef',
      MERCHANT_WEBHOOK_SECRET: 'whsec_live_given_webhook_secret',
      MERCHANT_SANDBOX_ADMIN_TOKEN: 'adm_given_admin_token_zyxwvu',
    };
    const cli = run(['--port', '0', '--host', '0.0.0.0'], given);
    await cli.line(READY);
    const port = /^export MERCHANT_API_BASE_URL=http:\/\/0\.0\.0\.0:(\d+)$/m.exec(cli.stdout())![1]!;
    const base = `http://127.0.0.1:${port}`;
    // The given values work: the signed API with the credentials, the admin API with the token.
    const client = new MerchantClient({
      baseUrl: base,
      clientId: given.MERCHANT_API_CLIENT_ID,
      apiKey: given.MERCHANT_API_KEY,
      signingKey: given.MERCHANT_API_SIGNING_KEY,
    });
    try {
      expect((await client.assets.list()).data.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
    const state = await fetch(`${base}/__sandbox/state`, { headers: { 'x-sandbox-admin-token': given.MERCHANT_SANDBOX_ADMIN_TOKEN } });
    expect(state.status).toBe(200);
    cli.child.kill('SIGINT');
    expect(await cli.exited()).toBe(0);
    const printed = cli.stdout() + cli.stderr();
    for (const [name, value] of Object.entries(given)) expect(printed, name).not.toContain(value);
    expect(cli.stdout()).toContain(`# ${Object.keys(given).join(', ')}: as given, not printed`);
    expect(cli.stdout()).not.toMatch(/^export MERCHANT_(API_CLIENT_ID|API_KEY|API_SIGNING_KEY|WEBHOOK_SECRET|SANDBOX_ADMIN_TOKEN)=/m);
  });

  it.each([['0.0.0.0'], ['::']])(
    'bound to %s, the admin API refuses a request without the printed token (connecting to 127.0.0.1 only)',
    async (host) => {
      if (host === '::' && !IPV6) return;
      const cli = run(['--port', '0', '--host', host]);
      await cli.line(READY);
      const env = await exportsViaShell(cli.stdout());
      const token = env['MERCHANT_SANDBOX_ADMIN_TOKEN']!;
      expect(token).toMatch(/^adm_[0-9a-f]{48}$/);
      expect(cli.stdout()).toContain('# The admin API requires the header x-sandbox-admin-token: $MERCHANT_SANDBOX_ADMIN_TOKEN');
      const port = new URL(env['MERCHANT_API_BASE_URL']!).port;
      const base = `http://127.0.0.1:${port}`;
      for (const [method, route] of [
        ['GET', '/__sandbox/state'],
        ['GET', '/__sandbox/'],
        ['POST', '/__sandbox/clock'],
        ['POST', '/__sandbox/reset'],
      ] as const) {
        const bare = await fetch(`${base}${route}`, { method, ...(method === 'POST' ? { body: '{"advance_ms": 1}' } : {}) });
        expect(bare.status, `${method} ${route}`).toBe(401);
        expect(((await bare.json()) as { error: string }).error).toContain('x-sandbox-admin-token');
        const wrong = await fetch(`${base}${route}`, { method, headers: { 'x-sandbox-admin-token': `${token}x` } });
        expect(wrong.status, `${method} ${route} with a wrong token`).toBe(401);
      }
      // The OpenAPI document the package ships is public: a generator fetches it without the token.
      const openapi = await fetch(`${base}/__sandbox/openapi.json`);
      expect(openapi.status).toBe(200);
      expect(((await openapi.json()) as { openapi: string }).openapi).toMatch(/^3\.1/);
      const before = (await (await fetch(`${base}/__sandbox/clock`, { headers: { 'x-sandbox-admin-token': token } })).json()) as {
        now_ms: number;
      };
      const moved = await fetch(`${base}/__sandbox/clock`, {
        method: 'POST',
        headers: { 'x-sandbox-admin-token': token },
        body: JSON.stringify({ freeze: before.now_ms }),
      });
      expect(moved.status).toBe(200);
      // The signed API keeps its own authentication: the generated credentials work, no admin token needed.
      const client = new MerchantClient({
        baseUrl: base,
        clientId: env['MERCHANT_API_CLIENT_ID']!,
        apiKey: env['MERCHANT_API_KEY']!,
        signingKey: env['MERCHANT_API_SIGNING_KEY']!,
      });
      try {
        expect((await client.assets.list()).data.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
      cli.child.kill('SIGTERM');
      expect(await cli.exited()).toBe(0);
    },
  );
});

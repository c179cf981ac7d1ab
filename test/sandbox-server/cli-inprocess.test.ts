/**
 * The sandbox command's logic in this process (the spawned tests in cli.test.ts run it as users
 * do, but a child process is not measured by coverage): what it prints and the exit code it asks
 * for, for each option and failure, with a real server on a real port.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseArgs } from '../../src/testing/cli/args.js';
import { runCli } from '../../src/testing/cli/main.js';

const dir = mkdtempSync(path.join(tmpdir(), 'sandbox-cli-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the command with an io that records; `stop` is the registered stop handler, once serving. */
async function cli(argv: string[], env: Record<string, string> = {}) {
  const rec = { out: '', err: '', codes: [] as number[], stop: undefined as ((signal: string) => void) | undefined };
  let exited: () => void = () => undefined;
  const exit = new Promise<void>((r) => (exited = r));
  await runCli(argv, env, {
    out: (t) => (rec.out += t),
    err: (t) => (rec.err += t),
    exit: (code) => {
      rec.codes.push(code);
      exited();
    },
    onStop: (stop) => (rec.stop = stop),
  });
  return { ...rec, exit };
}

describe('parseArgs', () => {
  it('flags win over the environment; --flag=value and --flag value both work; defaults otherwise', () => {
    expect(parseArgs([], {})).toEqual({
      help: false,
      host: '127.0.0.1',
      port: 4010,
      clientId: undefined,
      apiKey: undefined,
      signingKey: undefined,
      webhookSecret: undefined,
      adminToken: undefined,
      signatureSkewMs: 0,
      seedFile: undefined,
    });
    const env = {
      PORT: '5000',
      HOST: '0.0.0.0',
      MERCHANT_API_CLIENT_ID: 'c-env',
      MERCHANT_API_KEY: 'k-env',
      MERCHANT_API_SIGNING_KEY: 's-env',
      MERCHANT_WEBHOOK_SECRET: 'w-env',
      MERCHANT_SANDBOX_ADMIN_TOKEN: 'a-env',
      MERCHANT_SANDBOX_SIGNATURE_SKEW_MS: '-600000',
    };
    expect(parseArgs(['--port=6000', '--client-id', 'c-flag', '--seed=s.json', '--webhook-secret', 'w-flag'], env)).toEqual({
      help: false,
      host: '0.0.0.0',
      port: 6000,
      clientId: 'c-flag',
      apiKey: 'k-env',
      signingKey: 's-env',
      webhookSecret: 'w-flag',
      adminToken: 'a-env',
      signatureSkewMs: -600_000,
      seedFile: 's.json',
    });
    expect(parseArgs(['--admin-token=a-flag', '--signature-skew-ms', '900000'], env)).toMatchObject({
      adminToken: 'a-flag',
      signatureSkewMs: 900_000,
    });
    expect(parseArgs(['-h'], { PORT: '' }).help).toBe(true);
  });

  it.each([
    [['--port'], '--port needs a value'],
    [['--api-key='], '--api-key needs a value'],
    [['serve'], 'unexpected argument serve'],
    [['--port', '70000'], '--port must be a port number from 0 to 65535, not 70000'],
    [['--signature-skew-ms', '10m'], '--signature-skew-ms must be a whole number of milliseconds (negative: behind), not 10m'],
  ])('%j is refused: %s', (argv, message) => {
    expect(() => parseArgs(argv, {})).toThrow(message);
  });

  it('a bad PORT is named as PORT, a bad skew as its variable', () => {
    expect(() => parseArgs([], { PORT: '-1' })).toThrow('PORT must be a port number from 0 to 65535, not -1');
    expect(() => parseArgs([], { MERCHANT_SANDBOX_SIGNATURE_SKEW_MS: '1.5' })).toThrow('MERCHANT_SANDBOX_SIGNATURE_SKEW_MS must be');
  });
});

describe('runCli', () => {
  it('--help prints the usage and asks for exit 0', async () => {
    const r = await cli(['--help']);
    expect(r.out).toMatch(/^Usage: merchant-stablecoin-sandbox/);
    expect(r.codes).toEqual([0]);
  });

  it('a usage error asks for exit 2', async () => {
    const r = await cli(['--nope']);
    expect(r.err).toBe('merchant-stablecoin-sandbox: unknown option --nope\nRun merchant-stablecoin-sandbox --help for the options.\n');
    expect(r.codes).toEqual([2]);
  });

  it.each([
    ['missing', undefined, /cannot read seed file .*missing\.json: ENOENT/],
    ['array', '[]', /seed: must be a JSON object/],
    ['unknown-key', '{"catalogues": []}', /seed: unknown key catalogues/],
    ['not-a-list', '{"members": {}}', /seed: members must be an array/],
    ['bad-entry', '{"members": [1]}', /seed: members\[0\] must be an object/],
    ['bad-member', '{"cards": [{"member": "ghost"}]}', /seed: cards\[0\]: sandbox: no member ghost/],
  ])('a %s seed file asks for exit 1 with the reason', async (name, content, message) => {
    const file = path.join(dir, `${name}.json`);
    if (content !== undefined) writeFileSync(file, content);
    const r = await cli(['--port', '0', '--seed', file]);
    expect(r.err).toMatch(message);
    expect(r.codes).toEqual([1]);
    expect(r.out).toBe('');
  });

  it('an address that is not local asks for exit 1', async () => {
    const r = await cli(['--port', '0', '--host', '192.0.2.1']);
    expect(r.err).toContain('cannot listen on 192.0.2.1');
    expect(r.codes).toEqual([1]);
  });

  it('serves with quoted exports until stopped, then prints the stop and asks for exit 0', async () => {
    const file = path.join(dir, 'ok.json');
    writeFileSync(file, JSON.stringify({ members: [{ external_member_id: 'zed' }] }));
    const r = await cli(['--port', '0', '--seed', file, '--api-key', "it's"], { MERCHANT_API_SIGNING_KEY: 'sk env' });
    expect(r.codes).toEqual([]);
    // Given values are named, never printed; generated ones are exported.
    expect(r.out).not.toContain("it's");
    expect(r.out).not.toContain('sk env');
    expect(r.out).toContain('# MERCHANT_API_KEY, MERCHANT_API_SIGNING_KEY: as given, not printed\n');
    expect(r.out).toMatch(/^export MERCHANT_API_CLIENT_ID=cli_sbx_[0-9a-f]{16}$/m);
    expect(r.out).toMatch(/^export MERCHANT_WEBHOOK_SECRET=whsec_sbx_[0-9a-f]{32}$/m);
    expect(r.out).not.toContain('MERCHANT_SANDBOX_ADMIN_TOKEN');
    expect(r.out).toContain(`# Seeded from ${file} (members: 1)`);
    const base = /^export MERCHANT_API_BASE_URL=(\S+)$/m.exec(r.out)![1]!;
    const members = (await (await fetch(`${base}/__sandbox/members`)).json()) as { data: Array<{ external_member_id: string }> };
    expect(members.data.map((m) => m.external_member_id)).toEqual(['zed']);
    r.stop!('SIGTERM');
    await r.exit;
    expect(r.codes).toEqual([0]);
    await expect(fetch(`${base}/__sandbox/members`)).rejects.toThrow();
  });

  it('--webhook-secret signs deliveries and --admin-token guards the admin API on loopback too; neither is printed', async () => {
    const got: Array<{ signature: string | undefined; body: string }> = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        got.push({ signature: req.headers['z-signature'] as string | undefined, body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const r = await cli([
      '--port',
      '0',
      '--webhook-secret',
      'whsec_from_flag',
      '--admin-token',
      'adm_from_flag',
      '--signature-skew-ms',
      '-600000',
    ]);
    try {
      expect(r.out).not.toContain('whsec_from_flag');
      expect(r.out).not.toContain('adm_from_flag');
      expect(r.out).toContain('# MERCHANT_WEBHOOK_SECRET, MERCHANT_SANDBOX_ADMIN_TOKEN: as given, not printed');
      expect(r.out).toContain('# Signatures are checked against real time - 600000 ms');
      const base = /^export MERCHANT_API_BASE_URL=(\S+)$/m.exec(r.out)![1]!;
      const admin = (route: string, body?: unknown, token = 'adm_from_flag') =>
        fetch(`${base}${route}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers: { 'x-sandbox-admin-token': token },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      expect((await admin('/__sandbox/state', undefined, '')).status).toBe(401);
      expect(((await (await admin('/__sandbox/clock')).json()) as { signature_skew_ms: number }).signature_skew_ms).toBe(-600_000);
      expect((await admin('/__sandbox/webhooks/receivers', { url: hook })).status).toBe(201);
      expect(
        (
          await admin('/__sandbox/webhooks/events', {
            event_type: 'card.activated',
            data: { object: 'card', id: 'crd_1', status: 'active' },
          })
        ).status,
      ).toBe(201);
      expect(got).toHaveLength(1);
      expect(got[0]!.signature).toBe(createHmac('sha256', 'whsec_from_flag').update(got[0]!.body).digest('hex'));
    } finally {
      r.stop!('SIGTERM');
      await r.exit;
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  });
});

/**
 * The non-Node examples against the CLI sandbox, as a team in another language runs them: the
 * command's export lines as environment, Python (standard library only) and a POSIX shell script
 * (curl and openssl). Each exchanges a token, signs a withdrawal, reads the balance and prints the
 * diagnosis of a signature made over the wrong path; a Python receiver and a shell script verify
 * webhook deliveries with the secret the command printed; a Python client moves business time 25
 * hours, keeps signing with its own clock, meets the signature skew setting and puts both clocks
 * back; another seeds a QR code through the admin API and pays it. A missing
 * interpreter or tool skips its test with a banner on stderr, never silently.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient } from '../../src/index.js';
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
        members: [
          { external_member_id: 'py' },
          { external_member_id: 'sh' },
          { external_member_id: 'tt' },
          { external_member_id: 'qr' },
        ].map((m) => ({
          ...m,
          balances: { USDT: { available: '100' } },
        })),
      }),
    );
    const given = { MERCHANT_API_CLIENT_ID: 'cli_polyglot', MERCHANT_API_KEY: 'ak_polyglot', MERCHANT_API_SIGNING_KEY: 'sk_polyglot' };
    cli = run(['--port', '0', '--seed', seed], given);
    await cli.line(/^# sandbox-only credentials/);
    // The given credentials are not printed: the shell that started the command already has them.
    env = await exportsViaShell(cli.stdout(), given);
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

  /** The admin API, as a test in any language calls it. */
  async function admin<T>(method: string, route: string, body?: unknown): Promise<T> {
    const res = await fetch(`${env['MERCHANT_API_BASE_URL']}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as T;
  }

  interface Clocks {
    now_ms: number;
    signature_skew_ms: number;
  }

  interface Delivery {
    event_id: string;
    status: number | null;
    body: string;
    headers: Record<string, string>;
  }

  /** Starts the Python receiver; resolves with the process and the port it listens on. */
  async function pythonReceiver(secret: string, count: number): Promise<{ child: ChildProcess; port: number; out: () => string }> {
    const child = spawn('python3', ['examples/other-languages/verify_webhook.py', '0', String(count)], {
      env: { ...process.env, MERCHANT_WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        const m = /^listening on (\d+)$/m.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('close', (code) => reject(new Error(`receiver exited ${code}: ${out} ${err}`)));
    });
    return { child, port, out: () => out + err };
  }

  it.skipIf(!PYTHON)('Python receiver: verifies a delivery with the secret the command printed; a wrong secret refuses it', async () => {
    const secret = env['MERCHANT_WEBHOOK_SECRET']!;
    expect(secret).toMatch(/^whsec_sbx_[0-9a-f]{32}$/);
    expect(cli.stdout()).toContain(`export MERCHANT_WEBHOOK_SECRET=${secret}`);

    const good = await pythonReceiver(secret, 1);
    const url = `http://127.0.0.1:${good.port}/hooks`;
    await admin('POST', '/__sandbox/webhooks/receivers', { url });
    const emitted = await admin<{ event: { event_id: string }; deliveries: Delivery[] }>('POST', '/__sandbox/webhooks/events', {
      event_type: 'card.status.updated',
      data: { object: 'card', id: 'crd_py', status: 'frozen' },
    });
    await new Promise((resolve) => good.child.once('close', resolve));
    expect(good.out().trim().split('\n').slice(1)).toEqual([`verified: ${emitted.event.event_id} card.status.updated frozen`]);
    expect(emitted.deliveries.map((d) => d.status)).toEqual([200]);
    // The delivery record carries the headers sent; its signature is the scheme the docs describe.
    const [delivery] = emitted.deliveries;
    expect(delivery!.headers).toMatchObject({
      'content-type': 'application/json',
      'z-event-id': emitted.event.event_id,
      'z-event-type': 'card.status.updated',
      'z-signature': createHmac('sha256', secret).update(delivery!.body, 'utf8').digest('hex'),
    });
    await admin('DELETE', `/__sandbox/webhooks/receivers?url=${encodeURIComponent(url)}`);

    // A receiver holding another secret refuses every attempt (401), and the sandbox retries.
    const wrong = await pythonReceiver(`${secret}-not`, 5);
    const wrongUrl = `http://127.0.0.1:${wrong.port}/hooks`;
    await admin('POST', '/__sandbox/webhooks/receivers', { url: wrongUrl });
    const refused = await admin<{ deliveries: Delivery[] }>('POST', '/__sandbox/webhooks/events', {
      event_type: 'card.status.updated',
      data: { object: 'card', id: 'crd_py', status: 'active' },
    });
    await new Promise((resolve) => wrong.child.once('close', resolve));
    await admin('DELETE', `/__sandbox/webhooks/receivers?url=${encodeURIComponent(wrongUrl)}`);
    expect(refused.deliveries.map((d) => d.status)).toEqual([401, 401, 401, 401, 401]);
    expect(wrong.out().trim().split('\n').slice(1)).toHaveLength(5);
    expect(wrong.out()).toMatch(/^refused: evt_[0-9a-f]{32} z-signature does not match$/m);
  });

  it.skipIf(!SHELL_TOOLS)('shell (openssl): verifies a delivery record with the printed secret; a changed body is refused', async () => {
    const url = 'http://127.0.0.1:9/never-listening';
    await admin('POST', '/__sandbox/webhooks/receivers', { url });
    await admin('POST', '/__sandbox/webhooks/events', {
      event_type: 'card.activated',
      data: { object: 'card', id: 'crd_sh', status: 'active' },
    });
    await admin('DELETE', '/__sandbox/webhooks/receivers');
    const { deliveries } = await admin<{ deliveries: Delivery[] }>('GET', '/__sandbox/webhooks');
    const record = deliveries.find((d) => d.body.includes('crd_sh'))!;
    const bodyFile = path.join(dir, 'delivery.json');
    writeFileSync(bodyFile, record.body);
    const secretEnv = { MERCHANT_WEBHOOK_SECRET: env['MERCHANT_WEBHOOK_SECRET']! };
    const ok = await runExample('sh', ['examples/other-languages/verify-webhook.sh', bodyFile, record.headers['z-signature']!], secretEnv);
    expect(ok).toEqual({ code: 0, out: 'verified\n', err: '' });
    writeFileSync(bodyFile, record.body.replace('crd_sh', 'crd_sx'));
    const bad = await runExample('sh', ['examples/other-languages/verify-webhook.sh', bodyFile, record.headers['z-signature']!], secretEnv);
    expect(bad).toEqual({ code: 1, out: 'refused: z-signature does not match the body\n', err: '' });
  });

  it.skipIf(!PYTHON)(
    'Python: 25 hours of business time later a hand-signed write succeeds, the idempotency window has passed, and a default MerchantClient still works; the skew setting refuses',
    async () => {
      const before = await admin<Clocks>('GET', '/__sandbox/clock');
      const { code, out, err } = await runExample('python3', ['examples/other-languages/time_travel.py', 'tt'], env);
      expect(err).toBe('');
      expect(code).toBe(0);
      const lines = out.trim().split('\n');
      const first = /^first write: 201 (wdr_[0-9a-f-]+)$/.exec(lines[0]!)?.[1];
      expect(first).toBeDefined();
      expect(lines[1]).toBe(`same key: 201 ${first} (replay)`);
      expect(lines[2]).toMatch(/^business clock: \S+ \| signature skew: 0$/);
      const business = Date.parse(lines[2]!.split(' ')[2]!);
      expect(business - Date.now()).toBeGreaterThan(24 * 3_600_000);
      // The token exchanged before the move expired with business time; once renewed, the same
      // key after 25 hours is a new order, not a replay, signed with the script's own clock.
      expect(lines[3]).toBe('token: expired, exchanged again');
      const later = /^same key after 25 h: 201 (wdr_[0-9a-f-]+)$/.exec(lines[4]!)?.[1];
      expect(later).toBeDefined();
      expect(later).not.toBe(first);
      expect(lines[5]).toBe('signature clock 10 min ahead: 401 timestamp_out_of_range');
      expect(lines[6]).toMatch(/^clocks put back: business \S+ \| signature skew: 0$/);
      expect(lines).toHaveLength(7);
      expect(await usdt('tt')).toMatchObject({ available: '80.000000', withdrawing: '20.000000' });
      // The shared sandbox is back on time: business time moved on only by the real time the
      // script took (far less than the 25 hours it jumped), and signatures are on real time.
      const after = await admin<Clocks>('GET', '/__sandbox/clock');
      expect(after.signature_skew_ms).toBe(0);
      expect(after.now_ms - before.now_ms).toBeGreaterThanOrEqual(0);
      expect(after.now_ms - before.now_ms).toBeLessThan(3_600_000);
      expect(Date.parse(lines[6]!.split(' ')[4]!)).toBeLessThan(business - 24 * 3_600_000);

      // A default client (no clock setting) on the same sandbox, business time 25 h ahead again.
      const DAY_AND_HOUR = 25 * 3_600_000;
      await admin('POST', '/__sandbox/clock', { advance_ms: DAY_AND_HOUR });
      const client = new MerchantClient({
        baseUrl: env['MERCHANT_API_BASE_URL']!,
        clientId: env['MERCHANT_API_CLIENT_ID']!,
        apiKey: env['MERCHANT_API_KEY']!,
        signingKey: env['MERCHANT_API_SIGNING_KEY']!,
      });
      try {
        await client.member('tt').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T-node' });
        expect((await client.member('tt').balances.list())[0]).toMatchObject({ available: '79.000000' });
        expect(client.clockOffsetMs).toBe(0);
      } finally {
        await client.close();
        await admin('POST', '/__sandbox/clock', { advance_ms: -DAY_AND_HOUR });
      }
    },
  );
  it.skipIf(!PYTHON)('Python: a QR code seeded through the admin API is decoded, quoted and paid with signed calls', async () => {
    const { code, out, err } = await runExample('python3', ['examples/other-languages/qr_pay.py', 'qr'], env);
    expect(err).toBe('');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe('seeded: table-7');
    expect(lines[1]).toBe('decoded: Noodle Bar 360.00 THB fixed');
    expect(lines[2]).toMatch(/^quote: USDT \d+\.\d{6} fee \d+\.\d{6}$/);
    const paid = /^paid: 201 qrp_[0-9a-f-]+ completed USDT (\d+\.\d{6})$/.exec(lines[3]!)?.[1];
    expect(paid).toBeDefined();
    // What the member was debited is the payment's amount, read back through the admin API.
    const left = (100_000_000 - Math.round(Number(paid) * 1_000_000)) / 1_000_000;
    expect(lines[4]).toBe(`balance: USDT available ${left.toFixed(6)}`);
    expect(lines).toHaveLength(5);
    expect(await usdt('qr')).toMatchObject({ available: left.toFixed(6) });
  });
});

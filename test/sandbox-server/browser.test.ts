/**
 * The inspector page in a real browser: headless Chromium loads `GET /__sandbox/` from the
 * sandbox server, its DOM after rendering is read back (`--dump-dom`), and a screenshot is written
 * to `test-results/inspector.png`. `.ci/run` installs Debian's `chromium`; without one this file
 * skips with a loud banner (like the fleet tests without `redis-server`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { servedWorlds } from '../testing/served.js';
import { rawCaller } from './raw.js';

const CHROMIUM = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find(
  (p): p is string => p !== undefined && p !== '' && existsSync(p),
);
if (CHROMIUM === undefined) {
  console.warn('\n!! BROWSER TEST SKIPPED: no chromium found (CHROMIUM_PATH, /usr/bin/chromium); .ci/run installs it. !!\n');
}

const SCREENSHOT = resolve('test-results', 'inspector.png');

/** Runs headless Chromium with `args` on `url`; resolves with its stdout. */
function chromium(args: readonly string[], url: string): Promise<string> {
  // A profile of its own per run, so parallel runs never share one.
  const profile = join(tmpdir(), `ms-chromium-${process.pid}-${Math.random().toString(16).slice(2)}`);
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', `--user-data-dir=${profile}`];
  return new Promise((done, fail) => {
    execFile(CHROMIUM!, [...flags, ...args, url], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      rmSync(profile, { recursive: true, force: true });
      if (err) fail(new Error(`chromium: ${err.message}`, { cause: err }));
      else done(stdout);
    });
  });
}

const serve = servedWorlds();

describe.skipIf(CHROMIUM === undefined)('the inspector page in headless Chromium', () => {
  it('renders the request log with the signature diagnosis and the eight buckets, and is saved as a screenshot', async () => {
    const { sandbox, server, client } = await serve();
    sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '250', locked: '5' } } });
    await client.member('alice').withdrawals.create({ asset: 'USDT', amount: '25', to_address: 'TQ7x1Vb9' });
    const call = await rawCaller(sandbox, server);
    const body = JSON.stringify({ asset: 'USDT', amount: '1', to_address: 'T' });
    const refused = await call({ path: '/v1/withdrawals?x=1', body, member: 'alice', signed: { path: '/v1/withdrawals' } });
    expect(refused.body['code']).toBe('invalid_signature');

    const url = `${server.url}/__sandbox/`;
    const dom = await chromium(['--dump-dom'], url);
    // What the browser rendered: the rows and the diagnosis, values escaped, no secret.
    expect(dom).toContain('/v1/withdrawals?x=1');
    expect(dom).toContain('invalid_signature');
    expect(dom).toContain('you signed /v1/withdrawals, the request line was /v1/withdrawals?x=1');
    expect(dom).toContain('alice');
    for (const bucket of ['available', 'pending', 'frozen', 'isolated', 'locked', 'card', 'earn', 'withdrawing'])
      expect(dom).toContain(bucket);
    expect(dom).toContain('225');
    const { signingKey, apiKey } = sandbox.credentials;
    expect(dom).not.toContain(signingKey);
    expect(dom).not.toContain(apiKey);

    mkdirSync(resolve('test-results'), { recursive: true });
    rmSync(SCREENSHOT, { force: true });
    await chromium([`--screenshot=${SCREENSHOT}`, '--window-size=1400,1000', '--hide-scrollbars'], url);
    const png = readFileSync(SCREENSHOT);
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: the width and height asked for.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1400, 1000]);
  });
});

/**
 * The inspector page in a real browser: headless Chromium loads `GET /__sandbox/` from the
 * sandbox server, its DOM after rendering is read back (`--dump-dom`), and a screenshot is written
 * to `test-results/inspector.png`. At 1,400 px, a request log with a very long path is laid out
 * by the browser and the cells' boxes are read back: status and code stay on screen. `.ci/run`
 * installs Debian's `chromium`; without one this file skips with a loud banner (like the fleet
 * tests without `redis-server`).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/**
 * Added to a copy of the page (which has no script of its own): once laid out, writes the
 * viewport's width, the document's scroll width and the box of every request-log header, status
 * and code cell into an attribute that `--dump-dom` prints.
 */
const MEASURE = `<script>
const boxes = [...document.querySelectorAll('#requests th, #requests td.status, #requests td.code')].map((e) => {
  const r = e.getBoundingClientRect();
  return { cell: e.tagName === 'TH' ? e.textContent : e.className, left: r.left, right: r.right };
});
const root = document.documentElement;
document.body.setAttribute('data-layout', JSON.stringify({ viewport: root.clientWidth, scroll: root.scrollWidth, boxes }));
</script>`;

interface Layout {
  viewport: number;
  scroll: number;
  boxes: Array<{ cell: string; left: number; right: number }>;
}

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
  it('at 1,400 px a long path wraps: status and code stay inside the viewport, nothing scrolls sideways', async () => {
    const { sandbox, server } = await serve();
    sandbox.state.seedMember({ external_member_id: 'alice', balances: { USDT: { available: '10' } } });
    const long = `/v1/withdrawals?cursor=${'c'.repeat(400)}&limit=50`;
    // A long path on the request line, and a refused signature whose diagnosis quotes it.
    expect((await fetch(`${server.url}${long}`)).status).toBe(401);
    const call = await rawCaller(sandbox, server);
    const body = JSON.stringify({ asset: 'USDT', amount: '1', to_address: 'T' });
    const refused = await call({ path: long, body, member: 'alice', signed: { path: '/v1/withdrawals' } });
    expect(refused.body['code']).toBe('invalid_signature');

    const page = await fetch(`${server.url}/__sandbox/`).then((r) => r.text());
    const dir = mkdtempSync(join(tmpdir(), 'ms-inspector-'));
    try {
      const file = join(dir, 'inspector.html');
      writeFileSync(file, page.replace('</body>', `${MEASURE}</body>`));
      const dom = await chromium(['--window-size=1400,1000', '--hide-scrollbars', '--dump-dom'], pathToFileURL(file).href);
      const attr = /data-layout="([^"]*)"/.exec(dom)?.[1];
      expect(attr).toBeDefined();
      const layout = JSON.parse(attr!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as Layout;
      expect(layout.viewport).toBe(1400);
      expect(layout.scroll).toBeLessThanOrEqual(layout.viewport);
      const cells = layout.boxes.filter((b) => b.cell === 'status' || b.cell === 'code');
      // The header and three rows (the long GET, the caller's token exchange, the refused write).
      expect(cells).toHaveLength(8);
      for (const b of cells) {
        expect(b.left, JSON.stringify(b)).toBeGreaterThanOrEqual(0);
        expect(b.right, JSON.stringify(b)).toBeLessThanOrEqual(layout.viewport);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // The same page as a screenshot at that width, to look at.
    mkdirSync(resolve('test-results'), { recursive: true });
    const shot = resolve('test-results', 'inspector-long-path.png');
    rmSync(shot, { force: true });
    await chromium([`--screenshot=${shot}`, '--window-size=1400,1000', '--hide-scrollbars'], `${server.url}/__sandbox/`);
    const png = readFileSync(shot);
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1400, 1000]);
  });
});

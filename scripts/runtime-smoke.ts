/**
 * Runtime smoke: the packed tarball, installed as a user installs it, runs the quickstart flow
 * (token, faucet, member, deposit, withdrawal, `for await` over reports, an error branch on
 * `code`, `close()` twice) with default client settings against the sandbox server, a signed
 * webhook delivery through `merchant-stablecoin/webhooks` (`handle`, a verify hook in Web
 * Crypto, a duplicate, a forged copy), and two failing paths (a refused connection during the
 * token exchange; a withdrawal answered 504 whose token renewal then fails), each asserting the
 * typed error with the withdrawal's key and call state, on every runtime at hand. `npm run smoke:runtimes` (`npx tsx scripts/runtime-smoke.ts [--keep]`).
 *
 * - Node (the one running this script) always: from the installed package, and from an esbuild
 *   bundle (platform node, ESM; and platform-neutral) run where no node_modules is at hand.
 * - Node 22 and 24, Bun, Deno (`--allow-net` only) and workerd (with and without
 *   `nodejs_compat`): their npm packages carry the binary and are installed by `npm ci` into
 *   `smoke/runtimes/node_modules` (a cache folder, never the SDK's own install). A runtime whose
 *   package cannot be installed or run on this machine is skipped with a loud `!! SKIPPED` line
 *   naming it; it never counts as passed, and never fails the run.
 *
 * - msw 3 (which needs Node 22.12 or later) on Node 22 and 24: installed beside the tarball, as a
 *   user installs it (the peer range admits it), runs the merchant suite of
 *   examples/msw-merchant-suite.test.ts (msw 2 there): a client with default settings, the
 *   merchant's own handlers answer a withdrawal and an `insufficient_balance`, and a request
 *   without a handler fails once with msw's error as its cause, reported once by msw.
 *
 * The sandbox server runs under the Node running this script, from the installed tarball's
 * `merchant-stablecoin/testing`. Exits non-zero when a runtime that could run failed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MSW3, NODE_LTS, NPM, ROOT, binary, clean, installRuntimes, run, type RunResult } from './runtimes.js';

const ESBUILD = join(ROOT, 'node_modules', '.bin', 'esbuild');
const keep = process.argv.includes('--keep');

async function must(command: string, args: readonly string[], options: Parameters<typeof run>[2] = {}): Promise<string> {
  const r = await run(command, args, options);
  if (r.code !== 0) throw new Error(`\`${[command, ...args].join(' ')}\` exited ${String(r.code)}:\n${clean(r.output)}`);
  return clean(r.output);
}

/** The quickstart flow, written for every runtime: no `process`, no `node:` module. */
const FLOW = `import { MerchantClient, isApiError } from 'merchant-stablecoin';
import { createWebhookHandler } from 'merchant-stablecoin/webhooks';

/** The sandbox's z-signature (hex HMAC-SHA256 of the raw body), in Web Crypto: no Buffer, no node: module. */
async function webCryptoVerify(secret, raw, signature) {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, raw));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('') === signature;
}

/** A signed delivery the sandbox emitted: processed once, its duplicate acknowledged, a forged copy refused. */
async function webhook({ body, headers, secret }) {
  const seen = [];
  const handler = createWebhookHandler({
    verify: (raw, h) => webCryptoVerify(secret, raw, h['z-signature']),
    onEvent: (event) => void seen.push(event.event_type),
  });
  const first = await handler.handle(body, headers);
  const again = await handler.handle(new TextEncoder().encode(body), headers);
  const forged = await handler.handle(body.replace('"status":"active"', '"status":"frozen"'), headers);
  const outcomes = [first.outcome, again.outcome, forged.outcome].join(',');
  if (outcomes !== 'processed,duplicate,invalid_signature' || seen.length !== 1) throw new Error('webhook ' + outcomes + ' ' + seen);
  return 'webhook:' + seen[0];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FAILING_ORDER = { asset: 'USDT', amount: '1.00', to_address: 'TQ7x1Vb9smokeAddress' };

/** A failing path's error as the caller must get it: the SDK's class, the withdrawal's key, its call state, a stack. */
function callStateOf(label, err, name, sent) {
  const fail = (what) => {
    throw new Error(label + ': ' + what + ': ' + (err && err.stack ? err.stack : String(err)));
  };
  if (!(err instanceof Error) || err.name !== name) fail('expected ' + name);
  const key = err.idempotencyKey;
  if (!UUID.test(String(key))) fail('no idempotency key');
  if (!err.call || err.call.idempotencyKey !== key || err.call.sent !== sent) fail('call state ' + JSON.stringify(err.call));
  if (typeof err.stack !== 'string' || !err.stack.includes(name)) fail('no stack');
  return label + ':' + name + '/' + sent;
}

/**
 * The failing paths on this runtime: a refused connection during the token exchange (nothing
 * reached the service), and a withdrawal answered 504 whose token renewal then fails (the
 * renewal's error, with the withdrawal's key: it may have executed).
 */
async function failingPaths(settings) {
  const { clientId, apiKey, signingKey, member } = settings;
  const steps = [];
  const refused = new MerchantClient({ baseUrl: settings.refusedUrl, clientId, apiKey, signingKey, maxRetries: 0 });
  try {
    const err = await refused.member(member).withdrawals.create(FAILING_ORDER).then(() => undefined, (e) => e);
    steps.push(callStateOf('refused', err, 'ConnectionError', 'no'));
  } finally {
    await refused.close();
  }
  // The hostile server keeps one state per run, named by the base URL's path.
  const backoff = { baseDelayMs: 1, maxDelayMs: 5 };
  const hostile = new MerchantClient({ baseUrl: settings.hostileUrl + '/' + member, clientId, apiKey, signingKey, backoff });
  try {
    const err = await hostile.member(member).withdrawals.create(FAILING_ORDER).then(() => undefined, (e) => e);
    if (!isApiError(err, 'invalid_credentials') || !err.message.includes('may have executed')) throw new Error('504+renewal: ' + (err && err.stack ? err.stack : String(err)));
    steps.push(callStateOf('504+renewal', err, 'ApiError', 'yes'));
  } finally {
    await hostile.close();
  }
  return steps.join(' ');
}

export async function quickstart(settings) {
  const { baseUrl, clientId, apiKey, signingKey, member } = settings;
  // Default settings: no transport, no fetch, no dispatcher.
  const client = new MerchantClient({ baseUrl, clientId, apiKey, signingKey });
  const steps = [];
  try {
    const assets = await client.assets.list();
    steps.push('token+assets:' + assets.data.length);
    const credit = await client.sandbox.faucet({ asset: 'USDT', amount: '1000' });
    if (credit.credited !== '1000.000000') throw new Error('faucet credited ' + credit.credited);
    steps.push('faucet');
    await client.members.create({ external_member_id: member });
    const view = client.member(member);
    await view.deposits.declare({ asset: 'USDT', amount: '250.00' });
    steps.push('member');
    const order = await view.withdrawals.create({ asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9smokeAddress' });
    if (order.status !== 'locked' || order.amount !== '25.500000') throw new Error('withdrawal ' + JSON.stringify(order));
    steps.push('withdrawal');
    let reports = 0;
    for await (const report of client.reports.list({ limit: 20 })) if (typeof report.id === 'string') reports++;
    if (reports !== 45) throw new Error('reports walked: ' + reports);
    steps.push('reports:' + reports);
    try {
      await view.withdrawals.create({ asset: 'USDT', amount: '1000000', to_address: 'TQ7x1Vb9smokeAddress' });
      throw new Error('an overdraft was accepted');
    } catch (err) {
      if (!isApiError(err, 'insufficient_balance')) throw err;
    }
    steps.push('error:insufficient_balance');
    steps.push(await webhook(settings.delivery));
    steps.push(await failingPaths(settings));
  } finally {
    await client.close();
  }
  await client.close();
  steps.push('closed');
  return steps.join(' ');
}
`;

/** Node, Bun and Deno: settings as the one argument, the steps on stdout. */
const MAIN = `import { quickstart } from './flow.mjs';
const args = globalThis.Deno ? globalThis.Deno.args : globalThis.process.argv.slice(2);
console.log('SMOKE OK ' + (await quickstart(JSON.parse(args[0]))));
`;

/** workerd: the flow runs inside a request (workerd allows I/O only there). */
const WORKER = `import { quickstart } from './flow.mjs';
export default {
  async fetch(request) {
    try {
      return new Response('SMOKE OK ' + (await quickstart(await request.json())));
    } catch (err) {
      return new Response('SMOKE FAILED ' + (err && err.stack ? err.stack : String(err)), { status: 500 });
    }
  },
};
`;

/**
 * The merchant suite of examples/msw-merchant-suite.test.ts, with msw 3 (`onUnhandledFrame`
 * where msw 2 says `onUnhandledRequest`): default client settings, the merchant's own handlers.
 */
const MSW = `import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { isApiError, MerchantClient } from 'merchant-stablecoin';

async function payOut(client, customer, amount) {
  try {
    const order = await client.member(customer).withdrawals.create({ asset: 'USDT', amount, to_address: 'TQ7x1Vb9shopWallet' });
    return 'payout ' + order.id + ' ' + order.status;
  } catch (err) {
    if (isApiError(err, 'insufficient_balance')) return 'not enough funds';
    throw err;
  }
}

const BASE_URL = 'https://sandbox.merchant-api.test';
const server = setupServer(
  http.post(BASE_URL + '/v1/connect/token', () =>
    HttpResponse.json({ auth_token: 'tok_test', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
  ),
  http.post(BASE_URL + '/v1/withdrawals', async ({ request }) => {
    const body = await request.json();
    if (Number(body.amount) > 100) {
      return HttpResponse.json({ type: 'invalid_request_error', code: 'insufficient_balance', message: 'Insufficient balance', request_id: 'req_test_2' }, { status: 400 });
    }
    return HttpResponse.json({ id: 'wdr_test_1', status: 'locked', asset: body.asset, amount: body.amount, ledger_scale: 6, to_address: body.to_address }, { status: 201 });
  }),
);
const unhandled = [];
const seen = [];
server.events.on('request:unhandled', ({ request }) => void unhandled.push(request.method + ' ' + new URL(request.url).pathname));
server.events.on('request:start', ({ request }) => void seen.push(request.method + ' ' + new URL(request.url).pathname));
server.listen({ onUnhandledFrame: 'error' });
const steps = [];
const expect = (what, actual, expected) => {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(what + ': ' + JSON.stringify(actual) + ', expected ' + JSON.stringify(expected));
};
try {
  // Default settings, as the application builds its client: no transport named.
  const client = new MerchantClient({ baseUrl: BASE_URL, clientId: 'cli_test', apiKey: 'test-api-key', signingKey: 'test-signing-key' });
  try {
    expect('withdrawal', await payOut(client, 'cust-42', '25.50'), 'payout wdr_test_1 locked');
    steps.push('withdrawal answered by msw');
    expect('insufficient balance', await payOut(client, 'cust-42', '250'), 'not enough funds');
    steps.push('insufficient_balance');
    const err = await client.member('cust-42').balances.list().then(() => undefined, (e) => e);
    if (err?.name !== 'CallInterruptedError' || !/^\\[MSW\\] Cannot bypass a request/.test(err.cause?.message)) throw err ?? new Error('an unhandled request succeeded');
    expect('reported by msw', unhandled, ['GET /v1/balances']);
    steps.push('unhandled request reported once, its error the cause');
  } finally {
    await client.close();
  }
  expect('requests msw saw', seen, ['POST /v1/connect/token', 'POST /v1/withdrawals', 'POST /v1/withdrawals', 'GET /v1/balances']);
} finally {
  server.close();
}
console.log('SMOKE OK ' + steps.join('; '));
`;

/**
 * The sandbox server, from the installed tarball's testing entry, and beside it, for the failing
 * paths: a hostile server (per run, named by the first path segment: its token exchange answers
 * once and then refuses the credentials; its withdrawal answers 504, then invalid_token), and a
 * port nothing listens on.
 */
const SERVER = `import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { createSandbox } from 'merchant-stablecoin/testing';
const runs = new Map();
const hostile = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const [, run = '', ...rest] = req.url.split('/');
    const path = '/' + rest.join('/');
    const seen = runs.get(run) ?? { token: 0, withdrawal: 0 };
    runs.set(run, seen);
    const send = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_smoke' });
      res.end(JSON.stringify(body));
    };
    const error = (status, type, code) => send(status, { type, code, message: code, request_id: 'req_smoke' });
    if (req.method === 'POST' && path === '/v1/connect/token') {
      if (seen.token++ > 0) return error(401, 'authentication_error', 'invalid_credentials');
      return send(200, { auth_token: 'tok_smoke_' + run, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] });
    }
    if (req.method === 'POST' && path === '/v1/withdrawals') {
      return seen.withdrawal++ === 0 ? error(504, 'upstream_timeout', 'upstream_timeout') : error(401, 'authentication_error', 'invalid_token');
    }
    error(404, 'not_found', 'not_found');
  });
});
await new Promise((resolve) => hostile.listen(0, '127.0.0.1', resolve));
const refusedPort = await new Promise((resolve) => {
  const probe = createTcpServer().listen(0, '127.0.0.1', () => {
    const port = probe.address().port;
    probe.close(() => resolve(port));
  });
});
const failing = { hostileUrl: 'http://127.0.0.1:' + hostile.address().port, refusedUrl: 'http://127.0.0.1:' + refusedPort };
const sandbox = createSandbox();
sandbox.state.seedReports(45);
const server = await sandbox.listen({ port: 0 });
// No receiver is registered: the event is recorded, and signed here as the sandbox delivers it.
const env = await sandbox.webhooks.emit('card.status.updated', { object: 'card', id: 'crd_smoke', external_member_id: 'smoke', status: 'active', status_version: 1 });
const body = JSON.stringify(env);
const headers = { 'content-type': 'application/json', 'z-event-id': env.event_id, 'z-event-type': env.event_type, 'z-signature': sandbox.webhooks.sign(body) };
const delivery = { body, headers, secret: sandbox.webhooks.secret };
console.log(JSON.stringify({ baseUrl: server.url, ...sandbox.credentials, delivery, ...failing }));
process.stdin.resume();
process.stdin.on('end', () => {
  hostile.closeAllConnections();
  hostile.close();
  void server.close().then(() => process.exit(0));
});
`;

interface Sandbox {
  readonly settings: Record<string, unknown>;
  stop(): void;
}

function startSandbox(cwd: string): Promise<Sandbox> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['server.mjs'], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) {
        resolve({ settings: JSON.parse(line) as Record<string, unknown>, stop: () => child.stdin.end() });
      }
    });
    child.on('exit', (code) => reject(new Error(`sandbox server exited ${String(code)}`)));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

type Outcome = { readonly status: 'passed'; readonly detail: string } | { readonly status: 'failed' | 'skipped'; readonly detail: string };

function verdict(r: RunResult): Outcome {
  const line = r.output.split('\n').find((l) => l.startsWith('SMOKE OK'));
  return r.code === 0 && line !== undefined ? { status: 'passed', detail: line } : { status: 'failed', detail: clean(r.output) };
}

async function workerd(bin: string, dir: string, nodeCompat: boolean, settings: Record<string, unknown>): Promise<Outcome> {
  const name = nodeCompat ? 'worker-compat' : 'worker-plain';
  // What wrangler does: bundle for the workerd conditions, nothing left to resolve at run time.
  await must(
    ESBUILD,
    [
      'worker.mjs',
      '--bundle',
      '--format=esm',
      '--platform=neutral',
      '--conditions=workerd,worker,browser',
      ...(nodeCompat ? ['--external:node:*'] : []),
      `--outfile=${name}.js`,
    ],
    { cwd: dir },
  );
  const port = await freePort();
  writeFileSync(
    join(dir, `${name}.capnp`),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .w),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const w :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "${name}.js")],
  compatibilityDate = "2025-09-01",
  compatibilityFlags = [${nodeCompat ? '"nodejs_compat"' : ''}],
  globalOutbound = "loopback",
);
`,
  );
  const child = spawn(bin, ['serve', `${name}.capnp`], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (log += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (log += d));
  try {
    const body = JSON.stringify({ ...settings, member: `smoke-${name}` });
    const text = await postWhenUp(`http://127.0.0.1:${port}/`, body, () => child.exitCode !== null);
    return text.startsWith('SMOKE OK') ? { status: 'passed', detail: text } : { status: 'failed', detail: `${text}\n${log}` };
  } catch (err) {
    return { status: 'failed', detail: `${String(err)}\n${log}` };
  } finally {
    child.kill('SIGTERM');
  }
}

/** POSTs once the server accepts connections (workerd takes a moment to start). */
async function postWhenUp(url: string, body: string, exited: () => boolean): Promise<string> {
  for (let tries = 0; ; tries++) {
    try {
      const res = await fetch(url, { method: 'POST', body });
      return await res.text();
    } catch (err) {
      if (exited() || tries > 600) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'ms-runtime-smoke-'));
  const results: [string, Outcome][] = [];
  try {
    await must(NPM, ['pack', '--ignore-scripts', '--pack-destination', work], { timeoutMs: 300_000 });
    const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error('npm pack wrote no tarball');
    const dir = join(work, 'consumer');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'smoke-consumer', private: true, type: 'module' }));
    await must(NPM, ['install', '--no-audit', '--no-fund', join(work, tarball)], { cwd: dir, timeoutMs: 600_000 });
    writeFileSync(join(dir, 'flow.mjs'), FLOW);
    writeFileSync(join(dir, 'main.mjs'), MAIN);
    writeFileSync(join(dir, 'worker.mjs'), WORKER);
    writeFileSync(join(dir, 'server.mjs'), SERVER);
    const sandbox = await startSandbox(dir);
    try {
      await smokeAll(dir, sandbox.settings, results);
    } finally {
      sandbox.stop();
    }
    await smokeMsw3(work, join(work, tarball), results);
  } finally {
    if (keep) console.log(`kept: ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  report(results);
}

async function smokeAll(dir: string, settings: Record<string, unknown>, results: [string, Outcome][]): Promise<void> {
  // A member per runtime, with an id the service accepts (short, no spaces).
  let runs = 0;
  const argFor = (_name: string): string => JSON.stringify({ ...settings, member: `smoke-${++runs}` });
  const node = async (name: string, bin: string, file: string): Promise<void> => {
    results.push([name, verdict(await run(bin, [file, argFor(name)], { cwd: dir }))]);
  };
  await node(`node ${process.version}`, process.execPath, 'main.mjs');
  // Bundles run from outside the consumer project, as deployed: no node_modules to load undici
  // from (the Node build then sends through Node's fetch).
  const work = join(dir, '..');
  const bundled = async (name: string, platform: string, file: string): Promise<void> => {
    await must(ESBUILD, ['main.mjs', '--bundle', `--platform=${platform}`, '--format=esm', '--minify', `--outfile=${join(work, file)}`], {
      cwd: dir,
    });
    results.push([name, verdict(await run(process.execPath, [file, argFor(name)], { cwd: work }))]);
  };
  await bundled(`esbuild bundle (platform node, ESM, no node_modules) on node ${process.version}`, 'node', 'bundle-node.mjs');
  await bundled(`esbuild bundle (platform neutral, no node_modules) on node ${process.version}`, 'neutral', 'bundle-neutral.mjs');

  const failedInstall = await installRuntimes();
  const skipAll = (names: readonly string[], why: string): void => {
    for (const name of names) results.push([name, { status: 'skipped', detail: why }]);
  };
  if (failedInstall !== undefined) {
    skipAll(
      ['node 22', 'node 24', 'bun', 'deno', 'workerd (nodejs_compat)', 'workerd (no nodejs_compat)'],
      `npm ci in smoke/runtimes failed: ${failedInstall}`,
    );
    return;
  }
  for (const [name, path] of NODE_LTS) {
    const b = await binary(path, ['--version']);
    if ('skip' in b) skipAll([name], b.skip);
    else await node(name, b.bin, 'main.mjs');
  }
  const bun = await binary('@oven/bun-linux-x64/bin/bun', ['--version']);
  if ('skip' in bun) skipAll(['bun'], bun.skip);
  else results.push(['bun', verdict(await run(bun.bin, ['main.mjs', argFor('bun')], { cwd: dir }))]);
  const deno = await binary('@deno/linux-x64-glibc/deno', ['--version']);
  if ('skip' in deno) skipAll(['deno --allow-net'], deno.skip);
  else
    results.push([
      'deno --allow-net',
      verdict(await run(deno.bin, ['run', '--allow-net', '--no-prompt', 'main.mjs', argFor('deno')], { cwd: dir })),
    ]);
  const wd = await binary('@cloudflare/workerd-linux-64/bin/workerd', ['--version']);
  if ('skip' in wd) skipAll(['workerd (nodejs_compat)', 'workerd (no nodejs_compat)'], wd.skip);
  else {
    results.push(['workerd (nodejs_compat)', await workerd(wd.bin, dir, true, settings)]);
    results.push(['workerd (no nodejs_compat)', await workerd(wd.bin, dir, false, settings)]);
  }
}

/**
 * docs/testing.md's msw 3 callback recipe (`onUnhandledFrame`: let loopback through, throw for the
 * rest): a money-moving POST it refuses is reported not sent, once, with the thrown error as the
 * cause, and the intent journal is left empty. On a Node.js older than 22.12 msw 3 cannot run
 * (`Promise.withResolvers`): the same call is a refusal that says which Node.js msw 3 needs.
 */
const MSW_CALLBACK = `import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { MemoryJournal, MerchantClient } from 'merchant-stablecoin';

const BASE_URL = 'https://sandbox.merchant-api.test';
const refused = [];
const server = setupServer(
  http.post(BASE_URL + '/v1/connect/token', () =>
    HttpResponse.json({ auth_token: 'tok_test', expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] }),
  ),
);
server.listen({
  onUnhandledFrame({ frame }) {
    if (frame.protocol !== 'http') return;
    const { request } = frame.data;
    if (new URL(request.url).hostname === '127.0.0.1') return; // the suite's own app
    refused.push(request.method + ' ' + new URL(request.url).pathname);
    throw new Error('unhandled ' + request.method + ' ' + request.url);
  },
});
const old = Number(process.versions.node.split('.')[0]) < 22;
try {
  const journal = new MemoryJournal();
  const client = new MerchantClient({ baseUrl: BASE_URL, clientId: 'cli_test', apiKey: 'k', signingKey: 's', journal, logger: {} });
  try {
    const err = await client.member('cust-42').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T1' }).then(() => undefined, (e) => e);
    if (err?.name !== 'CallInterruptedError' || err.call?.sent !== 'no') throw err ?? new Error('the refused withdrawal succeeded');
    const cause = String(err.cause?.message);
    if (old ? !/msw 3 needs Node\\.js 22\\.12/.test(cause) : !/^unhandled POST https:\\/\\/sandbox\\.merchant-api\\.test\\/v1\\/withdrawals/.test(cause)) throw err;
    if (JSON.stringify(refused) !== JSON.stringify(old ? [] : ['POST /v1/withdrawals'])) throw new Error('refused: ' + JSON.stringify(refused));
    if (journal.open().length !== 0) throw new Error('the journal holds the refused call');
  } finally {
    await client.close();
  }
} finally {
  server.close();
}
console.log('SMOKE OK ' + (old ? 'msw 3 unsupported here, said plainly, not sent' : 'callback recipe: refused once, not sent, its error the cause, journal empty'));
`;

/** msw 3 beside the tarball, on Node 22 and 24 (msw 3 needs Node 22.12 or later). */
async function smokeMsw3(work: string, tarball: string, results: [string, Outcome][]): Promise<void> {
  const names = ['msw 3 on node 22', 'msw 3 on node 24'];
  const dir = join(work, 'msw3');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'smoke-msw3', private: true, type: 'module' }));
  const install = await run(NPM, ['install', '--no-audit', '--no-fund', '--engine-strict=false', tarball, MSW3], {
    cwd: dir,
    timeoutMs: 600_000,
  });
  if (install.code !== 0) {
    for (const name of names)
      results.push([name, { status: 'failed', detail: `npm install ${MSW3} beside the tarball failed:\n${clean(install.output)}` }]);
    return;
  }
  writeFileSync(join(dir, 'msw.mjs'), MSW);
  writeFileSync(join(dir, 'msw-callback.mjs'), MSW_CALLBACK);
  for (const [name, path] of [
    [names[0]!, NODE_LTS[0][1]],
    [names[1]!, NODE_LTS[1][1]],
  ] as const) {
    const b = await binary(path, ['--version']);
    if ('skip' in b) results.push([name, { status: 'skipped', detail: b.skip }]);
    else {
      results.push([name, verdict(await run(b.bin, ['msw.mjs'], { cwd: dir }))]);
      results.push([`${name}, callback recipe`, verdict(await run(b.bin, ['msw-callback.mjs'], { cwd: dir }))]);
    }
  }
  // This Node.js (20 in CI): msw 3 cannot run here, and the SDK says so.
  if (Number(process.versions.node.split('.')[0]) < 22)
    results.push([
      `msw 3 on node ${process.versions.node} (unsupported)`,
      verdict(await run(process.execPath, ['msw-callback.mjs'], { cwd: dir })),
    ]);
}

function report(results: readonly [string, Outcome][]): void {
  let failed = 0;
  for (const [name, outcome] of results) {
    if (outcome.status === 'passed') console.log(`== ${name}: passed (${outcome.detail.replace('SMOKE OK ', '')})`);
    else if (outcome.status === 'skipped') console.log(`!! SKIPPED ${name}: NOT RUN, NOT PASSED: ${outcome.detail}`);
    else {
      failed++;
      console.log(`!! FAILED ${name}:\n${outcome.detail}`);
    }
  }
  if (failed > 0) {
    console.log(`runtime smoke: ${failed} runtime(s) failed`);
    process.exitCode = 1;
  } else console.log('runtime smoke: every runtime that could run passed');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
});

/**
 * Package gates: what `npm install merchant-stablecoin` gives a user, checked the way a user
 * meets it. `npm run check:package` (`npx tsx scripts/check-package.ts [--keep]`).
 *
 *  1. `npm run build` (tsup: ESM, CJS and declarations for every entry).
 *  2. `publint --strict`: package.json, exports and files are consistent (warnings fail too).
 *  3. `attw --pack`: the types resolve, and match the JavaScript, for every entry under every
 *     module resolution (node10, node16 from CJS and from ESM, bundler).
 *  4. `npm pack` into a temporary folder (dist, the guides, the other-language examples and
 *     nothing else; every relative link of its Markdown files resolves inside it, and every file
 *     they name is inside it or marked as a repository file: test/package/doc-references.ts), with
 *     a package.json that has no `prepare` script while the repository's keeps it (prepack and
 *     postpack: scripts/pack-manifest.ts); then `npm install <tarball>` into a fresh consumer
 *     project (dependencies come from the npm cache or the registry; msw, ioredis and pg, optional
 *     peers, are not installed, as for a user who does not need them), which must print no
 *     warning about the package's install scripts (npm 11: "not yet covered by allowScripts").
 *  4b. The guides' first steps, as a user takes them, in empty folders: `npm init -y`, then
 *     `npm install ./merchant-stablecoin-<version>.tgz` (README, Install); the getting-started
 *     guide's first call, as its installed copy prints it; `npx merchant-stablecoin-sandbox`
 *     (the installed copy) serving the README's quickstart, run as printed with the variables
 *     the command exported; and, without installing, `npx --package ./<tarball>
 *     merchant-stablecoin-sandbox --help`.
 *  5. The consumer runs a call against the simulator from ESM (`import`) and from CJS
 *     (`require`), through `merchant-stablecoin/testing`'s `createSandbox().client()` (the
 *     in-process route, which needs no msw) and over a real socket with the default transport.
 *  6. A consumer of `MerchantClient` and one call, bundled by esbuild (ESM, minified; platform
 *     node and neutral), stays within the budget of 160,000 bytes.
 *  7. The installed `merchant-stablecoin-sandbox` command starts, and a client configured only by
 *     the `MERCHANT_API_*` variables it prints makes calls against it; the document its `--help`
 *     names exists in the installed package.
 *  8. A TypeScript consumer type-checks under `moduleResolution` `node16` (an `.mts` and a
 *     `.cts` file) and `bundler`, with the root's TypeScript, including `@ts-expect-error` lines
 *     that prove the types are real (a number amount, a member-scoped call without a member);
 *     the main and webhooks entries type-check without `@types/node` (`types: []`, as on Bun, Deno, workerd),
 *     and the testing entry without msw installed (msw's types are needed by `/testing/msw` only).
 *
 * Exits non-zero on the first failure, printing the failing command's output. `--keep` leaves
 * the temporary consumer project on disk for inspection.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPOSITORY_DOCUMENTS, repository, unfollowableReferences } from '../test/package/doc-references.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'node_modules', '.bin');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const keep = process.argv.includes('--keep');

interface RunResult {
  readonly code: number | null;
  readonly output: string;
}

/** Runs a command, capturing stdout and stderr together. */
function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(killed after ${options.timeoutMs ?? 180_000} ms)`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 180_000);
    child.on('error', (err) => (output += `\n${String(err)}`));
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Drops npm's noise about the machine's own npmrc, which is not ours to fix. */
function clean(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^npm warn Unknown (user|env|project) config/.test(line))
    .join('\n')
    .trim();
}

class GateFailure extends Error {}

/** Runs a command and fails the gate when it exits non-zero. */
async function must(command: string, args: readonly string[], options: Parameters<typeof run>[2] = {}): Promise<string> {
  const r = await run(command, args, options);
  if (r.code !== 0) throw new GateFailure(`\`${[command, ...args].join(' ')}\` exited ${String(r.code)}:\n${clean(r.output)}`);
  return clean(r.output);
}

const timings: Array<{ step: string; ms: number }> = [];

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  process.stdout.write(`- ${name} ... `);
  try {
    const result = await fn();
    const ms = Math.round(performance.now() - started);
    timings.push({ step: name, ms });
    process.stdout.write(`ok (${(ms / 1000).toFixed(1)} s)\n`);
    return result;
  } catch (err) {
    process.stdout.write('FAILED\n');
    throw err;
  }
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<string, unknown>;
  bin?: Record<string, string>;
  typesVersions?: unknown;
  devDependencies?: Record<string, string>;
};

// ---------------------------------------------------------------------------------------------
// Consumer sources. They import the package by name, as a user does.
// ---------------------------------------------------------------------------------------------

/** The same scenario from ESM and CJS; `load` is `import()` or `require` (`loadJson` the same for a JSON file). */
function smokeBody(flavour: string): string {
  return `
  const main = await load('merchant-stablecoin');
  const testing = await load('merchant-stablecoin/testing');
  const webhooks = await load('merchant-stablecoin/webhooks');
  const { MerchantClient, ApiError, isApiError, balanceTotal, SDK_VERSION } = main;
  const check = (cond, what) => { if (!cond) throw new Error('${flavour}: ' + what); };
  check(typeof SDK_VERSION === 'string', 'SDK_VERSION');
  check(typeof webhooks.parseEvent === 'function' && main.parseEvent === undefined, 'webhooks have one home: merchant-stablecoin/webhooks');

  const sandbox = testing.createSandbox();
  sandbox.state.seedMember({ external_member_id: 'smoke', balances: { USDT: { available: '100' } } });

  // 1. The in-process route (no msw installed: it is an optional peer).
  const client = sandbox.client();
  check(client instanceof MerchantClient, 'sandbox.client() is the main entry MerchantClient (one shared class)');
  const member = client.member('smoke');
  const order = await member.withdrawals.create({ asset: 'USDT', amount: '25.50', to_address: 'TQ7x1Vb9smoke' });
  check(/^wdr_/.test(order.id) && order.status === 'locked', 'withdrawal created');
  const [row] = await member.balances.list();
  check(row.available === '74.500000' && balanceTotal(row).toFixed() === '100', 'balances after the debit');
  try {
    await member.withdrawals.create({ asset: 'USDT', amount: '1000', to_address: 'TQ7x1Vb9smoke' });
    check(false, 'insufficient balance should throw');
  } catch (err) {
    check(err instanceof ApiError && isApiError(err, 'insufficient_balance') && typeof err.requestId === 'string', 'typed ApiError with code and request id');
  }
  await client.close();

  // 2. A real loopback socket with the default (undici) transport.
  const server = await sandbox.listen({ port: 0 });
  const wired = new MerchantClient({ baseUrl: server.url, ...sandbox.credentials });
  let count = 0;
  sandbox.state.seedReports(30);
  for await (const report of wired.reports.list({ limit: 7 })) count += report.id.startsWith('rep_') ? 1 : 0;
  check(count === 30, 'iterated 30 reports over a socket, got ' + count);
  // 3. The OpenAPI document: shipped as merchant-stablecoin/openapi.json, served by the sandbox
  // (from its lazily loaded chunk of the build).
  const served = await (await fetch(server.url + '/__sandbox/openapi.json')).json();
  const shipped = await loadJson('merchant-stablecoin/openapi.json');
  check(served.openapi === '3.1.0' && JSON.stringify(served) === JSON.stringify(shipped), 'the sandbox serves the shipped openapi.json');
  await wired.close();
  await server.close();
  console.log('${flavour} ok: withdrawal ' + order.id + ', ' + count + ' reports');
`;
}

const SMOKE_MJS = `// ESM consumer
const load = (name) => import(name);
const loadJson = (name) => import(name, { with: { type: 'json' } }).then((m) => m.default);
${smokeBody('ESM')}`;

const SMOKE_CJS = `// CJS consumer
'use strict';
const load = async (name) => require(name);
const loadJson = async (name) => require(name);
(async () => {
${smokeBody('CJS')}
})().catch((err) => { console.error(err); process.exit(1); });
`;

/** Runs with only the MERCHANT_API_* variables the installed sandbox command printed. */
const ENV_SMOKE_MJS = `import { MerchantClient, isApiError } from 'merchant-stablecoin';
const client = new MerchantClient(); // every setting from MERCHANT_API_*
const credit = await client.sandbox.faucet({ asset: 'USDT', amount: '10' });
if (credit.credited !== '10.000000') throw new Error('faucet');
await client.members.create({ external_member_id: 'env-smoke' });
try {
  await client.member('env-smoke').withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' });
  throw new Error('expected insufficient_balance');
} catch (err) {
  if (!isApiError(err, 'insufficient_balance')) throw err;
}
await client.close();
console.log('bin ok: faucet and member over the sandbox command');
`;

/** Type-level use of every entry. The @ts-expect-error lines fail the check if types were `any`. */
function consumerTs(importStyle: 'esm' | 'cjs'): string {
  const head =
    importStyle === 'esm'
      ? `import { MerchantClient, isApiError, Decimal, type WithdrawalOrder, type BalanceRow, type MemberView, type PagePromise, type ExportReport } from 'merchant-stablecoin';
import { createSandbox, type Sandbox } from 'merchant-stablecoin/testing';
import { parseEvent, type WebhookEvent } from 'merchant-stablecoin/webhooks';`
      : `import sdk = require('merchant-stablecoin');
import testingEntry = require('merchant-stablecoin/testing');
import webhooksEntry = require('merchant-stablecoin/webhooks');
const { MerchantClient, isApiError, Decimal } = sdk;
const { createSandbox } = testingEntry;
const { parseEvent } = webhooksEntry;
type WithdrawalOrder = sdk.WithdrawalOrder;
type BalanceRow = sdk.BalanceRow;
type MemberView = sdk.MemberView;
type PagePromise<T> = sdk.PagePromise<T>;
type ExportReport = sdk.ExportReport;
type Sandbox = testingEntry.Sandbox;
type WebhookEvent = webhooksEntry.WebhookEvent;`;
  return `${head}

export async function scenario(): Promise<WithdrawalOrder> {
  const sandbox: Sandbox = createSandbox();
  const client = sandbox.client();
  const direct = new MerchantClient({ baseUrl: 'https://sandbox.example', clientId: 'c', apiKey: 'k', signingKey: 's', transport: 'fetch' });
  void direct;
  const member: MemberView = client.member('ext-42');
  const rows: BalanceRow[] = await member.balances.list();
  const available: string = rows[0]?.available ?? '0';
  void available;
  const reports: PagePromise<ExportReport> = client.reports.list({ limit: 10 });
  for await (const report of reports) void report.status;
  try {
    return await member.withdrawals.create({ asset: 'USDT', amount: new Decimal('25.50'), to_address: 'T' });
  } catch (err) {
    if (isApiError(err, 'limit_exceeded')) {
      const scope: string | undefined = err.extras.limit_scope;
      void scope;
    }
    if (isApiError(err, 'step_up_required')) {
      const url: string | undefined = err.extras.hosted_url;
      const key: string | undefined = err.idempotencyKey;
      void url;
      void key;
    }
    throw err;
  }
}

export async function typesAreReal(client: InstanceType<typeof MerchantClient>): Promise<void> {
  // @ts-expect-error: amounts are decimal strings or Decimal, never numbers
  await client.member('x').withdrawals.create({ asset: 'USDT', amount: 25.5, to_address: 'T' });
  // @ts-expect-error: withdrawals are member-scoped, so they are not on the client
  await client.withdrawals.create({ asset: 'USDT', amount: '1', to_address: 'T' });
}

export function onWebhook(raw: string, headers: Record<string, string>): string {
  const event: WebhookEvent = parseEvent(raw, headers);
  return event.known ? event.event_type : 'unknown';
}
`;
}

/** The main and webhooks entries only: their declarations must check cleanly with skipLibCheck off. */
function coreOnlyTs(): string {
  return `import { MerchantClient, isApiError, type WithdrawalOrder } from 'merchant-stablecoin';
import { parseEvent, createWebhookHandler, type WebhookEvent } from 'merchant-stablecoin/webhooks';

export async function debit(client: MerchantClient): Promise<WithdrawalOrder | undefined> {
  try {
    return await client.member('ext-42').withdrawals.create({ asset: 'USDT', amount: '1.00', to_address: 'T' });
  } catch (err) {
    if (isApiError(err, 'insufficient_balance')) return undefined;
    throw err;
  }
}

export const handler = createWebhookHandler({ verify: () => true, onEvent: async (event: WebhookEvent) => void event.event_id });
export const parsed = (raw: string): WebhookEvent => parseEvent(raw, {});
`;
}

/** The main entry alone, for a project without `@types/node` (Bun, Deno, workerd, edge). */
/** `merchant-stablecoin/testing` without msw: its declarations must not need msw's types. */
function testingOnlyTs(): string {
  return `import { createSandbox, type Sandbox } from 'merchant-stablecoin/testing';

export async function requestsAfterListen(sandbox: Sandbox = createSandbox()): Promise<number> {
  const server = await sandbox.listen({ port: 0 });
  await server.close();
  return sandbox.requests.length;
}
`;
}

function mainOnlyTs(): string {
  return `import { MerchantClient, isApiError, type MerchantClientOptions, type WithdrawalOrder } from 'merchant-stablecoin';
import { createWebhookHandler, type WebhookEvent } from 'merchant-stablecoin/webhooks';

// A worker-style receiver: the framework-neutral form, no node:http types.
const receiver = createWebhookHandler({ verify: () => true, onEvent: (event: WebhookEvent) => {
  void event;
} });
export async function receive(request: Request): Promise<Response> {
  const out = await receiver.handle(new Uint8Array(await request.arrayBuffer()), request.headers);
  return new Response(JSON.stringify(out.body), { status: out.status });
}

const options: MerchantClientOptions = { baseUrl: 'https://api.example', clientId: 'c', apiKey: 'k', signingKey: 's' };
export async function debit(client = new MerchantClient(options)): Promise<WithdrawalOrder | undefined> {
  try {
    return await client.member('ext-42').withdrawals.create({ asset: 'USDT', amount: '1.00', to_address: 'T' });
  } catch (err) {
    if (isApiError(err, 'insufficient_balance')) return undefined;
    throw err;
  } finally {
    await client.close();
  }
}
// @ts-expect-error amounts are decimal strings, never numbers
export const wrong = (client: MerchantClient) => client.member('m').withdrawals.create({ asset: 'USDT', amount: 1, to_address: 'T' });
`;
}

const TS_BASE = {
  strict: true,
  noEmit: true,
  target: 'ES2022',
  lib: ['ES2023', 'DOM'],
  types: ['node'],
  // As `tsc --init` sets it. Only `merchant-stablecoin/testing/msw` needs msw's types, and msw is
  // an optional peer that is not installed here; the main, webhooks and testing entries are
  // checked with `skipLibCheck: false` in separate steps.
  skipLibCheck: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
};

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`Package gates for ${pkg.name}@${pkg.version}`);

  // A hang guard: the build takes a minute or two, and over three on a loaded 2-core machine.
  await step('build (npm run build)', () => must(NPM, ['run', 'build'], { timeoutMs: 900_000 }));

  await step('publint --strict', async () => {
    const out = await must(join(BIN, 'publint'), ['--strict']);
    if (!/All good/.test(out)) throw new GateFailure(`publint reported problems:\n${out}`);
  });

  await step('attw --pack', async () => {
    const args = ['--pack', '.'];
    // Written reason for the only ignore rule: TypeScript's legacy `node10` resolution
    // (`moduleResolution: node`) does not read `exports`, so the subpath entries
    // (`/testing`, `/webhooks`) resolve there only through a `typesVersions` map. Until
    // package.json carries one, that one resolution mode is left out (`--profile node16`);
    // node16 from CJS and from ESM and bundler are always checked. With `typesVersions` present,
    // the check runs with every resolution mode and no ignore.
    if (pkg.typesVersions === undefined) args.push('--profile', 'node16');
    // attw exits non-zero on any problem outside the ignored resolution mode.
    const out = await must(join(BIN, 'attw'), args);
    if (pkg.typesVersions !== undefined && !/No problems found/.test(out)) throw new GateFailure(`attw reported problems:\n${out}`);
    if (pkg.typesVersions === undefined) process.stdout.write('node10 ignored: no typesVersions in package.json; ');
  });

  const work = mkdtempSync(join(tmpdir(), 'merchant-stablecoin-consumer-'));
  const consumer = join(work, 'consumer');
  try {
    const tarball = await step('npm pack', async () => {
      const out = await must(NPM, ['pack', '--json', '--pack-destination', work]);
      // npm's JSON answer starts on a line of its own; lifecycle scripts may print before it.
      const start = out.search(/^\[\s*$/m);
      const info = JSON.parse(out.slice(start === -1 ? out.indexOf('[') : start)) as Array<{
        filename: string;
        size: number;
        unpackedSize: number;
        entryCount: number;
        files: Array<{ path: string }>;
      }>;
      const meta = info[0]!;
      const paths = meta.files.map((f) => f.path);
      const stray = paths.filter(
        (p) =>
          !/^(dist\/|openapi\.json$|docs\/[\w-]+\.md$|examples\/other-languages\/[\w-]+\.(py|sh)$|bench\/README\.md$|package\.json$|README\.md$|CHANGELOG\.md$|CONTRIBUTING\.md$|LICENSE)/.test(
            p,
          ),
      );
      if (stray.length > 0) throw new GateFailure(`unexpected files in the tarball: ${stray.join(', ')}`);
      // The links users meet in the package resolve inside it (README, guides, changelog).
      const broken = brokenLinks(paths);
      if (broken.length > 0) throw new GateFailure(`links that do not resolve in the package: ${broken.join(', ')}`);
      // Every file the packed documents name is in the tarball, or marked as a repository file.
      const packed = new Set(paths);
      const docs = paths.filter((p) => p.endsWith('.md'));
      const unfollowable = unfollowableReferences(docs, (p) => packed.has(p), repository(ROOT));
      if (unfollowable.length > 0)
        throw new GateFailure(`files the packed documents name that a user cannot open:\n${unfollowable.join('\n')}`);
      if (!REPOSITORY_DOCUMENTS.every((d) => packed.has(d)))
        throw new GateFailure('a repository document named by the README is not packed');
      // postpack put `prepare` back: git installs build dist/ with it.
      const after = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
      if (after.scripts?.['prepare'] === undefined)
        throw new GateFailure('package.json lost scripts.prepare while packing (run `npx tsx scripts/pack-manifest.ts restore`)');
      process.stdout.write(
        `${meta.entryCount} files, ${(meta.size / 1024).toFixed(0)} kB packed, ${(meta.unpackedSize / 1024).toFixed(0)} kB unpacked; `,
      );
      return join(work, meta.filename);
    });

    await step('install the tarball into a fresh project', async () => {
      mkdirSync(consumer, { recursive: true });
      writeFileSync(
        join(consumer, 'package.json'),
        JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2),
      );
      const typesNode = pkg.devDependencies?.['@types/node'] ?? '^20';
      const out = await must(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `@types/node@${typesNode}`], {
        cwd: consumer,
      });
      installWarnings(out);
      const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', pkg.name, 'package.json'), 'utf8')) as {
        scripts?: Record<string, string>;
      };
      const lifecycle = ['preinstall', 'install', 'postinstall', 'prepare'].filter((s) => installed.scripts?.[s] !== undefined);
      if (lifecycle.length > 0) throw new GateFailure(`the packed package.json has install scripts: ${lifecycle.join(', ')}`);
      for (const optional of ['msw', 'ioredis', 'pg']) {
        if (existsSync(join(consumer, 'node_modules', optional)))
          throw new GateFailure(`the optional peer ${optional} was installed; consumers must not get it by default`);
      }
    });

    await step('every exports subpath resolves (ESM and CJS)', async () => {
      const subpaths = Object.keys(pkg.exports).map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));
      writeFileSync(
        join(consumer, 'resolve.cjs'),
        `for (const s of ${JSON.stringify(subpaths)}) require.resolve(s);\nconsole.log('cjs resolve ok');\n`,
      );
      writeFileSync(
        join(consumer, 'resolve.mjs'),
        `for (const s of ${JSON.stringify(subpaths)}) import.meta.resolve(s);\nconsole.log('esm resolve ok');\n`,
      );
      await must(process.execPath, ['resolve.cjs'], { cwd: consumer });
      await must(process.execPath, ['resolve.mjs'], { cwd: consumer });
    });

    await step('ESM consumer: import, calls against the simulator', async () => {
      writeFileSync(join(consumer, 'smoke.mjs'), SMOKE_MJS);
      await must(process.execPath, ['smoke.mjs'], { cwd: consumer, timeoutMs: 60_000 });
    });

    await step('CJS consumer: require, calls against the simulator', async () => {
      writeFileSync(join(consumer, 'smoke.cjs'), SMOKE_CJS);
      await must(process.execPath, ['smoke.cjs'], { cwd: consumer, timeoutMs: 60_000 });
    });

    if (pkg.bin !== undefined) {
      for (const name of Object.keys(pkg.bin)) {
        await step(`installed command ${name}`, () => binSmoke(consumer, name));
      }
    }

    await step("the guides' first steps in an empty folder (README Install, getting-started, quickstart)", () => firstSteps(work, tarball));

    await step('npx --package <tarball> merchant-stablecoin-sandbox, without installing', () => npxFromTarball(work, tarball));

    await step(
      `one-call consumer bundle (esbuild, node and neutral, ESM, minified) within ${BUNDLE_BUDGET_BYTES.toLocaleString('en-US')} bytes`,
      () => bundleBudget(consumer),
    );

    await step('every entry bundled by esbuild (ESM, platform node) without a warning', () => bundleEveryEntry(consumer));

    writeFileSync(join(consumer, 'consumer.mts'), consumerTs('esm'));
    writeFileSync(join(consumer, 'consumer.cts'), consumerTs('cjs'));
    writeFileSync(join(consumer, 'consumer.ts'), consumerTs('esm'));
    writeFileSync(join(consumer, 'core.mts'), coreOnlyTs());
    const tsconfig = (file: string, options: Record<string, unknown>, files: string[]): void =>
      writeFileSync(join(consumer, file), JSON.stringify({ compilerOptions: { ...TS_BASE, ...options }, files }, null, 2));

    await step('TypeScript consumer, moduleResolution node16 (.mts and .cts)', async () => {
      tsconfig('tsconfig.node16.json', { module: 'node16', moduleResolution: 'node16' }, ['consumer.mts', 'consumer.cts']);
      await must(process.execPath, [TSC, '-p', 'tsconfig.node16.json'], { cwd: consumer });
    });

    await step('TypeScript consumer, moduleResolution bundler', async () => {
      tsconfig('tsconfig.bundler.json', { module: 'esnext', moduleResolution: 'bundler' }, ['consumer.ts']);
      await must(process.execPath, [TSC, '-p', 'tsconfig.bundler.json'], { cwd: consumer });
    });

    await step('TypeScript declarations of the main and webhooks entries, skipLibCheck off', async () => {
      tsconfig('tsconfig.strict.json', { module: 'node16', moduleResolution: 'node16', skipLibCheck: false }, ['core.mts']);
      await must(process.execPath, [TSC, '-p', 'tsconfig.strict.json'], { cwd: consumer });
    });

    await step('TypeScript declarations of the testing entry without msw installed, skipLibCheck off', async () => {
      writeFileSync(join(consumer, 'testing-only.mts'), testingOnlyTs());
      tsconfig('tsconfig.testing.json', { module: 'node16', moduleResolution: 'node16', skipLibCheck: false }, ['testing-only.mts']);
      await must(process.execPath, [TSC, '-p', 'tsconfig.testing.json'], { cwd: consumer });
    });

    await step('TypeScript declarations of the main and webhooks entries without @types/node (types: []), skipLibCheck off', async () => {
      writeFileSync(join(consumer, 'main-only.mts'), mainOnlyTs());
      tsconfig('tsconfig.no-node.json', { module: 'node16', moduleResolution: 'node16', skipLibCheck: false, types: [] }, [
        'main-only.mts',
      ]);
      await must(process.execPath, [TSC, '-p', 'tsconfig.no-node.json'], { cwd: consumer });
    });
  } finally {
    if (keep) console.log(`consumer project kept at ${consumer}`);
    else rmSync(work, { recursive: true, force: true });
  }

  const total = Math.round(performance.now() - started);
  console.log(`\nAll package gates passed in ${(total / 1000).toFixed(1)} s:`);
  for (const t of timings) console.log(`  ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.step}`);
}

/**
 * The budget for what a consumer ships with `MerchantClient` and one call. Measured the
 * same way as `npm run bench`'s bundle row, from the installed tarball: a namespace access into
 * zod once pulled all of zod core into it (517 KB) and no other gate noticed. 160,000 since the
 * intent journal learned to hold inside outages: its hook and recovery ship inside every
 * client (the client cannot know at build time whether it will be given a journal): 156,899 bytes
 * then, with the rejection of bad input.
 */
const BUNDLE_BUDGET_BYTES = 160_000;

async function bundleBudget(consumer: string): Promise<void> {
  writeFileSync(
    join(consumer, 'one-call.mjs'),
    `import { MerchantClient } from 'merchant-stablecoin';
const client = new MerchantClient();
console.log(await client.member('m').withdrawals.create({ asset: 'USDT', amount: '1.00', to_address: 'T' }));
await client.close();
`,
  );
  for (const platform of ['node', 'neutral']) {
    const outfile = join(consumer, `one-call.${platform}.bundle.mjs`);
    silentBundler(
      await must(
        join(BIN, 'esbuild'),
        ['one-call.mjs', '--bundle', `--platform=${platform}`, '--format=esm', '--minify', `--outfile=${outfile}`],
        { cwd: consumer },
      ),
    );
    const bytes = statSync(outfile).size;
    console.log(`  ${platform}: ${bytes.toLocaleString('en-US')} bytes`);
    if (bytes > BUNDLE_BUDGET_BYTES)
      throw new GateFailure(
        `the one-call consumer bundle (platform ${platform}) is ${bytes} bytes, over the budget of ${BUNDLE_BUDGET_BYTES}`,
      );
  }
}

/**
 * Fails on any warning a consumer's bundler prints: esbuild once warned on every build that it
 * ignored the entries' bare chunk imports ("marked as having no side effects").
 */
function silentBundler(output: string): void {
  if (/warning/i.test(output)) throw new GateFailure(`esbuild warned while bundling the installed package:\n${output}`);
}

/**
 * Every entry a consumer imports, bundled by esbuild as an application would (ESM, platform
 * node; the optional peers left to the application), without a single warning.
 */
async function bundleEveryEntry(consumer: string): Promise<void> {
  const entries = Object.keys(pkg.exports).filter((k) => k !== './package.json');
  const lines = entries.map((k, i) => `import * as e${i} from '${k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`}';`);
  writeFileSync(
    join(consumer, 'every-entry.mjs'),
    `${lines.join('\n')}\nconsole.log(${entries.map((_, i) => `Object.keys(e${i}).length`).join(' + ')});\n`,
  );
  const external = ['msw', 'msw/*', 'ioredis', 'pg', '@opentelemetry/api'].map((e) => `--external:${e}`);
  silentBundler(
    await must(
      join(BIN, 'esbuild'),
      ['every-entry.mjs', '--bundle', '--platform=node', '--format=esm', ...external, '--outfile=every-entry.bundle.mjs'],
      {
        cwd: consumer,
      },
    ),
  );
}

/**
 * Fails on what npm says about the package's install scripts. npm 11 lists the lifecycle
 * scripts of a non-registry dependency (a tarball's `prepare` included) that its `allowScripts`
 * does not cover; the packed package.json has none (prepack leaves `prepare` out).
 */
function installWarnings(output: string): void {
  const lines = output.split('\n').filter((l) => /^npm warn/i.test(l) && /install-scripts|allowScripts|merchant-stablecoin/.test(l));
  if (lines.length > 0) throw new GateFailure(`npm warned while installing the tarball:\n${lines.join('\n')}`);
}

/** A fenced block of `lang` after `heading` in a Markdown text. */
function blockAfter(markdown: string, heading: string, lang: string): string {
  const at = markdown.indexOf(heading);
  const m = at < 0 ? null : new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\``, 'm').exec(markdown.slice(at));
  if (m === null) throw new GateFailure(`no ${lang} block after "${heading}"`);
  return m[1]!;
}

/**
 * What a user does first, in an empty folder, by the installed guides: `npm init -y`, the
 * README's `npm install ./<tarball>`, the getting-started guide's first call (no credentials),
 * then the sandbox command through npx (the installed copy: npx finds it in node_modules/.bin and
 * downloads nothing) and the README's quickstart, as printed, configured only by the variables the
 * command exported.
 */
async function firstSteps(work: string, tarball: string): Promise<void> {
  const dir = join(work, 'first-steps');
  mkdirSync(dir);
  const file = basename(tarball);
  copyFileSync(tarball, join(dir, file));
  await must(NPM, ['init', '-y'], { cwd: dir });
  installWarnings(await must(NPM, ['install', '--no-audit', '--no-fund', '--prefer-offline', `./${file}`], { cwd: dir }));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  if (manifest.dependencies?.[pkg.name] !== `file:${file}`)
    throw new GateFailure(`npm recorded ${JSON.stringify(manifest.dependencies)}, not the file: dependency the README names`);
  const guides = join(dir, 'node_modules', pkg.name);

  const gettingStarted = readFileSync(join(guides, 'docs', 'getting-started.md'), 'utf8');
  writeFileSync(join(dir, 'first-call.mjs'), blockAfter(gettingStarted, '## 1. A first call with no credentials', 'ts'));
  const first = await must(process.execPath, ['first-call.mjs'], { cwd: dir, timeoutMs: 60_000 });
  if (!/^wdr_\S+ locked$/m.test(first)) throw new GateFailure(`getting-started's first call printed:\n${first}`);

  const readme = readFileSync(join(guides, 'README.md'), 'utf8');
  writeFileSync(join(dir, 'quickstart.mjs'), blockAfter(readme, '## Quickstart', 'ts'));
  const { env, stop } = await startSandboxCommand(NPX, [`${pkg.name}-sandbox`, '--port', '0'], dir);
  try {
    const out = await must(process.execPath, ['quickstart.mjs'], { cwd: dir, env: { ...withoutMerchantEnv(), ...env }, timeoutMs: 60_000 });
    if (!/^wdr_\S+ locked$/m.test(out)) throw new GateFailure(`the README's quickstart printed:\n${out}`);
    process.stdout.write(`${first.split('\n')[0]!}; quickstart ${/^wdr_\S+/m.exec(out)![0]}; `);
  } finally {
    stop();
  }
}

/**
 * The README's form for a project that does not install the package: npx unpacks the tarball into
 * its cache and runs the command. npx asks before it installs; `npm_config_yes` answers that
 * question here, for this local file only (never for a name looked up on the registry).
 */
async function npxFromTarball(work: string, tarball: string): Promise<void> {
  const dir = join(work, 'npx-from-tarball');
  mkdirSync(dir);
  const file = basename(tarball);
  copyFileSync(tarball, join(dir, file));
  const out = await must(NPX, ['--package', `./${file}`, `${pkg.name}-sandbox`, '--help'], {
    cwd: dir,
    env: { ...process.env, npm_config_yes: 'true' },
    timeoutMs: 120_000,
  });
  installWarnings(out);
  if (!out.includes(`Usage: ${pkg.name}-sandbox`)) throw new GateFailure(`npx --package ./${file} printed:\n${out}`);
}

/** The environment without the developer's own MERCHANT_API_* settings. */
function withoutMerchantEnv(): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(base)) if (key.startsWith('MERCHANT_API_')) delete base[key];
  return base;
}

/** Starts the sandbox command; resolves with the four MERCHANT_API_* values it exported. */
async function startSandboxCommand(
  command: string,
  args: readonly string[],
  cwd: string,
): Promise<{ env: Record<string, string>; stop: () => void }> {
  // Its own process group: npx runs the command in a shell, and stopping the group stops them all.
  const child = spawn(command, args, {
    cwd,
    env: { ...withoutMerchantEnv(), PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const stop = (): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    } catch {
      child.kill('SIGTERM'); // the group is gone already, or no process groups here (Windows)
    }
  };
  try {
    const env = await printedCredentials(child, args[0] ?? command, 30_000);
    return { env, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/**
 * Relative links of the Markdown files in the tarball (outside code fences) whose target is not
 * in the tarball: a user reading the installed README or a guide would meet a dead link.
 */
function brokenLinks(packed: readonly string[]): string[] {
  const files = new Set(packed);
  const broken: string[] = [];
  for (const file of packed.filter((p) => p.endsWith('.md'))) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (link === undefined || /^([a-z]+:|#)/.test(link)) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), link.split('#')[0]!));
      if (!files.has(target)) broken.push(`${file} -> ${link}`);
    }
  }
  return broken;
}

/** Starts the installed command on a free port, then runs a client configured only by its output. */
async function binSmoke(consumer: string, name: string): Promise<void> {
  const binPath = join(consumer, 'node_modules', '.bin', name);
  if (!existsSync(binPath)) throw new GateFailure(`${name} is not installed in node_modules/.bin`);
  // The documentation `--help` names is in the installed package.
  const help = await must(binPath, ['--help'], { cwd: consumer, timeoutMs: 30_000 });
  const doc = /Documentation: (\S+)/.exec(help)?.[1];
  if (doc === undefined || !existsSync(join(consumer, doc))) throw new GateFailure(`${name} --help names no installed document:\n${help}`);
  const child = spawn(binPath, [], { cwd: consumer, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const env = await printedCredentials(child, name, 15_000);
    writeFileSync(join(consumer, 'env-smoke.mjs'), ENV_SMOKE_MJS);
    const base: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(base)) if (key.startsWith('MERCHANT_API_')) delete base[key];
    await must(process.execPath, ['env-smoke.mjs'], { cwd: consumer, env: { ...base, ...env }, timeoutMs: 30_000 });
  } finally {
    child.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof GateFailure ? `\n${err.message}` : err);
  console.error('\nPackage gates FAILED.');
  process.exit(1);
});

/** The four `MERCHANT_API_*` lines the sandbox command prints once it serves; fails if it exits or stays silent first. */
function printedCredentials(
  child: ChildProcessByStdio<null, Readable, Readable>,
  name: string,
  withinMs: number,
): Promise<Record<string, string>> {
  return new Promise<Record<string, string>>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new GateFailure(`${name} printed no credentials within ${withinMs / 1000} s:\n${out}`)),
      withinMs,
    );
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const vars = Object.fromEntries([...out.matchAll(/^(?:export )?(MERCHANT_API_[A-Z_]+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
      if (Object.keys(vars).length === 4) {
        clearTimeout(timer);
        resolve(vars);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new GateFailure(`${name} exited ${String(code)} before serving:\n${out}`));
    });
  });
}

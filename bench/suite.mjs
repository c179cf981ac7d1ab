// The benchmark suite proper. Started by run.mjs as `node --expose-gc bench/suite.mjs`; forks the
// server (server.mjs) into its own process and runs every contender against it, alternating
// contenders round by round (the starting contender rotates) so that drift hits all alike.
import { execFileSync, fork } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { cpus, availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { createHash, createHmac, randomUUID } from 'node:crypto';

const createHashModule = { createHash };
import * as C from './contenders.mjs';
import { journalCost } from './journal.mjs';
import { webhookCost } from './webhooks.mjs';
import { payoutConfig, payoutCost } from './payouts.mjs';
import { measureColdStart } from './cold-start.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
const CFG = {
  warmupCalls: QUICK ? 200 : 2000,
  latencyRounds: QUICK ? 3 : 11,
  latencyCallsPerRound: QUICK ? 100 : 400,
  throughputRounds: QUICK ? 2 : 7,
  throughputCallsPerRound: QUICK ? 640 : 4000,
  telemetryPairs: QUICK ? 3 : 15,
  journalRounds: QUICK ? 3 : 9,
  journalCallsPerRound: QUICK ? 100 : 400,
  journalCpuCallsPerRound: QUICK ? 640 : 2000,
  webhookRounds: QUICK ? 3 : 9,
  webhookDeliveriesPerRound: QUICK ? 100 : 400,
  webhookConcurrency: 16,
  webhookCpuDeliveriesPerRound: QUICK ? 320 : 1600,
  payouts: payoutConfig(QUICK),
  concurrency: 64,
  singleFlightCalls: 1000,
  paginationPages: Number(process.env.BENCH_PAGES ?? (QUICK ? 500 : 10_000)),
  pageSize: 100,
  paginationRounds: QUICK ? 1 : 3,
  pageRoundTrips: QUICK ? 100 : 400,
  importRuns: QUICK ? 3 : 15,
  coldStartRuns: QUICK ? 3 : 11,
  microIterations: QUICK ? 5_000 : 50_000,
};

if (typeof globalThis.gc !== 'function') {
  console.error('suite.mjs needs --expose-gc (run it through `npm run bench`).');
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// statistics

const median = (xs) => quantile(xs, 0.5);
function quantile(xs, q) {
  const s = Float64Array.from(xs).sort();
  if (s.length === 0) return NaN;
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
const round = (x, d = 2) => (Number.isFinite(x) ? Number(x.toFixed(d)) : null);
const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);
const log = (...a) => console.error(...a);

// ---------------------------------------------------------------------------------------------
// server

const server = fork(join(C.BENCH_DIR, 'server.mjs'), [], {
  env: { ...process.env, BENCH_PAGES: String(CFG.paginationPages) },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const { port } = await new Promise((resolve, reject) => {
  server.once('message', resolve);
  server.once('error', reject);
  server.once('exit', (code) => reject(new Error(`server exited (${code})`)));
});
const ORIGIN = `http://127.0.0.1:${port}`;
const admin = new C.undici.Agent({ connections: 1 });
async function serverPost(path) {
  const res = await C.undici.request(ORIGIN + path, { method: 'POST', dispatcher: admin });
  return res.body.json();
}
async function serverStats() {
  const res = await C.undici.request(ORIGIN + '/__stats', { dispatcher: admin });
  return res.body.json();
}

const started = performance.now();
const results = {
  machine: {
    node: process.version,
    v8: process.versions.v8,
    platform: `${process.platform}-${process.arch}`,
    cpuCount: availableParallelism(),
    cpuModel: cpus()[0]?.model?.trim() ?? 'unknown',
    // Other work on the machine shows here: the medians are robust to it, the p99s are not.
    loadAverageAtStart: loadavg().map((x) => round(x, 2)),
    date: new Date().toISOString(),
  },
  config: { ...CFG, quick: QUICK },
};

try {
  const sdk = await C.importSdk();
  const token = await C.fetchToken(ORIGIN);

  // -------------------------------------------------------------------------------------------
  // 1. One signed, idempotent POST: latency at concurrency 1, throughput at concurrency 64.
  const contenders = [
    C.minimalClient(ORIGIN, token),
    C.rawClient(ORIGIN, token),
    C.sdkClient(sdk, ORIGIN),
    // Telemetry off: nothing of OpenTelemetry is loaded (the same as when it is not installed).
    C.sdkClient(sdk, ORIGIN, { telemetry: { enabled: false } }, 'sdkNoTelemetry'),
    await C.openaiClient(ORIGIN, token),
    C.stripeClient(ORIGIN, token),
    C.fetchClient(ORIGIN, token),
  ];
  const names = contenders.map((c) => c.name);
  log(`server on ${ORIGIN}; contenders: ${names.join(', ')}`);

  for (const c of contenders) {
    const check = await c.call();
    const order = typeof check === 'string' ? JSON.parse(check) : check;
    if (order.id === undefined || order.status !== 'locked') throw new Error(`${c.name} returned ${JSON.stringify(check)}`);
  }
  log('warm-up');
  for (const k of [0, 1]) for (const c of rotate(contenders, k)) for (let i = 0; i < CFG.warmupCalls / 2; i++) await c.call();

  log('latency at concurrency 1');
  const latency = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < CFG.latencyRounds; r++) {
    for (const c of rotate(contenders, r)) {
      const out = latency[c.name];
      for (let i = 0; i < CFG.latencyCallsPerRound; i++) {
        const t = performance.now();
        await c.call();
        out.push((performance.now() - t) * 1000);
      }
    }
  }

  log(`throughput at concurrency ${CFG.concurrency}`);
  const throughput = Object.fromEntries(names.map((n) => [n, { rps: [], cpuPerCall: [] }]));
  for (let r = 0; r < CFG.throughputRounds; r++) {
    for (const c of rotate(contenders, r)) {
      let next = 0;
      const total = CFG.throughputCallsPerRound;
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CFG.concurrency }, async () => {
          while (next++ < total) await c.call();
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      throughput[c.name].rps.push(total / seconds);
      throughput[c.name].cpuPerCall.push((cpu.user + cpu.system) / total);
    }
  }
  // The cost of telemetry with @opentelemetry/api installed and no tracer registered: the same
  // client with telemetry on and off, in back-to-back pairs whose order alternates, so that drift
  // of the machine cancels out; CPU per call is what reporting would add.
  log('telemetry: no tracer registered vs off, paired rounds');
  const byName = Object.fromEntries(contenders.map((c) => [c.name, c]));
  const telemetryCpu = { sdk: [], sdkNoTelemetry: [], ratio: [] };
  for (let r = 0; r < CFG.telemetryPairs; r++) {
    const pair = {};
    for (const name of r % 2 ? ['sdk', 'sdkNoTelemetry'] : ['sdkNoTelemetry', 'sdk']) {
      let next = 0;
      const cpu0 = process.cpuUsage();
      await Promise.all(
        Array.from({ length: CFG.concurrency }, async () => {
          while (next++ < CFG.throughputCallsPerRound) await byName[name].call();
        }),
      );
      const cpu = process.cpuUsage(cpu0);
      pair[name] = (cpu.user + cpu.system) / CFG.throughputCallsPerRound;
      telemetryCpu[name].push(pair[name]);
    }
    telemetryCpu.ratio.push(pair.sdk / pair.sdkNoTelemetry);
  }
  results.telemetryNoTracer = {
    pairs: CFG.telemetryPairs,
    callsPerRound: CFG.throughputCallsPerRound,
    noTracerCpuUsPerCall: round(median(telemetryCpu.sdk), 1),
    offCpuUsPerCall: round(median(telemetryCpu.sdkNoTelemetry), 1),
    pairedRatioMedian: round(median(telemetryCpu.ratio), 3),
    pairedRatioRange: [round(Math.min(...telemetryCpu.ratio), 3), round(Math.max(...telemetryCpu.ratio), 3)],
  };
  for (const c of contenders) await c.close();

  results.post = {};
  for (const n of names) {
    results.post[n] = {
      latencyMedianUs: round(median(latency[n]), 1),
      latencyP99Us: round(quantile(latency[n], 0.99), 1),
      latencySamples: latency[n].length,
      throughputRps: round(median(throughput[n].rps), 0),
      clientCpuUsPerCall: round(median(throughput[n].cpuPerCall), 1),
    };
  }

  // -------------------------------------------------------------------------------------------
  // 1b. The intent journal's cost per money-moving call: no journal, MemoryJournal, RedisJournal,
  // PostgresJournal.
  log('intent journal: none, MemoryJournal, RedisJournal, PostgresJournal');
  results.journal = await journalCost(
    sdk,
    ORIGIN,
    {
      rounds: CFG.journalRounds,
      callsPerRound: CFG.journalCallsPerRound,
      concurrency: CFG.concurrency,
      cpuCallsPerRound: CFG.journalCpuCallsPerRound,
      warmupCalls: CFG.warmupCalls / 2,
    },
    log,
  );

  // -------------------------------------------------------------------------------------------
  // 1c. A webhook delivery's cost per event store: MemoryEventStore, RedisEventStore,
  // PostgresEventStore (and with the merchant's one-row write: autocommit vs in the transaction).
  log('webhook delivery: MemoryEventStore, RedisEventStore, PostgresEventStore');
  results.webhooks = await webhookCost(
    {
      rounds: CFG.webhookRounds,
      deliveriesPerRound: CFG.webhookDeliveriesPerRound,
      concurrency: CFG.webhookConcurrency,
      cpuDeliveriesPerRound: CFG.webhookCpuDeliveriesPerRound,
      warmup: CFG.warmupCalls / 4,
    },
    log,
  );

  // -------------------------------------------------------------------------------------------
  // 1d. A whole payout through PayoutWorkflow per payout store, against the SDK's bare debit and
  // confirm: MemoryPayoutStore, RedisPayoutStore, PostgresPayoutStore.
  log('payouts: bare calls, MemoryPayoutStore, RedisPayoutStore, PostgresPayoutStore');
  results.payouts = await payoutCost(sdk, ORIGIN, CFG.payouts, log);

  // -------------------------------------------------------------------------------------------
  // 2. Token single-flight: 1,000 concurrent calls on a cold client.
  log('token single-flight');
  await serverPost('/__reset?delay=25');
  {
    const cold = C.sdkClient(sdk, ORIGIN);
    const t0 = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: CFG.singleFlightCalls }, () => cold.call()));
    const ms = performance.now() - t0;
    const { tokenExchanges } = await serverStats();
    results.tokenSingleFlight = {
      calls: CFG.singleFlightCalls,
      succeeded: settled.filter((s) => s.status === 'fulfilled').length,
      tokenExchanges,
      serverTokenDelayMs: 25,
      totalMs: round(ms, 1),
    };
    await cold.close();
  }
  await serverPost('/__reset?delay=0');

  // -------------------------------------------------------------------------------------------
  // 3. Pagination: iterate every report, SDK `for await` against a hand-written undici loop.
  log(`pagination: ${CFG.paginationPages} pages of ${CFG.pageSize}`);
  const expectedItems = CFG.paginationPages * CFG.pageSize;
  const pageDispatcher = new C.undici.Agent({ connections: 1 });
  const pageClient = new sdk.MerchantClient({ baseUrl: ORIGIN, ...C.CREDENTIALS });
  await pageClient.reports.list({ limit: 1 }); // token cached, pool warm

  async function handLoop(onPage) {
    let cursor;
    let items = 0;
    let pages = 0;
    for (;;) {
      const path = `/v1/reports?limit=${CFG.pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await C.undici.request(ORIGIN + path, {
        dispatcher: pageDispatcher,
        headers: { accept: 'application/json', 'x-auth-token': `Bearer ${token}` },
      });
      const page = JSON.parse(await res.body.text());
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      for (const report of page.data) if (report.id !== '') items++;
      if (++pages % 500 === 0 && onPage) onPage();
      if (!page.has_more) return items;
      cursor = page.next_cursor;
    }
  }
  async function sdkLoop(onPage) {
    let items = 0;
    for await (const report of pageClient.reports.list({ limit: CFG.pageSize })) {
      if (report.id !== '') items++;
      if (items % (500 * CFG.pageSize) === 0 && onPage) onPage();
    }
    return items;
  }
  const loops = { hand: handLoop, sdk: sdkLoop };
  const pageRuns = { hand: { ms: [], heapGrowth: [] }, sdk: { ms: [], heapGrowth: [] } };
  const heapAfterGc = () => {
    globalThis.gc();
    globalThis.gc();
    return process.memoryUsage().heapUsed;
  };
  for (let r = 0; r < CFG.paginationRounds; r++) {
    for (const name of rotate(['hand', 'sdk'], r)) {
      const before = heapAfterGc();
      const t0 = performance.now();
      const items = await loops[name]();
      const ms = performance.now() - t0;
      if (items !== expectedItems) throw new Error(`${name} pagination saw ${items} items, expected ${expectedItems}`);
      pageRuns[name].ms.push(ms);
      pageRuns[name].heapGrowth.push(heapAfterGc() - before);
      log(`  ${name}: ${(ms / 1000).toFixed(2)} s`);
    }
  }
  // One more SDK pass sampling the post-GC heap every 500 pages: flat during, not only after.
  let sampledMax = -Infinity;
  {
    const before = heapAfterGc();
    await sdkLoop(() => {
      sampledMax = Math.max(sampledMax, heapAfterGc() - before);
    });
    sampledMax = Math.max(sampledMax, heapAfterGc() - before);
  }
  const handMs = median(pageRuns.hand.ms);
  const sdkMs = median(pageRuns.sdk.ms);
  results.pagination = {
    items: expectedItems,
    pages: CFG.paginationPages,
    runsEach: CFG.paginationRounds,
    handMs: round(handMs, 0),
    sdkMs: round(sdkMs, 0),
    handItemsPerSec: round(expectedItems / (handMs / 1000), 0),
    sdkItemsPerSec: round(expectedItems / (sdkMs / 1000), 0),
    sdkSpeedVsHand: round(handMs / sdkMs, 3),
    sdkHeapGrowthAfterGcMB: round(Math.max(...pageRuns.sdk.heapGrowth) / 2 ** 20, 3),
    sdkHeapGrowthSampledMaxMB: round(sampledMax / 2 ** 20, 3),
    handHeapGrowthAfterGcMB: round(Math.max(...pageRuns.hand.heapGrowth) / 2 ** 20, 3),
  };

  // -------------------------------------------------------------------------------------------
  // 4. Validation cost of one 100-item page against that page's round trip (SDK, concurrency 1).
  log('validation cost');
  const internals = await bundleInternals();
  const pageBody = await (await C.undici.request(`${ORIGIN}/v1/reports?limit=${CFG.pageSize}`, { dispatcher: pageDispatcher })).body.text();
  const pageJson = JSON.parse(pageBody);
  const schema = internals.REPORTS_LIST.response;
  if (!schema.safeParse(pageJson).success) throw new Error('the canned page does not validate');
  const rtSdk = [];
  const rtHand = [];
  const validateUs = [];
  const parseUs = [];
  for (let r = 0; r < 4; r++) {
    for (let i = 0; i < CFG.pageRoundTrips / 4; i++) {
      let t = performance.now();
      await pageClient.reports.list({ limit: CFG.pageSize });
      rtSdk.push((performance.now() - t) * 1000);
      t = performance.now();
      const res = await C.undici.request(`${ORIGIN}/v1/reports?limit=${CFG.pageSize}`, {
        dispatcher: pageDispatcher,
        headers: { 'x-auth-token': `Bearer ${token}` },
      });
      JSON.parse(await res.body.text());
      rtHand.push((performance.now() - t) * 1000);
    }
    // Timed in batches of 20 (a single parse is close to the timer's resolution).
    for (let i = 0; i < 50; i++) {
      let t = performance.now();
      for (let j = 0; j < 20; j++) schema.safeParse(pageJson);
      validateUs.push(((performance.now() - t) * 1000) / 20);
      t = performance.now();
      for (let j = 0; j < 20; j++) JSON.parse(pageBody);
      parseUs.push(((performance.now() - t) * 1000) / 20);
    }
  }
  results.validation = {
    pageItems: CFG.pageSize,
    pageBytes: Buffer.byteLength(pageBody),
    validateUs: round(median(validateUs), 1),
    jsonParseUs: round(median(parseUs), 1),
    sdkPageRoundTripUs: round(median(rtSdk), 1),
    handPageRoundTripUs: round(median(rtHand), 1),
    fractionOfRoundTrip: round(median(validateUs) / median(rtSdk), 4),
  };
  await pageClient.close();
  await pageDispatcher.close();

  // -------------------------------------------------------------------------------------------
  // 5. Per-request signing cost: the SDK's own code (bundled from src/) against the inline version.
  log('signing cost');
  {
    const body = Buffer.from(JSON.stringify(C.WITHDRAWAL));
    const key = C.CREDENTIALS.signingKey;
    const n = CFG.microIterations;
    // The SDK's two signers behind one interface: node:crypto (keyed HMAC reused, synchronous)
    // where the runtime has it, Web Crypto (asynchronous) elsewhere. The client picks the first
    // wherever it exists, because it measures faster here.
    const nodeSigner = new internals.NodeCryptoSigner(createHashModule, key);
    const webSigner = new internals.WebCryptoSigner(key);
    const sdkSign = () => internals.signAttempt(nodeSigner, 'POST', '/v1/withdrawals', internals.bodySha256(nodeSigner, body), Date.now());
    const webSign = async () =>
      internals.signAttempt(webSigner, 'POST', '/v1/withdrawals', await internals.bodySha256(webSigner, body), Date.now());
    const webUs = [];
    await webSign(); // the key is imported once per client, on the first signature
    for (let r = 0; r < 10; r++) {
      const t = performance.now();
      for (let i = 0; i < n / 10; i++) await webSign();
      webUs.push(((performance.now() - t) * 1000) / (n / 10));
    }
    const inlineSign = () => {
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomUUID();
      const hash = createHash('sha256').update(body).digest('hex');
      return createHmac('sha256', key).update(`POST\n/v1/withdrawals\n${ts}\n${nonce}\n${hash}`).digest('base64') + nonce;
    };
    // Keyed HMAC reuse, for information: inner and outer pad states hashed once, copied per call.
    const block = Buffer.alloc(64);
    Buffer.from(key).copy(block); // keys up to 64 bytes, as here
    const inner = createHash('sha256').update(block.map((b) => b ^ 0x36));
    const outer = createHash('sha256').update(block.map((b) => b ^ 0x5c));
    const keyedMac = (data) => outer.copy().update(inner.copy().update(data).digest()).digest('base64');
    if (keyedMac('check') !== createHmac('sha256', key).update('check').digest('base64')) throw new Error('keyed HMAC mismatch');
    const keyedSign = () => {
      const ts = String(Math.floor(Date.now() / 1000));
      const nonce = randomUUID();
      const hash = createHash('sha256').update(body).digest('hex');
      return keyedMac(`POST\n/v1/withdrawals\n${ts}\n${nonce}\n${hash}`) + nonce;
    };
    const sdkUs = [];
    const inlineUs = [];
    const keyedUs = [];
    for (let r = 0; r < 10; r++) {
      for (const [fn, out] of rotate(
        [
          [sdkSign, sdkUs],
          [inlineSign, inlineUs],
          [keyedSign, keyedUs],
        ],
        r,
      )) {
        const t = performance.now();
        for (let i = 0; i < n / 10; i++) fn();
        out.push(((performance.now() - t) * 1000) / (n / 10));
      }
    }
    results.signing = {
      sdkUsPerRequest: round(median(sdkUs), 2),
      inlineUsPerRequest: round(median(inlineUs), 2),
      keyedHmacReuseUsPerRequest: round(median(keyedUs), 2),
      sdkWebCryptoUsPerRequest: round(median(webUs), 2),
      note: 'sha256 of the body + HMAC-SHA256 base64 + nonce + timestamp; SDK = its node:crypto signer (pad states hashed once, copied per call); sdkWebCrypto = its Web Crypto signer (crypto.subtle, key imported once), awaited per request',
    };
  }

  // -------------------------------------------------------------------------------------------
  // 5b. What one call's reporting costs with @opentelemetry/api handed to the SDK and no tracer
  // registered (the SDK does not load it by itself before something is registered): its own
  // telemetry code (span start, an attempt event, inject, end, metrics) against its no-op, as a
  // share of a call's client CPU.
  log('telemetry cost, API given, no tracer registered');
  {
    const otelApi = await import(pathToFileURL(createRequire(join(C.ROOT, 'package.json')).resolve('@opentelemetry/api')).href);
    const state = { idempotencyKey: 'k', sent: 'yes', status: 201, requestId: 'req_1', attempts: 1 };
    const report = (telemetry) => () => {
      const trace = telemetry.startCall({ name: 'withdrawals.create', method: 'POST', route: '/v1/withdrawals', idempotencyKey: 'k' });
      trace.event('attempt', { attempt: 1, 'http.response.status_code': 201, duration_ms: 1 });
      trace.inject({});
      trace.end({ state, outcome: 'success', replayed: false });
    };
    const installed = report(internals.createTelemetry({ api: otelApi }));
    const off = report(internals.createTelemetry({ enabled: false }));
    const onUs = [];
    const offUs = [];
    const n = CFG.microIterations;
    for (let r = 0; r < 10; r++) {
      for (const [fn, out] of rotate(
        [
          [installed, onUs],
          [off, offUs],
        ],
        r,
      )) {
        const t = performance.now();
        for (let i = 0; i < n / 10; i++) fn();
        out.push(((performance.now() - t) * 1000) / (n / 10));
      }
    }
    const addedUs = Math.max(0, median(onUs) - median(offUs));
    results.telemetryNoTracer.reportingUsPerCall = round(median(onUs), 2);
    results.telemetryNoTracer.offUsPerCall = round(median(offUs), 2);
    results.telemetryNoTracer.addedShareOfCallCpu = round(addedUs / results.post.sdkNoTelemetry.clientCpuUsPerCall, 4);
  }

  // -------------------------------------------------------------------------------------------
  // 6. Import time of the built package vs each peer, in fresh processes (median).
  log('import time');
  {
    const benchRequire = createRequire(join(C.BENCH_DIR, 'package.json'));
    const targets = {
      sdk: { cjs: join(C.ROOT, 'dist', 'index.cjs'), esm: pathToFileURL(join(C.ROOT, 'dist', 'index.js')).href },
      openai: { cjs: benchRequire.resolve('openai'), esm: import.meta.resolve('openai') },
      stripe: { cjs: benchRequire.resolve('stripe'), esm: import.meta.resolve('stripe') },
      // For information: the SDK's dependencies alone, by bare name from the root so that each
      // format gets its own entry. dist/ carries its own tree-shaken copy of zod/mini's code, so
      // the SDK's import no longer loads zod/mini from node_modules; undici loads on the first call.
      zod: { cjs: 'zod/mini', esm: 'zod/mini', cwd: C.ROOT },
      undici: { cjs: 'undici', esm: 'undici', cwd: C.ROOT },
    };
    const variants = [];
    for (const [pkg, t] of Object.entries(targets)) {
      variants.push({
        pkg,
        kind: 'cjs',
        cwd: t.cwd ?? C.BENCH_DIR,
        args: [
          '-e',
          `const t=process.hrtime.bigint();require(${JSON.stringify(t.cjs)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`,
        ],
      });
      variants.push({
        pkg,
        kind: 'esm',
        cwd: t.cwd ?? C.BENCH_DIR,
        args: [
          '--input-type=module',
          '-e',
          `const t=process.hrtime.bigint();await import(${JSON.stringify(t.esm)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`,
        ],
      });
    }
    const times = Object.fromEntries(variants.map((v) => [`${v.pkg}.${v.kind}`, []]));
    const wall = Object.fromEntries(variants.map((v) => [`${v.pkg}.${v.kind}`, []]));
    for (let r = -1; r < CFG.importRuns; r++) {
      for (const v of rotate(variants, Math.max(r, 0))) {
        const t0 = performance.now();
        const out = execFileSync(process.execPath, v.args, { cwd: v.cwd, encoding: 'utf8' });
        const w = performance.now() - t0;
        if (r >= 0) {
          times[`${v.pkg}.${v.kind}`].push(Number(out));
          wall[`${v.pkg}.${v.kind}`].push(w);
        }
      }
    }
    results.import = {};
    for (const key of Object.keys(times))
      results.import[key] = { loadMs: round(median(times[key]), 2), processWallMs: round(median(wall[key]), 1) };

    // Cold start: import, then the first signed call (token exchange included), in alternating
    // pairs of fresh processes (cold-start.mjs, which `npm run bench:cold-start` runs alone).
    results.coldStart = measureColdStart({ origin: ORIGIN, sdkEntry: targets.sdk.esm, pairs: CFG.coldStartRuns });
  }

  // -------------------------------------------------------------------------------------------
  // 7. What a consumer ships: `MerchantClient` and one call, bundled by esbuild from dist/ as the
  // package's exports resolve it (platform node, ESM, minified; and platform-neutral).
  log('bundle size');
  results.bundle = await consumerBundle();

  // -------------------------------------------------------------------------------------------
  // ratios and targets
  const p = results.post;
  const imp = results.import;
  results.ratios = {
    latencySdkOverMinimal: round(p.sdk.latencyMedianUs / p.minimal.latencyMedianUs, 3),
    latencyNoTracerOverTelemetryOff: round(p.sdk.latencyMedianUs / p.sdkNoTelemetry.latencyMedianUs, 3),
    throughputSdkOverMinimal: round(p.sdk.throughputRps / p.minimal.throughputRps, 3),
    latencyRawOverMinimal: round(p.raw.latencyMedianUs / p.minimal.latencyMedianUs, 3),
    latencySdkOverOpenai: round(p.sdk.latencyMedianUs / p.openai.latencyMedianUs, 3),
    latencySdkOverStripe: round(p.sdk.latencyMedianUs / p.stripe.latencyMedianUs, 3),
    latencySdkOverFetch: round(p.sdk.latencyMedianUs / p.fetch.latencyMedianUs, 3),
    throughputSdkOverOpenai: round(p.sdk.throughputRps / p.openai.throughputRps, 3),
    throughputSdkOverStripe: round(p.sdk.throughputRps / p.stripe.throughputRps, 3),
    throughputSdkOverFetch: round(p.sdk.throughputRps / p.fetch.throughputRps, 3),
    importCjsSdkOverOpenai: round(imp['sdk.cjs'].loadMs / imp['openai.cjs'].loadMs, 3),
    importCjsSdkOverStripe: round(imp['sdk.cjs'].loadMs / imp['stripe.cjs'].loadMs, 3),
    importEsmSdkOverOpenai: round(imp['sdk.esm'].loadMs / imp['openai.esm'].loadMs, 3),
    importEsmSdkOverStripe: round(imp['sdk.esm'].loadMs / imp['stripe.esm'].loadMs, 3),
    coldStartSdkOverMinimal: results.coldStart.ratio,
    coldStartCpuSdkOverMinimal: results.coldStart.cpuRatio,
  };
  const R = results.ratios;
  const target = (name, measured, goal, met) => ({ name, measured, goal, met });
  results.targets = [
    target('latency c=1 median, SDK / minimal', R.latencySdkOverMinimal, '<= 1.10', R.latencySdkOverMinimal <= 1.1),
    target('throughput c=64, SDK / minimal', R.throughputSdkOverMinimal, '>= 0.90', R.throughputSdkOverMinimal >= 0.9),
    target('latency median, SDK / openai', R.latencySdkOverOpenai, '< 1', R.latencySdkOverOpenai < 1),
    target('latency median, SDK / stripe', R.latencySdkOverStripe, '< 1', R.latencySdkOverStripe < 1),
    target('latency median, SDK / fetch', R.latencySdkOverFetch, '< 1', R.latencySdkOverFetch < 1),
    target(
      "telemetry, API given and no tracer registered: the reporting's added CPU / a call's client CPU",
      results.telemetryNoTracer.addedShareOfCallCpu,
      '<= 0.03',
      results.telemetryNoTracer.addedShareOfCallCpu <= 0.03,
    ),
    target(
      'token exchanges for 1,000 cold concurrent calls',
      results.tokenSingleFlight.tokenExchanges,
      '= 1',
      results.tokenSingleFlight.tokenExchanges === 1 && results.tokenSingleFlight.succeeded === CFG.singleFlightCalls,
    ),
    target(
      'pagination heap growth after GC (MB)',
      Math.max(results.pagination.sdkHeapGrowthAfterGcMB, results.pagination.sdkHeapGrowthSampledMaxMB),
      '< 10',
      Math.max(results.pagination.sdkHeapGrowthAfterGcMB, results.pagination.sdkHeapGrowthSampledMaxMB) < 10,
    ),
    target('pagination speed, SDK / hand loop', results.pagination.sdkSpeedVsHand, '>= 0.80', results.pagination.sdkSpeedVsHand >= 0.8),
    target(
      'validation of a 100-item page / its round trip',
      results.validation.fractionOfRoundTrip,
      '< 0.10',
      results.validation.fractionOfRoundTrip < 0.1,
    ),
    target('import CJS, SDK / openai', R.importCjsSdkOverOpenai, '<= 0.5', R.importCjsSdkOverOpenai <= 0.5),
    target('import CJS, SDK / stripe', R.importCjsSdkOverStripe, '<= 0.5', R.importCjsSdkOverStripe <= 0.5),
    target('import ESM, SDK / openai', R.importEsmSdkOverOpenai, '<= 0.5', R.importEsmSdkOverOpenai <= 0.5),
    target('import ESM, SDK / stripe', R.importEsmSdkOverStripe, '<= 0.5', R.importEsmSdkOverStripe <= 0.5),
    target('cold start, SDK / minimal (median of pair ratios)', R.coldStartSdkOverMinimal, '<= 1.15', R.coldStartSdkOverMinimal <= 1.15),
    target('cold start CPU time, SDK / minimal', R.coldStartCpuSdkOverMinimal, '<= 1.15', R.coldStartCpuSdkOverMinimal <= 1.15),
    target(
      'one-call consumer bundle (esbuild, node, ESM, minified), bytes',
      results.bundle.nodeEsmMinifiedBytes,
      '<= 160000',
      results.bundle.nodeEsmMinifiedBytes <= 160_000,
    ),
  ];
  results.durationSeconds = round((performance.now() - started) / 1000, 1);

  writeFileSync(join(C.BENCH_DIR, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  console.log(renderTable(results));
} finally {
  await admin.close();
  server.kill();
}

// ---------------------------------------------------------------------------------------------

async function bundleInternals() {
  const rootRequire = createRequire(join(C.ROOT, 'package.json'));
  const esbuild = rootRequire('esbuild');
  const dir = join(C.BENCH_DIR, '.cache');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, 'internals.mjs');
  await esbuild.build({
    entryPoints: [join(C.BENCH_DIR, 'internals.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    external: ['zod', 'undici', 'decimal.js', '@opentelemetry/api'],
    logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href + `?t=${Date.now()}`);
}

async function consumerBundle() {
  const esbuild = createRequire(join(C.ROOT, 'package.json'))('esbuild');
  const entry = `import { MerchantClient } from 'merchant-stablecoin';
const client = new MerchantClient();
console.log(await client.member('m').withdrawals.create({ asset: 'USDT', amount: '1.00', to_address: 'T' }));
await client.close();`;
  // The package by its own name, through its exports map, as a consumer's node_modules holds it.
  const consumer = join(C.BENCH_DIR, '.cache', 'consumer');
  mkdirSync(join(consumer, 'node_modules'), { recursive: true });
  rmSync(join(consumer, 'node_modules', 'merchant-stablecoin'), { force: true });
  symlinkSync(C.ROOT, join(consumer, 'node_modules', 'merchant-stablecoin'), 'dir');
  const size = async (platform) => {
    const out = await esbuild.build({
      stdin: { contents: entry, resolveDir: consumer, loader: 'js' },
      bundle: true,
      platform,
      format: 'esm',
      minify: true,
      write: false,
      logLevel: 'error',
    });
    return out.outputFiles[0].contents.length;
  };
  return {
    nodeEsmMinifiedBytes: await size('node'),
    neutralMinifiedBytes: await size('neutral'),
    note: 'MerchantClient + one withdrawal call, esbuild from dist/ through the exports map; before issue 18: 1,076,170 bytes (node)',
  };
}

function renderTable(r) {
  const lines = [];
  const m = r.machine;
  lines.push(
    `Machine: Node ${m.node}, ${m.cpuCount} CPUs (${m.cpuModel}), ${m.platform}, load average at start ${m.loadAverageAtStart.join(' / ')}; run took ${r.durationSeconds} s`,
  );
  lines.push('');
  lines.push('One signed, idempotent POST /v1/withdrawals with a JSON response (loopback server, separate process)');
  lines.push('');
  lines.push(
    '| contender | latency c=1 median (µs) | p99 (µs) | vs minimal | throughput c=64 (req/s) | vs minimal | client CPU/call (µs) |',
  );
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  const label = {
    minimal: '(a) minimal correct client (undici + node:crypto)',
    raw: "(a') raw undici.request, pre-built headers",
    sdk: '(b) merchant-stablecoin (full pipeline; @opentelemetry/api installed, no tracer registered)',
    sdkNoTelemetry: '(b) merchant-stablecoin, `telemetry: { enabled: false }` (OpenTelemetry not loaded)',
    openai: '(c) openai SDK `client.post`',
    stripe: '(c) stripe SDK `rawRequest`',
    fetch: '(d) global fetch, as (a)',
  };
  const base = r.post.minimal;
  for (const [name, v] of Object.entries(r.post)) {
    lines.push(
      `| ${label[name] ?? name} | ${v.latencyMedianUs} | ${v.latencyP99Us} | ${(v.latencyMedianUs / base.latencyMedianUs).toFixed(2)} | ${v.throughputRps} | ${(v.throughputRps / base.throughputRps).toFixed(2)} | ${v.clientCpuUsPerCall} |`,
    );
  }
  lines.push('');
  const pg = r.pagination;
  const va = r.validation;
  const sf = r.tokenSingleFlight;
  lines.push('| measure | result |');
  lines.push('|---|---|');
  lines.push(
    `| token single-flight | ${sf.calls} concurrent calls on a cold client: ${sf.tokenExchanges} token exchange(s), ${sf.succeeded} succeeded, ${sf.totalMs} ms |`,
  );
  lines.push(
    `| pagination, ${pg.items.toLocaleString('en-US')} reports (${pg.pages} pages) | SDK ${(pg.sdkMs / 1000).toFixed(2)} s vs hand loop ${(pg.handMs / 1000).toFixed(2)} s: ${pg.sdkSpeedVsHand}x of its speed; heap growth after GC ${pg.sdkHeapGrowthAfterGcMB} MB (sampled max ${pg.sdkHeapGrowthSampledMaxMB} MB) |`,
  );
  lines.push(
    `| validation, ${va.pageItems}-item page (${va.pageBytes} B) | ${va.validateUs} µs vs the page's round trip ${va.sdkPageRoundTripUs} µs: ${(va.fractionOfRoundTrip * 100).toFixed(1)}% (JSON.parse ${va.jsonParseUs} µs; hand round trip ${va.handPageRoundTripUs} µs) |`,
  );
  const tn = r.telemetryNoTracer;
  lines.push(
    `| telemetry with no tracer registered | \`telemetry: { api }\` given: the SDK's reporting per call ${tn.reportingUsPerCall} µs (no-op ${tn.offUsPerCall} µs), ${(tn.addedShareOfCallCpu * 100).toFixed(2)}% of a call's client CPU; @opentelemetry/api installed, nothing registered (so not loaded): client CPU per call at c=64 ${tn.noTracerCpuUsPerCall} vs ${tn.offCpuUsPerCall} µs with \`enabled: false\`, median ratio of ${tn.pairs} back-to-back pairs ${tn.pairedRatioMedian} (pairs ranged ${tn.pairedRatioRange[0]}–${tn.pairedRatioRange[1]}: the machine's noise) |`,
  );
  const jn = r.journal;
  const redisJournal =
    jn.redis === undefined
      ? 'RedisJournal not measured (no redis-server)'
      : `RedisJournal (local redis-server, ${jn.redisRoundTripsPerCall} round trips) +${jn.redis.addedLatencyUs} µs latency, +${jn.redis.addedCpuUs} µs client CPU`;
  const pgJournal =
    jn.postgres === undefined
      ? 'PostgresJournal not measured (no PostgreSQL)'
      : `PostgresJournal (local PostgreSQL, fsync on, ${jn.postgresRoundTripsPerCall} commits) +${jn.postgres.addedLatencyUs} µs latency, +${jn.postgres.addedCpuUs} µs client CPU`;
  lines.push(
    `| intent journal, added per money-moving call | no journal ${jn.none.latencyMedianUs} µs latency c=1, ${jn.none.clientCpuUsPerCall} µs client CPU at c=${CFG.concurrency}; MemoryJournal +${jn.memory.addedLatencyUs} µs latency, +${jn.memory.addedCpuUs} µs client CPU; ${redisJournal}; ${pgJournal} |`,
  );
  const wh = r.webhooks;
  const whRedis =
    wh.redis === undefined
      ? 'RedisEventStore not measured (no redis-server)'
      : `RedisEventStore +${wh.redis.addedLatencyUs} µs latency, +${wh.redis.addedCpuUs} µs CPU`;
  const whPg =
    wh.postgres === undefined
      ? 'PostgresEventStore not measured (no PostgreSQL)'
      : `PostgresEventStore (a transaction and its commit, fsync on) +${wh.postgres.addedLatencyUs} µs latency, +${wh.postgres.addedCpuUs} µs CPU; with the merchant's one-row INSERT, in the transaction (exactly once) vs autocommit beside MemoryEventStore (at least once): ${wh.postgresWithInsert.latencyMedianUs} vs ${wh.memoryWithInsert.latencyMedianUs} µs latency (+${wh.postgresWithInsert.addedLatencyUs}), ${wh.postgresWithInsert.cpuUsPerDelivery} vs ${wh.memoryWithInsert.cpuUsPerDelivery} µs CPU`;
  lines.push(
    `| webhook delivery (handle(), in process), per event store | MemoryEventStore ${wh.memory.latencyMedianUs} µs latency c=1, ${wh.memory.cpuUsPerDelivery} µs CPU at c=${wh.concurrency}; ${whRedis}; ${whPg} |`,
  );
  lines.push(payoutRow(r.payouts));
  lines.push(
    `| signing per request | SDK node:crypto signer ${r.signing.sdkUsPerRequest} µs, SDK Web Crypto signer ${r.signing.sdkWebCryptoUsPerRequest} µs (inline createHmac ${r.signing.inlineUsPerRequest} µs; keyed HMAC reuse via hash.copy() ${r.signing.keyedHmacReuseUsPerRequest} µs) |`,
  );
  const im = r.import;
  lines.push(
    `| import, CJS require (median) | SDK ${im['sdk.cjs'].loadMs} ms, openai ${im['openai.cjs'].loadMs} ms, stripe ${im['stripe.cjs'].loadMs} ms |`,
  );
  lines.push(
    `| import, ESM import (median) | SDK ${im['sdk.esm'].loadMs} ms, openai ${im['openai.esm'].loadMs} ms, stripe ${im['stripe.esm'].loadMs} ms |`,
  );
  lines.push(
    `| import of the SDK's dependencies alone, CJS / ESM | zod/mini from node_modules ${im['zod.cjs'].loadMs} / ${im['zod.esm'].loadMs} ms (not loaded by the SDK: dist/ bundles the part it uses); undici ${im['undici.cjs'].loadMs} / ${im['undici.esm'].loadMs} ms (loaded on the first call) |`,
  );
  lines.push(
    `| cold start: import + first signed POST (token exchange included), ${r.coldStart.pairs} alternating pairs of fresh processes | SDK ${r.coldStart.sdkMs} ms, minimal client ${r.coldStart.minimalMs} ms (ratio ${r.coldStart.ratio}); process CPU ${r.coldStart.sdkCpuMs} vs ${r.coldStart.minimalCpuMs} ms (ratio ${r.coldStart.cpuRatio}) |`,
  );
  lines.push(
    `| consumer bundle: MerchantClient + one call, esbuild minified | platform node ESM ${r.bundle.nodeEsmMinifiedBytes.toLocaleString('en-US')} bytes; platform neutral ${r.bundle.neutralMinifiedBytes.toLocaleString('en-US')} bytes |`,
  );
  lines.push('');
  lines.push('| target | goal | measured | met |');
  lines.push('|---|---|---:|---|');
  for (const t of r.targets) lines.push(`| ${t.name} | ${t.goal} | ${t.measured} | ${t.met ? 'yes' : '**no**'} |`);
  return lines.join('\n');
}

function payoutRow(po) {
  const signed = (x) => (x < 0 ? `${x}` : `+${x}`);
  const store = (name, label, how) => {
    const v = po[name];
    if (v.skipped !== undefined) return `${label} not measured (${v.skipped})`;
    return `${label}${how} ${v.latencyMedianUs} µs (${signed(v.addedLatencyUs)}), ${v.payoutsPerSecond}/s, ${v.cpuUsPerPayout} µs CPU (${signed(v.addedCpuUs)}), ${v.storeWritesPerPayout} writes and ${v.storeReadsPerPayout} reads per payout`;
  };
  return (
    `| payout (PayoutWorkflow: start, then runOnce: hand-out, a pay that answers paid, confirm), per payout store | ` +
    `latency c=1, payouts/s and client CPU per payout with ${po.concurrency} in flight: SDK's bare debit + confirm ${po.bare.latencyMedianUs} µs, ${po.bare.payoutsPerSecond}/s, ${po.bare.cpuUsPerPayout} µs CPU; ` +
    `${store('memory', 'MemoryPayoutStore', '')}; ${store('redis', 'RedisPayoutStore', ` (local redis-server, ${po.redis.persistence ?? ''})`)}; ` +
    `${store('postgres', 'PostgresPayoutStore', ' (local PostgreSQL, fsync on)')} |`
  );
}

// The payout workflow's cost per payout, per store: a whole payout through `PayoutWorkflow` from
// dist/payouts.js (`start`: the record, then the debit; `runOnce`: the hand-out, a pay function
// that does nothing and answers paid, the confirm) with `MemoryPayoutStore`, `RedisPayoutStore`
// (a local redis-server, started as the journal bench starts it: no persistence) and
// `PostgresPayoutStore` (a local PostgreSQL, initdb as shipped: fsync on), against the SDK's bare
// calls (the debit, then the confirm, no workflow and no store) so that the workflow's own cost
// shows. Contenders alternate round by round; each round gives each workflow a fresh store (a new
// MemoryPayoutStore, Redis prefix or PostgreSQL table), so no run pays for an earlier one's records.
//
// suite.mjs runs it as part of `npm run bench`. `node bench/payouts.mjs` runs it alone against
// its own server process (after `npm run build`; BENCH_QUICK=1 for a smoke run).
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as C from './contenders.mjs';
import { startPostgres, startRedis } from './stores.mjs';

const median = (xs) => {
  const s = Float64Array.from(xs).sort();
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x, d = 1) => (Number.isFinite(x) ? Number(x.toFixed(d)) : null);
const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);
const OPEN = ['debit_pending', 'debited', 'paying', 'paid', 'unpaid', 'needs_attention'];
/** What the bench's redis-server keeps (stores.mjs): said in the row. */
const REDIS_PERSISTENCE = 'no persistence: appendonly no, so not appendfsync always';

let seq = 0;
const request = () => ({
  reference: `po_bench_${process.pid}_${++seq}`,
  member: C.MEMBER,
  asset: C.WITHDRAWAL.asset,
  amount: C.WITHDRAWAL.amount,
  toAddress: C.WITHDRAWAL.to_address,
});
const pay = async () => ({ outcome: 'paid', chainRef: '0xbench' });

/** The store's calls counted: creates and replaces are its writes (each durable before it resolves). */
function counting(store, counts) {
  return {
    create: (r) => (counts.writes++, store.create(r)),
    replace: (r) => (counts.writes++, store.replace(r)),
    get: (ref) => (counts.reads++, store.get(ref)),
    list: (q) => (counts.reads++, store.list(q)),
    now: () => (counts.clock++, store.now()),
  };
}

/**
 * One workflow contender: `fresh(tag)` starts a round on a new store; `prepare(n)` (untimed) makes
 * room for n payouts; `one()` makes a whole payout; `batch(n)`, n at once. With `recycleEvery`,
 * `prepare` moves to a new store once that many payouts were made on the current one (see below).
 */
function workflowContender(name, payouts, client, newStore, opts) {
  const logger = { warn: (m) => opts.log(`payouts(${name}): ${m}`), error: (m) => opts.log(`payouts(${name}): ${m}`) };
  let wf;
  let stores = [];
  let made = 0;
  let tag = '';
  let counts;
  const use = async (storeTag) => {
    const store = await newStore(storeTag);
    stores.push(store);
    made = 0;
    const used = counts === undefined ? store : counting(store, counts);
    wf = new payouts.PayoutWorkflow({ client, store: used, pay, concurrency: opts.concurrency, logger, openTelemetry: false });
  };
  return {
    name,
    async fresh(roundTag, countsOf) {
      [stores, tag, counts] = [[], roundTag, countsOf];
      await use(roundTag);
    },
    async prepare(n) {
      if (opts.recycleEvery !== undefined && made + n > opts.recycleEvery) await use(`${tag}_${stores.length}`);
      made += n;
    },
    async one() {
      if ((await wf.start(request())).state !== 'debited') throw new Error(`${name}: the payout was not debited`);
      const pass = await wf.runOnce();
      if (pass.moved !== 1 || pass.failed !== 0) throw new Error(`${name}: runOnce moved ${pass.moved}, failed ${pass.failed}`);
    },
    async batch(n) {
      const started = await Promise.all(Array.from({ length: n }, () => wf.start(request())));
      if (started.some((r) => r.state !== 'debited')) throw new Error(`${name}: a payout was not debited`);
      const pass = await wf.runOnce();
      if (pass.moved !== n || pass.failed !== 0) throw new Error(`${name}: runOnce moved ${pass.moved} of ${n}, failed ${pass.failed}`);
    },
    /** Every payout since `fresh` confirmed: none open, and as many confirmed as made. */
    async check(expected) {
      let confirmed = 0;
      for (const store of stores) {
        const open = await store.list({ states: OPEN, limit: 1 });
        if (open.records.length !== 0) throw new Error(`${name}: ${open.records[0].reference} left ${open.records[0].state}`);
        let after;
        do {
          const page = await store.list({ states: ['confirmed'], limit: 500, after });
          confirmed += page.records.length;
          after = page.next;
        } while (after !== undefined);
      }
      if (confirmed !== expected) throw new Error(`${name}: ${confirmed} payouts confirmed of ${expected}`);
    },
  };
}

/** The baseline: the SDK's debit and confirm, as a merchant would call them without the workflow. */
function bareContender(client) {
  const api = client.member(C.MEMBER).withdrawals;
  const one = async () => {
    const order = await api.create(C.WITHDRAWAL);
    await api.confirm(order.id, {});
  };
  return {
    name: 'bare',
    fresh: async () => undefined,
    prepare: async () => undefined,
    one,
    batch: (n) => Promise.all(Array.from({ length: n }, one)),
    check: async () => undefined,
  };
}

/** The Redis and PostgreSQL contenders, each skipped with a loud line when its store or server is missing. */
async function storeContenders(payouts, client, cfg, log, closers, skipped) {
  const rootRequire = createRequire(join(C.ROOT, 'package.json'));
  const out = [];
  const loud = (name, why) => {
    skipped[name] = why;
    log(`payouts: ************ ${why}: the ${name} row is SKIPPED ************`);
  };
  const { RedisPayoutStore } = await import(pathToFileURL(join(C.ROOT, 'dist', 'redis.js')).href);
  const redisServer = RedisPayoutStore === undefined ? undefined : await startRedis();
  if (RedisPayoutStore === undefined) loud('redis', 'RedisPayoutStore is not exported by dist/redis.js');
  else if (redisServer === undefined) loud('redis', 'no redis-server found');
  else {
    const { Redis } = rootRequire('ioredis');
    const redis = new Redis(`redis://127.0.0.1:${redisServer.port}`, { maxRetriesPerRequest: 1 });
    closers.push(
      () => redis.quit(),
      () => redisServer.stop(),
    );
    const newStore = async (tag) => new RedisPayoutStore({ redis, prefix: `bench_${tag}`, commandTimeoutMs: 120_000 });
    out.push(workflowContender('redis', payouts, client, newStore, { concurrency: cfg.concurrency, log }));
  }
  const { PostgresPayoutStore } = await import(pathToFileURL(join(C.ROOT, 'dist', 'postgres.js')).href);
  const pgServer = PostgresPayoutStore === undefined ? undefined : await startPostgres();
  if (PostgresPayoutStore === undefined) loud('postgres', 'PostgresPayoutStore is not exported by dist/postgres.js');
  else if (pgServer === undefined) loud('postgres', 'no PostgreSQL found');
  else {
    const pg = rootRequire('pg');
    const pool = new pg.Pool({ connectionString: pgServer.url, max: cfg.concurrency + 2 });
    pool.on('error', () => undefined);
    closers.push(
      () => pool.end(),
      () => pgServer.stop(),
    );
    const newStore = async (tag) => {
      const store = new PostgresPayoutStore({ pool, table: `bench_payouts_${tag}`, statementTimeoutMs: 120_000 });
      await store.ensureSchema();
      return store;
    };
    out.push(workflowContender('postgres', payouts, client, newStore, { concurrency: cfg.concurrency, log }));
  }
  return out;
}

/** Store calls per payout, through a counting wrapper: `cfg.countPayouts` one by one, then one batch. */
async function countCalls(c, cfg) {
  const seqCounts = { writes: 0, reads: 0, clock: 0 };
  await c.fresh('count_seq', seqCounts);
  for (let i = 0; i < cfg.countPayouts; i++) {
    await c.prepare(1);
    await c.one();
  }
  await c.check(cfg.countPayouts);
  const batchCounts = { writes: 0, reads: 0, clock: 0 };
  await c.fresh('count_batch', batchCounts);
  await c.prepare(cfg.concurrency);
  await c.batch(cfg.concurrency);
  await c.check(cfg.concurrency);
  const per = (n, k) => round(n / k, 2);
  return {
    storeWritesPerPayout: per(seqCounts.writes, cfg.countPayouts),
    storeReadsPerPayout: per(seqCounts.reads, cfg.countPayouts),
    storeClockReadsPerPayout: per(seqCounts.clock, cfg.countPayouts),
    storeWritesPerPayoutBatched: per(batchCounts.writes, cfg.concurrency),
    storeReadsPerPayoutBatched: per(batchCounts.reads, cfg.concurrency),
  };
}

/**
 * One round of one contender: sequential payouts timed one by one, then batches of `concurrency`
 * timed one by one (wall and CPU summed), each after its untimed `prepare`.
 */
async function measureRound(c, r, cfg, latency, rate, cpu) {
  await c.fresh(`r${r}`);
  for (let i = 0; i < cfg.payoutsPerRound; i++) {
    await c.prepare(1);
    const t = performance.now();
    await c.one();
    latency.push((performance.now() - t) * 1000);
  }
  const batches = Math.max(1, Math.round(cfg.batchPayoutsPerRound / cfg.concurrency));
  let ms = 0;
  let cpuUs = 0;
  for (let b = 0; b < batches; b++) {
    await c.prepare(cfg.concurrency);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await c.batch(cfg.concurrency);
    ms += performance.now() - t0;
    const used = process.cpuUsage(cpu0);
    cpuUs += used.user + used.system;
  }
  rate.push((batches * cfg.concurrency) / (ms / 1000));
  cpu.push(cpuUs / (batches * cfg.concurrency));
  await c.check(cfg.payoutsPerRound + batches * cfg.concurrency);
}

/**
 * Latency per payout at concurrency 1 (median), payouts per second and client CPU per payout with
 * `concurrency` in flight, and store calls per payout, per store; `added*` against the bare calls.
 * `cfg` takes `rounds`, `payoutsPerRound`, `batchPayoutsPerRound`, `concurrency`, `warmup`, `countPayouts`.
 */
export async function payoutCost(sdk, origin, cfg, log = () => undefined) {
  const payouts = await import(pathToFileURL(join(C.ROOT, 'dist', 'payouts.js')).href);
  const client = new sdk.MerchantClient({ baseUrl: origin, ...C.CREDENTIALS, telemetry: { enabled: false } });
  const closers = [];
  const skipped = {};
  const t0 = performance.now();
  try {
    const contenders = [
      bareContender(client),
      // MemoryPayoutStore (a store for tests) lists by parsing every record it holds: a new one every
      // `concurrency` payouts keeps its list at the size of an indexed store's, which reads the open ones only.
      workflowContender('memory', payouts, client, async () => new payouts.MemoryPayoutStore(), {
        concurrency: cfg.concurrency,
        log,
        recycleEvery: cfg.concurrency,
      }),
      ...(await storeContenders(payouts, client, cfg, log, closers, skipped)),
    ];
    const out = { rounds: cfg.rounds, payoutsPerRound: cfg.payoutsPerRound, concurrency: cfg.concurrency };
    const counted = {};
    for (const c of contenders) {
      await c.fresh('warm');
      for (let i = 0; i < cfg.warmup; i++) {
        await c.prepare(1);
        await c.one();
      }
      await c.prepare(cfg.concurrency);
      await c.batch(cfg.concurrency);
      if (c.name !== 'bare') counted[c.name] = await countCalls(c, cfg);
    }
    const samples = Object.fromEntries(contenders.map((c) => [c.name, { latency: [], rate: [], cpu: [] }]));
    for (let r = 0; r < cfg.rounds; r++) {
      for (const c of rotate(contenders, r)) {
        const s = samples[c.name];
        await measureRound(c, r, cfg, s.latency, s.rate, s.cpu);
      }
    }
    for (const c of contenders) {
      const s = samples[c.name];
      out[c.name] = {
        latencyMedianUs: round(median(s.latency)),
        payoutsPerSecond: round(median(s.rate), 0),
        cpuUsPerPayout: round(median(s.cpu)),
        ...counted[c.name],
      };
      if (c.name === 'bare') continue;
      out[c.name].addedLatencyUs = round(out[c.name].latencyMedianUs - out.bare.latencyMedianUs);
      out[c.name].addedCpuUs = round(out[c.name].cpuUsPerPayout - out.bare.cpuUsPerPayout);
    }
    if (out.redis !== undefined) out.redis.persistence = REDIS_PERSISTENCE;
    if (out.postgres !== undefined) out.postgres.persistence = 'fsync on, synchronous_commit on (initdb as shipped)';
    for (const [name, why] of Object.entries(skipped)) out[name] = { skipped: why };
    out.durationSeconds = round((performance.now() - t0) / 1000);
    return out;
  } finally {
    await client.close();
    for (const close of closers) await close();
  }
}

/** The settings of a full run, or of BENCH_QUICK=1's smoke run. */
export function payoutConfig(quick) {
  return {
    rounds: quick ? 3 : 7,
    payoutsPerRound: quick ? 20 : 60,
    batchPayoutsPerRound: quick ? 32 : 160,
    concurrency: 16,
    warmup: quick ? 10 : 30,
    countPayouts: quick ? 5 : 20,
  };
}

// Alone: `node bench/payouts.mjs` (BENCH_QUICK=1 for a smoke run).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const server = fork(join(C.BENCH_DIR, 'server.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve) => server.once('message', resolve));
  try {
    const result = await payoutCost(
      await C.importSdk(),
      `http://127.0.0.1:${port}`,
      payoutConfig(process.env.BENCH_QUICK === '1'),
      console.error,
    );
    console.log(JSON.stringify(result, null, 2));
  } finally {
    server.kill();
  }
}

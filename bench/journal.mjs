// The intent journal's cost per money-moving call: the same SDK withdrawal with no journal, with
// `MemoryJournal`, with `RedisJournal` (a redis-server started here on a free loopback port, no
// persistence: the Redis of a fleet is another host, so this is its floor) and with
// `PostgresJournal` (a PostgreSQL started here, commits as shipped: fsync on), alternating
// contenders round by round. Each journaled call records its intent before sending and settles
// it after the 201: one Lua script each way on Redis, one committed statement each way on PostgreSQL.
//
// suite.mjs runs it as part of `npm run bench`. `node bench/journal.mjs` runs it alone against
// its own server process (after `npm run build`), for a focused measurement.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import * as C from './contenders.mjs';
import { startPostgres, startRedis } from './stores.mjs';

const median = (xs) => {
  const s = Float64Array.from(xs).sort();
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x, d = 1) => (Number.isFinite(x) ? Number(x.toFixed(d)) : null);
const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);

/**
 * Latency at concurrency 1 (median of every call) and client CPU per call at concurrency 64, for
 * the clients; `added*` are the journal's share. `cfg` takes `rounds`, `callsPerRound`,
 * `concurrency`, `cpuCallsPerRound`, `warmupCalls`.
 */
export async function journalCost(sdk, origin, cfg, log = () => undefined) {
  const redisServer = await startRedis();
  const rootRequire = createRequire(join(C.ROOT, 'package.json'));
  let redis;
  const contenders = [C.sdkClient(sdk, origin, {}, 'none'), C.sdkClient(sdk, origin, { journal: new sdk.MemoryJournal() }, 'memory')];
  if (redisServer !== undefined) {
    const { Redis } = rootRequire('ioredis');
    const { RedisJournal } = await import(pathToFileURL(join(C.ROOT, 'dist', 'redis.js')).href);
    redis = new Redis(`redis://127.0.0.1:${redisServer.port}`, { maxRetriesPerRequest: 1 });
    contenders.push(C.sdkClient(sdk, origin, { journal: new RedisJournal({ redis, prefix: 'bench' }) }, 'redis'));
  } else {
    log('journal: no redis-server found; RedisJournal not measured');
  }
  const pgServer = await startPostgres();
  let pool;
  if (pgServer !== undefined) {
    const pg = rootRequire('pg');
    const { PostgresJournal } = await import(pathToFileURL(join(C.ROOT, 'dist', 'postgres.js')).href);
    pool = new pg.Pool({ connectionString: pgServer.url, max: cfg.concurrency });
    pool.on('error', () => undefined);
    const journal = new PostgresJournal({ pool, statementTimeoutMs: 120_000 });
    await journal.ensureSchema();
    contenders.push(C.sdkClient(sdk, origin, { journal }, 'postgres'));
  } else {
    log('journal: no PostgreSQL found; PostgresJournal not measured');
  }
  try {
    for (const c of contenders) for (let i = 0; i < cfg.warmupCalls; i++) await c.call();
    const latency = Object.fromEntries(contenders.map((c) => [c.name, []]));
    const cpu = Object.fromEntries(contenders.map((c) => [c.name, []]));
    for (let r = 0; r < cfg.rounds; r++) {
      for (const c of rotate(contenders, r)) {
        for (let i = 0; i < cfg.callsPerRound; i++) {
          const t = performance.now();
          await c.call();
          latency[c.name].push((performance.now() - t) * 1000);
        }
        let next = 0;
        const cpu0 = process.cpuUsage();
        await Promise.all(
          Array.from({ length: cfg.concurrency }, async () => {
            while (next++ < cfg.cpuCallsPerRound) await c.call();
          }),
        );
        const used = process.cpuUsage(cpu0);
        cpu[c.name].push((used.user + used.system) / cfg.cpuCallsPerRound);
      }
    }
    const out = { rounds: cfg.rounds, callsPerRound: cfg.callsPerRound, redisRoundTripsPerCall: 2, postgresRoundTripsPerCall: 2 };
    for (const c of contenders) {
      out[c.name] = { latencyMedianUs: round(median(latency[c.name])), clientCpuUsPerCall: round(median(cpu[c.name])) };
    }
    for (const name of ['memory', 'redis', 'postgres']) {
      if (out[name] === undefined) continue;
      out[name].addedLatencyUs = round(out[name].latencyMedianUs - out.none.latencyMedianUs);
      out[name].addedCpuUs = round(out[name].clientCpuUsPerCall - out.none.clientCpuUsPerCall);
    }
    return out;
  } finally {
    for (const c of contenders) await c.close();
    await redis?.quit();
    redisServer?.stop();
    await pool?.end();
    pgServer?.stop();
  }
}

// Alone: `node bench/journal.mjs` (BENCH_QUICK=1 for a smoke run).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.env.BENCH_QUICK === '1';
  const server = fork(join(C.BENCH_DIR, 'server.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port } = await new Promise((resolve) => server.once('message', resolve));
  try {
    const result = await journalCost(
      await C.importSdk(),
      `http://127.0.0.1:${port}`,
      {
        rounds: quick ? 3 : 9,
        callsPerRound: quick ? 100 : 400,
        concurrency: 64,
        cpuCallsPerRound: quick ? 640 : 2000,
        warmupCalls: quick ? 200 : 1000,
      },
      console.error,
    );
    console.log(JSON.stringify(result, null, 2));
  } finally {
    server.kill();
  }
}

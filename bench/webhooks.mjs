// A webhook delivery's cost per event store: `createWebhookHandler(...).handle()` in this process
// (no HTTP: the store's share is what is measured) with `MemoryEventStore`, `RedisEventStore` (a
// local redis-server) and `PostgresEventStore` (a local PostgreSQL, commits as shipped), each
// with an `onEvent` that does nothing; then the same with the merchant's own write of one row:
// MemoryEventStore and an autocommit INSERT (at least once), against PostgresEventStore and the
// INSERT through `context.transaction` (exactly once). Fresh event ids, contenders alternating
// round by round.
//
// suite.mjs runs it as part of `npm run bench`. `node bench/webhooks.mjs` runs it alone (after
// `npm run build`).
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

let seq = 0;
/** One delivery of a new event. */
function delivery() {
  const id = `evt_bench_${process.pid}_${++seq}`;
  const body = JSON.stringify({
    event_id: id,
    event_type: 'card.activated',
    created_at: '2026-09-01T10:00:00Z',
    merchant_id: 'mch_bench',
    livemode: false,
    data: { object: 'card', id: 'crd_bench', external_member_id: 'ext-1', status: 'active', status_version: 1 },
  });
  return { body, headers: { 'content-type': 'application/json', 'z-event-id': id, 'z-event-type': 'card.activated' } };
}

/**
 * Latency per delivery at concurrency 1 (median) and CPU per delivery at `concurrency`, per store;
 * `added*` against MemoryEventStore. `cfg` takes `rounds`, `deliveriesPerRound`, `concurrency`,
 * `cpuDeliveriesPerRound`, `warmup`.
 */
export async function webhookCost(cfg, log = () => undefined) {
  const rootRequire = createRequire(join(C.ROOT, 'package.json'));
  const webhooks = await import(pathToFileURL(join(C.ROOT, 'dist', 'webhooks.js')).href);
  const handlerOf = (store, onEvent = async () => undefined) =>
    webhooks.createWebhookHandler({ store, onEvent, logLevel: 'off', claimTtlMs: 60_000 });
  const contenders = [{ name: 'memory', handler: handlerOf(new webhooks.MemoryEventStore({ maxEntries: 10_000_000 })) }];
  const closers = [];
  const redisServer = await startRedis();
  if (redisServer !== undefined) {
    const { Redis } = rootRequire('ioredis');
    const { RedisEventStore } = await import(pathToFileURL(join(C.ROOT, 'dist', 'redis.js')).href);
    const redis = new Redis(`redis://127.0.0.1:${redisServer.port}`, { maxRetriesPerRequest: 1 });
    contenders.push({ name: 'redis', handler: handlerOf(new RedisEventStore({ redis, prefix: 'bench', commandTimeoutMs: 120_000 })) });
    closers.push(
      () => redis.quit(),
      () => redisServer.stop(),
    );
  } else log('webhooks: no redis-server found; RedisEventStore not measured');
  const pgServer = await startPostgres();
  if (pgServer !== undefined) {
    const pg = rootRequire('pg');
    const { PostgresEventStore } = await import(pathToFileURL(join(C.ROOT, 'dist', 'postgres.js')).href);
    const pool = new pg.Pool({ connectionString: pgServer.url, max: cfg.concurrency + 2 });
    pool.on('error', () => undefined);
    const store = new PostgresEventStore({ pool, statementTimeoutMs: 120_000 });
    await store.ensureSchema();
    await pool.query('CREATE TABLE bench_credits (id bigserial PRIMARY KEY, event_id text NOT NULL)');
    const insert = 'INSERT INTO bench_credits (event_id) VALUES ($1)';
    contenders.push(
      { name: 'postgres', handler: handlerOf(store) },
      {
        name: 'memoryWithInsert',
        handler: handlerOf(
          new webhooks.MemoryEventStore({ maxEntries: 10_000_000 }),
          async (e) => void (await pool.query(insert, [e.event_id])),
        ),
      },
      {
        name: 'postgresWithInsert',
        handler: handlerOf(store, async (e, { transaction }) => void (await transaction.query(insert, [e.event_id]))),
      },
    );
    closers.push(
      () => pool.end(),
      () => pgServer.stop(),
    );
  } else log('webhooks: no PostgreSQL found; PostgresEventStore not measured');
  const deliver = async (c) => {
    const { body, headers } = delivery();
    const res = await c.handler.handle(body, headers);
    if (res.status !== 200) throw new Error(`${c.name}: delivery answered ${res.status} (${res.outcome})`);
  };
  try {
    for (const c of contenders) for (let i = 0; i < cfg.warmup; i++) await deliver(c);
    const latency = Object.fromEntries(contenders.map((c) => [c.name, []]));
    const cpu = Object.fromEntries(contenders.map((c) => [c.name, []]));
    for (let r = 0; r < cfg.rounds; r++) {
      for (const c of rotate(contenders, r)) {
        for (let i = 0; i < cfg.deliveriesPerRound; i++) {
          const t = performance.now();
          await deliver(c);
          latency[c.name].push((performance.now() - t) * 1000);
        }
        let next = 0;
        const cpu0 = process.cpuUsage();
        await Promise.all(
          Array.from({ length: cfg.concurrency }, async () => {
            while (next++ < cfg.cpuDeliveriesPerRound) await deliver(c);
          }),
        );
        const used = process.cpuUsage(cpu0);
        cpu[c.name].push((used.user + used.system) / cfg.cpuDeliveriesPerRound);
      }
    }
    const out = { rounds: cfg.rounds, deliveriesPerRound: cfg.deliveriesPerRound, concurrency: cfg.concurrency };
    for (const c of contenders)
      out[c.name] = { latencyMedianUs: round(median(latency[c.name])), cpuUsPerDelivery: round(median(cpu[c.name])) };
    for (const [name, base] of [
      ['redis', 'memory'],
      ['postgres', 'memory'],
      ['postgresWithInsert', 'memoryWithInsert'],
    ]) {
      if (out[name] === undefined) continue;
      out[name].addedLatencyUs = round(out[name].latencyMedianUs - out[base].latencyMedianUs);
      out[name].addedCpuUs = round(out[name].cpuUsPerDelivery - out[base].cpuUsPerDelivery);
    }
    return out;
  } finally {
    for (const close of closers) await close();
  }
}

// Alone: `node bench/webhooks.mjs` (BENCH_QUICK=1 for a smoke run).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const quick = process.env.BENCH_QUICK === '1';
  const result = await webhookCost(
    {
      rounds: quick ? 3 : 9,
      deliveriesPerRound: quick ? 100 : 400,
      concurrency: 16,
      cpuDeliveriesPerRound: quick ? 320 : 1600,
      warmup: quick ? 100 : 500,
    },
    console.error,
  );
  console.log(JSON.stringify(result, null, 2));
}

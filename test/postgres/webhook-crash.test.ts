/**
 * Exactly once in the merchant's database, with real receiver processes and a real PostgreSQL:
 * a receiver is killed (SIGKILL) inside `onEvent` after its own insert, another after the commit
 * and before its 200; then two live receivers take a few hundred shuffled, duplicated deliveries
 * (every non-2xx delivered again, as the service does), and each event leaves exactly one row in
 * the merchant's table. A second case stops PostgreSQL in the middle of a delivery burst: the
 * deliveries are answered non-2xx while it is down, and after its restart nothing is lost or doubled.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupBundles, prepare, startWorker, type Worker } from '../fleet/helpers/workers.js';
import { post } from './helpers/deliveries.js';
import { POSTGRES_AVAILABLE, poolOf, startPostgres, type PostgresServer } from './helpers/postgres-server.js';
import { makeEventTables } from './helpers/tables.js';

const FIXTURE = new URL('./fixtures/pg-receiver.ts', import.meta.url).pathname;
/** Hang guard only: processes and hundreds of deliveries on a loaded 2-core machine. */
const LIMIT = 300_000;

/** A seeded shuffle: the same order for the same seed (printed, for a rerun). */
function shuffle<T>(items: T[], seed: number): T[] {
  let s = seed >>> 0;
  const next = (): number => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

/**
 * Delivers every item of `queue` to a receiver picked at random (`concurrency` at a time); a
 * delivery not answered 2xx goes back to the end of the queue, as the service retries it. The
 * statuses answered, in order.
 */
async function deliverAll(urls: string[], queue: string[], concurrency: number, seed: number): Promise<number[]> {
  const statuses: number[] = [];
  let s = seed;
  const pick = (): string => urls[(s = (s * 7 + 3) % 1_000_003) % urls.length]!;
  const lane = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      const status = await post(pick(), id);
      statuses.push(status);
      if (status < 200 || status > 299) queue.push(id);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return statuses;
}

describe.skipIf(!POSTGRES_AVAILABLE)('exactly once in the merchant database (real receivers, real PostgreSQL)', () => {
  let server: PostgresServer;
  let admin: pg.Pool;
  const workers: Worker[] = [];
  const receiver = async (table: string, name: string, extra: Record<string, string> = {}, url = server.appUrl): Promise<Worker> => {
    const w = await startWorker(FIXTURE, { PG_URL: url, PG_TABLE: table, NAME: name, ...extra });
    workers.push(w);
    return w;
  };
  const rowsPerEvent = async (table: string, pool = admin): Promise<Map<string, string[]>> => {
    const { rows } = await pool.query<{ event_id: string; receiver: string }>(`SELECT event_id, receiver FROM ${table}_credits`);
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.event_id, [...(by.get(r.event_id) ?? []), r.receiver]);
    return by;
  };

  beforeAll(async () => {
    server = await startPostgres();
    admin = poolOf(server.url, 2);
    await prepare(FIXTURE);
  }, LIMIT);
  afterAll(async () => {
    for (const w of workers) w.kill();
    await Promise.all(workers.map((w) => w.exited));
    await admin?.end();
    await server?.destroy();
    cleanupBundles();
  });

  it(
    'killed inside onEvent after its insert, and after the commit before the 200: redeliveries to two live receivers leave one row per event',
    async () => {
      const table = 'wh_crash';
      await makeEventTables(admin, table);
      const tally: string[] = [];

      // 1. Killed after its own insert, uncommitted: the insert dies with the connection.
      const a = await receiver(table, 'killed-after-insert', { KILL_AT: 'after-insert', KILL_EVENT: 'evt-k1' });
      const answerA = post(String((await a.next('ready'))['url']), 'evt-k1');
      await a.next('paused');
      a.kill();
      await a.exited;
      expect(await answerA).toBe(0);
      expect((await rowsPerEvent(table)).get('evt-k1')).toBeUndefined();

      // 2. Killed after the commit, before the 200: the effect and its mark are both kept.
      const b = await receiver(table, 'killed-after-commit', { KILL_AT: 'after-commit', KILL_EVENT: 'evt-k2' });
      const answerB = post(String((await b.next('ready'))['url']), 'evt-k2');
      await b.next('paused');
      b.kill();
      await b.exited;
      expect(await answerB).toBe(0);
      expect((await rowsPerEvent(table)).get('evt-k2')).toEqual(['killed-after-commit']);

      // 3. Two live receivers, 102 events delivered 3 times each, shuffled, 12 at a time.
      const live = [await receiver(table, 'live-1'), await receiver(table, 'live-2')];
      const urls = await Promise.all(live.map(async (w) => String((await w.next('ready'))['url'])));
      const events = ['evt-k1', 'evt-k2', ...Array.from({ length: 100 }, (_, i) => `evt-${i}`)];
      const seed = 20261129;
      const queue = shuffle(
        events.flatMap((e) => [e, e, e]),
        seed,
      );
      const deliveries = queue.length;
      const statuses = await deliverAll(urls, queue, 12, seed);

      const by = await rowsPerEvent(table);
      for (const e of events) expect(by.get(e), e).toHaveLength(1);
      expect([...by.values()].flat()).toHaveLength(events.length);
      // The event whose receiver died after committing was never processed again.
      expect(by.get('evt-k2')).toEqual(['killed-after-commit']);
      expect(by.get('evt-k1')![0]).toMatch(/^live-/);
      const { rows } = await admin.query<{ state: string; c: string }>(`SELECT state, count(*) AS c FROM ${table} GROUP BY state`);
      expect(rows).toEqual([{ state: 'completed', c: String(events.length) }]);
      const count = (f: (s: number) => boolean): number => statuses.filter(f).length;
      tally.push(
        `${deliveries} deliveries (+${statuses.length - deliveries} redeliveries of non-2xx), seed ${seed}: ` +
          `${count((s) => s === 200)} x 200, ${count((s) => s === 409)} x 409, ${count((s) => s === 503)} x 503, ` +
          `${count((s) => s !== 200 && s !== 409 && s !== 503)} other; ${[...by.values()].flat().length} rows for ${events.length} events`,
      );
      console.info(`PostgreSQL webhook crash test: ${tally.join('; ')}`);
      for (const w of live) w.send({ type: 'stop' });
    },
    LIMIT,
  );

  it(
    'PostgreSQL stopped and restarted during a delivery burst: non-2xx while it is down, nothing doubled or lost after',
    async () => {
      const own = await startPostgres();
      const ownAdmin = poolOf(own.url, 1);
      try {
        const table = 'wh_outage';
        await makeEventTables(ownAdmin, table);
        const live = [await receiver(table, 'live-1', {}, own.appUrl), await receiver(table, 'live-2', {}, own.appUrl)];
        const urls = await Promise.all(live.map(async (w) => String((await w.next('ready'))['url'])));
        const events = Array.from({ length: 90 }, (_, i) => `out-${i}`);
        const seed = 7;
        const all = shuffle(
          events.flatMap((e) => [e, e]),
          seed,
        );
        // Phase 1: 30 deliveries acknowledged, then 60 more in flight while PostgreSQL is stopped (fast shutdown).
        const before = await Promise.all(all.splice(0, 30).map((id, i) => post(urls[i % 2]!, id)));
        expect(before.every((s) => s === 200)).toBe(true);
        const firstThird = all.splice(0, 60);
        const statuses: number[] = [...before];
        const inFlight = Promise.all(firstThird.map(async (id) => [id, await post(urls[id.length % 2]!, id)] as const));
        await ownAdmin.end();
        await own.stop();
        const answered = await inFlight;
        statuses.push(...answered.map(([, s]) => s));
        // Phase 2: 60 while it is down: every delivery answered 503, nothing processed.
        const whileDown = all.splice(0, 60);
        const downStatuses = await Promise.all(whileDown.map((id, i) => post(urls[i % 2]!, id)));
        expect(downStatuses.every((s) => s >= 300 || s === 0)).toBe(true);
        expect(downStatuses.filter((s) => s === 503).length).toBe(downStatuses.length);
        statuses.push(...downStatuses);
        // Phase 3: restarted; the rest, and everything not acknowledged, delivered until acknowledged.
        await own.start();
        const retry = [...answered.filter(([, s]) => s < 200 || s > 299).map(([id]) => id), ...whileDown, ...all];
        statuses.push(...(await deliverAll(urls, retry, 8, seed)));
        const check = poolOf(own.url, 1);
        const by = await rowsPerEvent(table, check);
        for (const e of events) expect(by.get(e), e).toHaveLength(1);
        expect([...by.values()].flat()).toHaveLength(events.length);
        console.info(
          `PostgreSQL outage test: ${events.length} events, 180 deliveries (+${statuses.length - 180} redeliveries); 30 acknowledged before the stop; ` +
            `${answered.filter(([, s]) => s === 200).length} of the 60 in flight at the stop acknowledged; ${downStatuses.length} answered 503 while down; ${[...by.values()].flat().length} rows after`,
        );
        await check.end();
        for (const w of live) w.send({ type: 'stop' });
      } finally {
        await own.destroy();
      }
    },
    LIMIT,
  );
});

/**
 * Every step of the payout workflow survives SIGKILL of a real process: a child worker
 * (fixtures/payout-child.ts) runs the batch (helpers/batch.ts: one payout paid and confirmed, one
 * not paid and failed, one refused at the debit) against the sandbox served over HTTP by this
 * process and a real store, dies at a kill point, and a second child resumes the batch. The
 * store is redis-server with `appendfsync always` or PostgreSQL 15. Asserted after each resume:
 * helpers/invariants.ts (each payout ends once, or waits for a person only when its payment's
 * outcome is unknown; one debit and at most one confirm or fail each at the service, no fail
 * after a payment on the chain, pay() called once at most, the buckets explained).
 *
 * Kill points, each reached by an event (the child's own write or pay hook, or a request the
 * sandbox holds), never by a delay. A dry run (no kill) first lists each payout's writes. Steps
 * are split between the stores (each step on one, the hand-out and the confirm on both):
 * - Redis: before and after every write of the paid payout (record, debit, hand-out, payment
 *   recorded, confirm attempt, confirmed); in pay before and after the payment is on the chain
 *   (and after it, resumed with `lookupPayment`); killed by the test while the sandbox holds the
 *   first debit, then while it holds the confirm (released after the kill: executed, the answer
 *   never read).
 * - PostgreSQL: before and after the unpaid payout's hand-out and each of its writes from
 *   not-paid recorded to failed (the steps the paid payout does not take; its record and debit
 *   writes are Redis's), and around the refused one's last write (rejected); in pay for the
 *   unpaid payout, before and after, and for the paid one before the payment, resumed with
 *   `lookupPayment`; killed while the sandbox holds the fail, then the confirm.
 *
 * About 70 processes; the in-process file (crash-simulated.test.ts) tries every write and call.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../fleet/helpers/redis-server.js';
import { POSTGRES_AVAILABLE, startPostgres, type PostgresServer } from '../postgres/helpers/postgres-server.js';
import {
  crashAndResume,
  dryRun,
  everyWriteOf,
  payoutChildren,
  type CrashOptions,
  type ProcessPoint,
  type ProcessWorld,
  type WriteSequence,
} from './helpers/process-crash.js';

/** Hang guard only: a test's processes take well under a second each, several on a loaded machine. */
const LIMIT = 240_000;
const PAID = 'ord-p-paid';
const UNPAID = 'ord-p-unpaid';
const REFUSED = 'ord-p-refused';

const table: string[] = [];
let started = 0;

afterAll(async () => {
  if (table.length > 0) console.info(`process crashes, ${started} children (store | died | final states | ms):\n${table.join('\n')}`);
  await payoutChildren.cleanup();
});

/** Runs each point in turn (one sandbox, one store, two children each); every one must hold. */
async function crashEach(world: ProcessWorld, points: readonly ProcessPoint[], options: CrashOptions = {}): Promise<void> {
  for (const point of points) {
    const { row } = await crashAndResume(world, point, options);
    started += 2;
    table.push(
      `${world.kind} | ${row.died}${options.lookup === true ? ' (resumed with lookupPayment)' : ''} | ${JSON.stringify(row.states)} | ${row.ms}`,
    );
  }
}

describe.skipIf(REDIS_SERVER === undefined)(
  'payout workflow, SIGKILL at each step (real processes, redis-server, appendfsync always)',
  () => {
    let server: RedisServer;
    let world: ProcessWorld;
    let writes: WriteSequence;

    beforeAll(async () => {
      server = await startRedisServer({ persistence: 'aof' });
      const admin = new Redis(server.url);
      expect(await admin.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
      await admin.quit();
      let n = 0;
      world = {
        kind: 'redis',
        url: server.url,
        fresh: () => ({ kind: 'redis', url: server.url, name: `merchant-stablecoin:payouts${++n}` }),
      };
      writes = await dryRun(world);
      started += 1;
    }, LIMIT);
    afterAll(async () => {
      await server?.stop();
    });

    it('without a kill, the batch ends as planned', () => {
      expect([...writes.keys()].sort()).toEqual([PAID, REFUSED, UNPAID]);
      expect(writes.get(PAID)?.at(-1)).toBe('confirmed');
      expect(writes.get(UNPAID)?.at(-1)).toBe('failed');
      expect(writes.get(REFUSED)?.at(-1)).toBe('rejected');
    });

    it(
      'killed before and after each write of the paid payout',
      async () => {
        await crashEach(world, everyWriteOf(PAID, writes));
      },
      LIMIT,
    );

    it(
      'killed in pay before and after the payment is on the chain',
      async () => {
        await crashEach(world, [
          { kind: 'pay', reference: PAID, side: 'before' },
          { kind: 'pay', reference: PAID, side: 'after' },
        ]);
        await crashEach(world, [{ kind: 'pay', reference: PAID, side: 'after' }], { lookup: true });
      },
      LIMIT,
    );

    it(
      'killed while the sandbox holds its debit, then its confirm (executed after the kill)',
      async () => {
        await crashEach(world, [
          { kind: 'hang', call: 'debit' },
          { kind: 'hang', call: 'confirm' },
        ]);
      },
      LIMIT,
    );
  },
);

describe.skipIf(!POSTGRES_AVAILABLE)('payout workflow, SIGKILL at each step (real processes, PostgreSQL)', () => {
  let pg: PostgresServer;
  let world: ProcessWorld;
  let writes: WriteSequence;

  beforeAll(async () => {
    pg = await startPostgres();
    let n = 0;
    world = { kind: 'postgres', url: pg.url, fresh: () => ({ kind: 'postgres', url: pg.url, name: `payouts_${++n}` }) };
    writes = await dryRun(world);
    started += 1;
  }, LIMIT);
  afterAll(async () => {
    await pg?.destroy();
  });

  it('without a kill, the batch ends as planned', () => {
    expect(writes.get(PAID)?.at(-1)).toBe('confirmed');
    expect(writes.get(UNPAID)?.at(-1)).toBe('failed');
    expect(writes.get(REFUSED)?.at(-1)).toBe('rejected');
  });

  it(
    "killed before and after the unpaid payout's hand-out and each write from not-paid to failed, and around the refusal",
    async () => {
      const last = writes.get(REFUSED)!.length;
      const unpaid = everyWriteOf(UNPAID, writes).filter(
        (p) => p.kind === 'write' && ['paying', 'unpaid', 'failed'].includes(writes.get(UNPAID)![p.index - 1]!),
      );
      expect(unpaid.length).toBeGreaterThanOrEqual(6);
      await crashEach(world, [
        ...unpaid,
        { kind: 'write', reference: REFUSED, index: last, side: 'before' },
        { kind: 'write', reference: REFUSED, index: last, side: 'after' },
      ]);
    },
    LIMIT,
  );

  it(
    'killed in pay before and after it decides not to pay',
    async () => {
      await crashEach(world, [
        { kind: 'pay', reference: UNPAID, side: 'before' },
        { kind: 'pay', reference: UNPAID, side: 'after' },
      ]);
      await crashEach(world, [{ kind: 'pay', reference: PAID, side: 'before' }], { lookup: true });
    },
    LIMIT,
  );

  it(
    'killed while the sandbox holds its fail, then its confirm (executed after the kill)',
    async () => {
      await crashEach(world, [
        { kind: 'hang', call: 'fail' },
        { kind: 'hang', call: 'confirm' },
      ]);
    },
    LIMIT,
  );
});

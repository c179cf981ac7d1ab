/**
 * Workers racing over one store: two and five PayoutWorkflows, each with its own client and its
 * own store object (its own connection to redis-server or PostgreSQL; one shared memory store in
 * process), run passes over the same batch of debited payouts at once. The store's
 * compare-and-set on the version decides each hand-out: no payout is handed out twice (pay()
 * called once per reference, whoever won it), and every payout ends confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryPayoutStore, type PayoutRecord } from '../../src/payouts/index.js';
import type { PayoutStore } from '../../src/payouts/store.js';
import { createSandbox } from '../../src/testing/index.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../fleet/helpers/redis-server.js';
import { POSTGRES_AVAILABLE, startPostgres, type PostgresServer } from '../postgres/helpers/postgres-server.js';
import { chainRefOf, type PayAnswer } from './helpers/batch.js';
import { openStore, prepareStore, type StoreAddress, type StoreKind } from './helpers/real-stores.js';
import { allRecords, WatchedStore } from './helpers/watched-store.js';
import { drain, sandboxClient, workflowOf } from './helpers/workers.js';

/** Hang guard only. */
const LIMIT = 120_000;
const PAYOUTS = 12;
const table: string[] = [];

let redis: RedisServer | undefined;
let postgres: PostgresServer | undefined;
let n = 0;

beforeAll(async () => {
  if (REDIS_SERVER !== undefined) redis = await startRedisServer({ persistence: 'aof' });
  if (POSTGRES_AVAILABLE) postgres = await startPostgres();
}, LIMIT);
afterAll(async () => {
  if (table.length > 0)
    console.info(`racing workers (store | workers | hand-outs won per worker | writes lost to another worker):\n${table.join('\n')}`);
  await redis?.stop();
  await postgres?.destroy();
});

/** Store objects over one fresh store: `open()` gives another (a connection of its own for real servers). */
async function storesOf(kind: 'memory' | StoreKind): Promise<{ open: () => PayoutStore; close: () => Promise<void> }> {
  if (kind === 'memory') {
    const shared = new MemoryPayoutStore();
    return { open: () => shared, close: () => Promise.resolve() };
  }
  const address: StoreAddress =
    kind === 'redis'
      ? { kind, url: redis!.url, name: `merchant-stablecoin:race${++n}` }
      : { kind, url: postgres!.url, name: `payouts_race_${++n}` };
  await prepareStore(address);
  const opened: Array<() => Promise<void>> = [];
  return {
    open: () => {
      const o = openStore(address);
      opened.push(() => o.close());
      return o.store;
    },
    close: async () => {
      await Promise.all(opened.map((c) => c()));
    },
  };
}

async function race(kind: 'memory' | StoreKind, workers: number): Promise<void> {
  const sandbox = createSandbox();
  const member = sandbox.state.seedMember({ external_member_id: 'racing-payee', balances: { USDT: { available: '1000' } } }).id;
  const stores = await storesOf(kind);
  try {
    // Debited by a desk that hands nothing out (no pay function).
    const starterClient = sandboxClient(sandbox);
    const starter = workflowOf({ client: starterClient, store: stores.open(), workerId: 'starter' });
    const references = Array.from({ length: PAYOUTS }, (_, i) => `race-${i + 1}`);
    for (const reference of references) {
      const started = await starter.start({ reference, member, asset: 'USDT', amount: '1.5', toAddress: `T-${reference}` });
      expect(started.state).toBe('debited');
    }
    await starterClient.close();

    const calls = new Map<string, number>();
    const pay = async (payout: PayoutRecord): Promise<PayAnswer> => {
      calls.set(payout.reference, (calls.get(payout.reference) ?? 0) + 1);
      // Gives the other workers a turn while this payment is in flight.
      await new Promise((resolve) => setImmediate(resolve));
      return { outcome: 'paid', chainRef: chainRefOf(payout.reference) };
    };
    const racers = Array.from({ length: workers }, (_, i) => {
      const store = new WatchedStore(stores.open());
      const client = sandboxClient(sandbox);
      return { store, client, workflow: workflowOf({ client, store, pay, workerId: `w${i + 1}` }) };
    });
    await Promise.all(racers.map((r) => drain(r.workflow, r.store, true)));
    await Promise.all(racers.map((r) => r.client.close()));

    expect(Object.fromEntries(calls)).toEqual(Object.fromEntries(references.map((r) => [r, 1])));
    const records = await allRecords(stores.open());
    expect(records.map((r) => r.state)).toEqual(references.map(() => 'confirmed'));
    expect(records.every((r) => r.chainRef === chainRefOf(r.reference))).toBe(true);
    expect(sandbox.state.countEffects('withdrawal.create')).toBe(PAYOUTS);
    expect(sandbox.state.countEffects('withdrawal.confirm')).toBe(PAYOUTS);
    expect(sandbox.state.countEffects('withdrawal.fail')).toBe(0);
    expect(new Set(sandbox.state.effects.filter((e) => e.kind === 'withdrawal.confirm').map((e) => e.id)).size).toBe(PAYOUTS);
    expect(sandbox.state.balance(member, 'USDT')).toMatchObject({ available: '982.000000', withdrawing: '0.000000' });
    const won = racers.map((r) => records.filter((x) => x.handOut?.worker === r.workflow.workerId).length);
    const lost = racers.reduce((sum, r) => sum + r.store.writes - r.store.landed.length, 0);
    table.push(`${kind} | ${workers} | ${won.join(' ')} | ${lost}`);
  } finally {
    await stores.close();
  }
}

const KINDS = [
  ['memory', true],
  ['redis', REDIS_SERVER !== undefined],
  ['postgres', POSTGRES_AVAILABLE],
] as const;

for (const [kind, available] of KINDS) {
  describe.skipIf(!available)(`${kind} store: racing workers`, () => {
    for (const workers of [2, 5]) {
      it(
        `${workers} workers over ${PAYOUTS} debited payouts: each handed out and paid once, each confirmed`,
        () => race(kind, workers),
        LIMIT,
      );
    }
  });
}

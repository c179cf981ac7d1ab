/**
 * Issue 24: the three fleet stores, issue 27's intent journal and issue 40's payout store, on a real 3-master Redis Cluster (`redis-server
 * --cluster-enabled yes` ×3 on loopback, joined by `redis-cli --cluster create`), through
 * ioredis' `Cluster`, as the ACL user of docs/fleet.md plus its Cluster line (set on every node:
 * ACLs are per node). Keys one script touches share a hash tag, so no script meets CROSSSLOT;
 * keys of different events or accounts spread over the masters.
 *
 * Skipped, loudly, when redis-server or redis-cli is missing. Waits are on events (replies, the
 * cluster's own state); the hooks' limits are hang guards for a loaded machine.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenManager } from '../../src/core/credentials/token-manager.js';
import type { JournalIntent } from '../../src/index.js';
import { RedisEventStore, RedisJournal, RedisPayoutStore, RedisRateLimiter, RedisTokenStore } from '../../src/redis/index.js';
import { payoutRecord } from '../payouts/helpers/records.js';
import { manualClock } from '../helpers/time.js';
import { bucketKey, tokenKeys } from './helpers/keys.js';
import { REDIS_CLI, REDIS_SERVER, startCluster, warnClusterSkipped, type RedisCluster } from './helpers/redis-server.js';

const DOC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'fleet.md');
const PASSWORD = 'cluster-acl-password-51d7';
const CAN_RUN = REDIS_SERVER !== undefined && REDIS_CLI !== undefined;
if (!CAN_RUN) warnClusterSkipped();

/** The ACL lines of docs/fleet.md (the user, then the Cluster's extra commands), as ACL SETUSER arguments. */
function documentedAcl(): string[][] {
  const lines = readFileSync(DOC, 'utf8').match(/^ACL SETUSER merchant-stablecoin .*$/gm) ?? [];
  expect(lines.length).toBe(2);
  return lines.map((l) => l.replace('>CHANGE-ME', `>${PASSWORD}`).split(/\s+/).slice(3));
}

const token = (value: string) => ({ token: value, expiresAt: Math.floor(Date.now() / 1000) + 1800 });
/** A healthy Cluster answering slowly on a loaded machine is not an outage (not what this tests). */
const PATIENT = { commandTimeoutMs: 120_000 } as const;

describe.skipIf(!CAN_RUN)('the fleet stores on a 3-master Redis Cluster (real redis-server ×3, ioredis Cluster)', () => {
  let cluster: RedisCluster;
  const admins: Redis[] = [];
  const clients: Cluster[] = [];
  const connect = (): Cluster => {
    const c = new Cluster([...cluster.nodes], {
      redisOptions: { username: 'merchant-stablecoin', password: PASSWORD, maxRetriesPerRequest: 1 },
    });
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };
  /** The master that holds `key`, by its port. */
  const nodeOf = async (key: string): Promise<number> => {
    const slot = Number(await admins[0]!.call('CLUSTER', 'KEYSLOT', key));
    const slots = (await admins[0]!.call('CLUSTER', 'SLOTS')) as Array<[number, number, [string, number]]>;
    return slots.find(([from, to]) => slot >= from && slot <= to)![2][1];
  };

  beforeAll(async () => {
    cluster = await startCluster(3);
    for (const node of cluster.nodes) {
      const admin = new Redis(node.port, node.host);
      admins.push(admin);
      for (const rules of documentedAcl()) expect(await admin.call('ACL', 'SETUSER', 'merchant-stablecoin', ...rules)).toBe('OK');
    }
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const a of admins) a.disconnect();
    await cluster?.stop();
  }, 60_000);

  it('token store: ten instances renewing at once make one exchange; the token, lock and counter share a slot', async () => {
    const key = 'merchant-stablecoin:token:cluster';
    let exchanges = 0;
    const managers = Array.from(
      { length: 10 },
      () =>
        new TokenManager({
          store: new RedisTokenStore({ redis: connect(), lockTtlMs: 60_000, lockWaitMs: 120_000, ...PATIENT }),
          key,
          exchange: () => Promise.resolve(token(`tok_cluster_${++exchanges}`)),
          now: Date.now,
          renewBeforeSeconds: 60,
        }),
    );
    const got = await Promise.all(managers.map((m) => Promise.resolve(m.get())));
    expect(exchanges).toBe(1);
    expect(new Set(got)).toEqual(new Set(['tok_cluster_1']));
    const k = tokenKeys(key);
    const slots = await Promise.all([k.token, k.lock, k.renewals].map((x) => admins[0]!.call('CLUSTER', 'KEYSLOT', x)));
    expect(new Set(slots).size).toBe(1);
    const holder = new Redis(await nodeOf(k.token), '127.0.0.1');
    admins.push(holder);
    expect(await holder.exists(k.token)).toBe(1);
    expect(await holder.get(k.renewals)).toBe('1');
    console.log(`[fleet] Cluster: 10 instances renewing at once → ${exchanges} token exchange`);
  });

  it('event store: of 50 concurrent claims from five instances one wins; completion and release hold across instances; events spread over the masters', async () => {
    const stores = Array.from({ length: 5 }, () => new RedisEventStore({ redis: connect(), ...PATIENT }));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 5]!.claim('evt_cluster_race', 60_000)));
    expect(results.filter((r) => r === 'claimed')).toHaveLength(1);
    const winner = stores[results.indexOf('claimed') % 5]!;
    await winner.complete('evt_cluster_race');
    expect(await stores[(results.indexOf('claimed') + 1) % 5]!.claim('evt_cluster_race', 60_000)).toBe('duplicate');

    expect(await stores[0]!.claim('evt_cluster_fail', 60_000)).toBe('claimed');
    await stores[0]!.release('evt_cluster_fail');
    expect(await stores[1]!.claim('evt_cluster_fail', 60_000)).toBe('claimed');

    const ids = Array.from({ length: 30 }, (_, i) => `evt_cluster_${i}`);
    for (const id of ids) expect(await stores[0]!.claim(id, 60_000)).toBe('claimed');
    const masters = new Set(await Promise.all(ids.map((id) => nodeOf(`merchant-stablecoin:webhook-event:${id}`))));
    expect(masters.size).toBeGreaterThan(1);
    console.log(`[fleet] Cluster: 50 concurrent claims → 1 claimed; 30 events on ${masters.size} masters`);
  });

  it('rate limiter: two instances share one window and one pause, whichever master holds the account', async () => {
    const clock = manualClock();
    const opts = { account: 'cid_cluster', quotas: { orders: 5 }, windowMs: 60_000, marginMs: 0, clock, ...PATIENT };
    const a = new RedisRateLimiter({ redis: connect(), ...opts });
    const b = new RedisRateLimiter({ redis: connect(), ...opts });
    await Promise.all([a, b, a, b, a].map((l) => l.acquire('orders')));
    const holder = new Redis(await nodeOf(bucketKey('cid_cluster', 'orders')), '127.0.0.1');
    admins.push(holder);
    expect(await holder.zcard(bucketKey('cid_cluster', 'orders'))).toBe(5);

    // The sixth waits on the shared clock until the oldest admission leaves the window.
    let sixth = false;
    const asleep = new Promise<void>((resolve) => clock.onSleep(resolve));
    const pending = b.acquire('orders').then(() => (sixth = true));
    await asleep;
    expect(sixth).toBe(false);
    clock.advance(60_000 + 15);
    await pending;
    expect(sixth).toBe(true);

    // A pause from one instance holds the other, for that bucket only.
    a.pause('reads', 1000, 'swift_search');
    a.pause('deposits', 1000);
    // The pause is sent on its own time: wait until it has landed (the key appears on its master).
    while ((await holder.get(`${bucketKey('cid_cluster', 'deposits')}:pause`)) === null);
    let deposits = false;
    const pausedAsleep = new Promise<void>((resolve) => clock.onSleep(resolve));
    const depositsDone = b.acquire('deposits').then(() => (deposits = true));
    await pausedAsleep;
    expect(deposits).toBe(false);
    await b.acquire('reads'); // the sub-limit's pause holds only its own calls
    clock.advance(1000 + 15);
    await depositsDone;
    console.log('[fleet] Cluster: two limiters → 5 admitted of quota 5, the sixth waited for the window; a pause held the other instance');
  });

  it("intent journal: each client's three keys share a slot, clients spread over the masters, two instances claiming at once get each intent once", async () => {
    const scopes = Array.from({ length: 12 }, (_, i) => createHash('sha256').update(`client ${i}`).digest('hex').slice(0, 32));
    const intent = (scope: string, n: number): JournalIntent => ({
      key: `${scope.slice(0, 8)}-${n}`,
      scope,
      endpoint: 'member.withdrawals.create',
      method: 'POST',
      path: '/v1/withdrawals',
      body: '{"asset":"USDT"}',
      withheld: false,
      member: 'ext-1',
      createdAt: 100 + n,
    });
    const writer = new RedisJournal({ redis: connect(), ...PATIENT });
    for (const scope of scopes) for (let n = 0; n < 3; n++) await writer.record(intent(scope, n));
    const instances = [new RedisJournal({ redis: connect(), ...PATIENT }), new RedisJournal({ redis: connect(), ...PATIENT })];
    const got: string[] = [];
    const drain = async (journal: RedisJournal, scope: string): Promise<void> => {
      for (;;) {
        const [claimed] = await journal.claim({ scope, createdBefore: 10_000, leaseMs: 600_000, limit: 1 });
        if (claimed === undefined) return;
        got.push(String(claimed.key));
        await journal.settle(scope, String(claimed.key));
      }
    };
    await Promise.all(scopes.flatMap((scope) => instances.map((j) => drain(j, scope))));
    expect([...got].sort()).toEqual(scopes.flatMap((scope) => [0, 1, 2].map((n) => intent(scope, n).key)).sort());

    const keysOf = (scope: string): string[] =>
      ['intents', 'open', 'claims'].map((part) => `merchant-stablecoin:journal:{${scope}}:${part}`);
    for (const scope of scopes) {
      const slots = await Promise.all(keysOf(scope).map((k) => admins[0]!.call('CLUSTER', 'KEYSLOT', k)));
      expect(new Set(slots).size).toBe(1);
    }
    const masters = new Set(await Promise.all(scopes.map((scope) => nodeOf(keysOf(scope)[0]!))));
    expect(masters.size).toBeGreaterThan(1);
    // Settled: nothing open on any master.
    for (const scope of scopes) {
      const holder = new Redis(await nodeOf(keysOf(scope)[0]!), '127.0.0.1');
      admins.push(holder);
      expect(await holder.exists(...keysOf(scope).slice(0, 2))).toBe(0);
    }
    console.log(
      `[fleet] Cluster: intent journal, ${scopes.length} clients on ${masters.size} masters, ${got.length} intents each claimed once`,
    );
  });

  it('payout store: its keys share one slot; two instances race one replace (one wins), list across states, and read one clock: the TIME of the master holding them', async () => {
    const [one, two] = [new RedisPayoutStore({ redis: connect(), ...PATIENT }), new RedisPayoutStore({ redis: connect(), ...PATIENT })];
    for (let i = 0; i < 6; i++)
      await one.create(payoutRecord({ reference: `ord-${i}`, createdAt: 100 + i, state: i % 2 === 0 ? 'debited' : 'confirmed' }));
    const r0 = (await two.get('ord-0'))!;
    const tries = Array.from({ length: 8 }, (_, i) =>
      [one, two][i % 2]!.replace({ ...r0, version: 2, state: 'paying', handOut: { at: i, leaseUntil: i, worker: `w-${i}` } }),
    );
    expect((await Promise.all(tries)).filter(Boolean)).toHaveLength(1);
    const listed = await two.list({ limit: 10, states: ['paying', 'debited', 'confirmed'] });
    expect(listed.records.map((r) => `${r.reference}:${r.state}`)).toEqual([
      'ord-0:paying',
      'ord-1:confirmed',
      'ord-2:debited',
      'ord-3:confirmed',
      'ord-4:debited',
      'ord-5:confirmed',
    ]);
    const keys = ['records', 'meta', 'state:paying', 'state:debited', 'state:confirmed'].map(
      (p) => `merchant-stablecoin:payouts:{all}:${p}`,
    );
    const slots = await Promise.all(keys.map((k) => admins[0]!.call('CLUSTER', 'KEYSLOT', k)));
    expect(new Set(slots).size).toBe(1);
    const holder = new Redis(await nodeOf(keys[0]!), '127.0.0.1');
    admins.push(holder);
    expect(await holder.hlen(keys[0]!)).toBe(6);
    const ms = ([s, us]: [string, string]): number => Number(s) * 1000 + Math.floor(Number(us) / 1000);
    const before = ms((await holder.time()) as unknown as [string, string]);
    const now = await one.now();
    const after = ms((await holder.time()) as unknown as [string, string]);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);
  });
});

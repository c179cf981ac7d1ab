/**
 * `RedisJournal` against a real redis-server, in one process with several connections (each
 * connection stands for one instance): the journal contract, the keys it writes, and what a
 * client does when Redis cannot take an intent. The crash proofs with processes are in
 * crash.test.ts.
 */
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CallInterruptedError,
  RecoveryInterruptedError,
  type JournalClaimRequest,
  type JournalIntent,
  type LogFields,
} from '../../src/index.js';
import { RedisJournal, RedisStoreError } from '../../src/redis/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { WITHDRAWAL } from '../helpers/wire-server.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../fleet/helpers/redis-server.js';
import { startLedger, type Ledger } from './helpers/ledger.js';
import { recoverInsideLease } from './helpers/inside-lease.js';

/** A healthy Redis answering slowly on a loaded machine is not an outage. */
const PATIENT = { commandTimeoutMs: 120_000 } as const;

const intent = (key: string, createdAt: number, scope = 'scope1', extra: Partial<JournalIntent> = {}): JournalIntent => ({
  key,
  scope,
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{"asset":"USDT"}',
  withheld: false,
  member: 'ext-1',
  createdAt,
  ...extra,
});
const request = (over: Partial<JournalClaimRequest> = {}): JournalClaimRequest => ({
  scope: 'scope1',
  createdBefore: 10_000,
  leaseMs: 60_000,
  limit: 10,
  ...over,
});

/** The keys in the order the journal must list them: soonest lease end first, then by key. */
function sortedByEnd(leases: readonly { key: string; endsInMs: number }[]): string[] {
  return [...leases].sort((a, b) => a.endsInMs - b.endsInMs || a.key.localeCompare(b.key)).map((l) => l.key);
}

describe.skipIf(REDIS_SERVER === undefined)('RedisJournal (real redis-server)', () => {
  let server: RedisServer;
  const connections: Redis[] = [];
  const connect = (): Redis => {
    const r = new Redis(server.url, { maxRetriesPerRequest: 1 });
    r.on('error', () => undefined);
    connections.push(r);
    return r;
  };
  let admin: Redis;
  let n = 0;
  let prefix: string;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = connect();
  });
  beforeEach(() => {
    prefix = `test${++n}`;
  });
  afterAll(async () => {
    await Promise.all(connections.map((c) => c.quit().catch(() => undefined)));
    await server?.stop();
  });

  it('claims oldest first within the scope and age, keeps the first record of a key, and settles', async () => {
    const a = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    await a.record(intent('k2', 200));
    await a.record(intent('k1', 100));
    await a.record(intent('k1', 150, 'scope1', { body: '{"changed":true}' }));
    await a.record(intent('young', 50_000));
    await a.record(intent('k0', 10, 'scope2'));
    expect(await a.claim(request({ limit: 1 }))).toEqual([intent('k1', 100)]);
    expect((await a.claim(request())).map((i) => i.key)).toEqual(['k2']);
    expect(await a.claim(request())).toEqual([]);
    await a.settle('scope1', 'k1');
    await a.settle('scope1', 'absent');
    expect((await admin.hkeys(`${prefix}:journal:{scope1}:intents`)).sort()).toEqual(['k2', 'young']);
    expect(await admin.zrange(`${prefix}:journal:{scope1}:open`, '0', '-1')).toEqual(['k2', 'young']);
    expect(await admin.hkeys(`${prefix}:journal:{scope1}:claims`)).toEqual(['k2']);
  });

  it('two instances claiming at once get each intent once', async () => {
    const writer = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    for (let i = 0; i < 40; i++) await writer.record(intent(`k${i}`, 100 + i));
    const one = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    const two = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    const got: string[] = [];
    const drain = async (j: RedisJournal): Promise<void> => {
      for (;;) {
        const [claimed] = await j.claim(request({ limit: 1 }));
        if (claimed === undefined) return;
        got.push(String(claimed.key));
      }
    };
    await Promise.all([drain(one), drain(two), drain(one), drain(two)]);
    expect(got.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `k${i}`).sort());
  });

  it('a claim holds for its lease on Redis time, and an expired one is claimed again', async () => {
    const j = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    await j.record(intent('k1', 100));
    expect(await j.claim(request({ leaseMs: 3_600_000 }))).toHaveLength(1);
    const until = Number(await admin.hget(`${prefix}:journal:{scope1}:claims`, 'k1'));
    const [s, us] = await admin.time();
    const redisNow = Number(s) * 1000 + Math.floor(Number(us) / 1000);
    expect(until - redisNow).toBeGreaterThan(3_500_000);
    expect(await j.claim(request())).toEqual([]);
    // The lease's end moved into the past, as time passing would.
    await admin.hset(`${prefix}:journal:{scope1}:claims`, 'k1', String(redisNow - 1));
    expect(await j.claim(request())).toHaveLength(1);
  });

  it('writes only keys under its prefix, with one hash tag per scope, no TTL, and never a PIN', async () => {
    const ledger: Ledger = await startLedger();
    try {
      const journal = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
      const client = wireClient(ledger.url, { journal, maxRetries: 0 });
      ledger.interpose('activation', () => ({ reset: true }));
      ledger.interpose('withdrawal', () => ({ reset: true }));
      await failure(client.member('ext-1').cards.activate('crd_1', { expiry: '08/29', pin: '8642' }));
      await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
      const keys = (await admin.keys(`${prefix}*`)).sort();
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(new RegExp(`^${prefix}:journal:\\{[0-9a-f]{32}\\}:intents$`));
      expect(keys[1]).toMatch(new RegExp(`^${prefix}:journal:\\{[0-9a-f]{32}\\}:open$`));
      for (const key of keys) expect(await admin.pttl(key)).toBe(-1);
      const records = Object.values(await admin.hgetall(keys[0]!));
      expect(records).toHaveLength(2);
      // The PIN standing alone: a random key, scope or timestamp may hold its four digits by chance.
      expect(records.join('\n')).not.toMatch(/(?<![0-9a-fA-F])8642(?![0-9a-fA-F])/);
      expect(records.join('\n')).toContain(WITHDRAWAL.to_address);
    } finally {
      await ledger.close();
    }
  });

  it('returns a record it cannot read as unreadable, with its key, claimed like the others and left in Redis', async () => {
    const lines: string[] = [];
    const j = new RedisJournal({ redis: connect(), prefix, ...PATIENT, logger: { warn: (m: string) => lines.push(m) } });
    await admin.hset(`${prefix}:journal:{scope1}:intents`, 'bad', '{"key":1}');
    await admin.zadd(`${prefix}:journal:{scope1}:open`, 5, 'bad');
    await admin.hset(`${prefix}:journal:{scope1}:intents`, 'garbage', 'not json at all');
    await admin.zadd(`${prefix}:journal:{scope1}:open`, 6, 'garbage');
    await admin.hset(`${prefix}:journal:{scope1}:intents`, 'moved', JSON.stringify(intent('other-key', 7)));
    await admin.zadd(`${prefix}:journal:{scope1}:open`, 7, 'moved');
    await j.record(intent('good', 8));
    expect(await j.claim(request({ limit: 1 }))).toEqual([
      {
        unreadable: true,
        key: 'bad',
        scope: 'scope1',
        problem: expect.stringMatching(/^missing or mistyped fields: key, scope, /) as string,
      },
    ]);
    // The unreadable one is under its lease: the records behind it come next.
    expect(await j.claim(request())).toEqual([
      { unreadable: true, key: 'garbage', scope: 'scope1', problem: 'not JSON' },
      { unreadable: true, key: 'moved', scope: 'scope1', problem: 'its key or scope differs from where it is stored' },
      intent('good', 8),
    ]);
    expect(lines).toEqual(Array(3).fill('merchant-stablecoin/redis: an unreadable journal record was claimed and set aside'));
    expect((await admin.hkeys(`${prefix}:journal:{scope1}:intents`)).sort()).toEqual(['bad', 'garbage', 'good', 'moved']);
  });

  it('lists the young intents without claiming them (openAfter)', async () => {
    const j = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    for (const [key, at] of [
      ['old', 100],
      ['y1', 5000],
      ['y2', 6000],
      ['y3', 7000],
    ] as const)
      await j.record(intent(key, at));
    await j.record(intent('elsewhere', 9000, 'scope2'));
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 5000, limit: 1 })).toEqual({ total: 2, intents: [intent('y2', 6000)] });
    expect(await j.openAfter({ scope: 'scope1', createdAfter: 100, limit: 5 })).toEqual({
      total: 3,
      intents: [intent('y1', 5000), intent('y2', 6000), intent('y3', 7000)],
    });
    // Nothing was claimed: every one of them is claimable still.
    expect((await j.claim(request({ createdBefore: 10_000 }))).map((r) => r.key)).toEqual(['old', 'y1', 'y2', 'y3']);
  });

  it("lists the intents under an unexpired claim with the time left on Redis' clock, claiming none (leased)", async () => {
    const j = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    for (const [key, at] of [
      ['k1', 100],
      ['k2', 200],
      ['k3', 300],
      ['free', 400],
      ['young', 50_000],
    ] as const)
      await j.record(intent(key, at));
    await j.record(intent('elsewhere', 10, 'scope2'));
    await j.claim(request({ createdBefore: 200, leaseMs: 3_600_000 }));
    await j.claim(request({ createdBefore: 300, leaseMs: 60_000 }));
    await j.claim(request({ createdBefore: 60_000, leaseMs: 60_000, limit: 2 }));
    await new RedisJournal({ redis: connect(), prefix, ...PATIENT }).claim(request({ scope: 'scope2' }));
    const all = await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: [], limit: 10 });
    // Soonest end first: k3 and free (60 s), then k1 and k2 (an hour); `young` is past createdBefore.
    expect(all.total).toBe(4);
    expect(all.leases.map((l) => l.key)).toEqual(sortedByEnd(all.leases));
    expect(all.leases.map((l) => l.key).slice(2)).toEqual(['k1', 'k2']);
    for (const l of all.leases) expect(l.endsInMs).toBeGreaterThan(0);
    expect(all.leases.find((l) => l.key === 'k3')!.endsInMs).toBeLessThanOrEqual(60_000);
    expect(all.leases.find((l) => l.key === 'k1')!.endsInMs).toBeGreaterThan(3_500_000);
    expect(await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: ['k3', 'free'], limit: 10 })).toMatchObject({
      total: 2,
      leases: [{ key: 'k1' }, { key: 'k2' }],
    });
    expect(await j.leased({ scope: 'scope1', createdBefore: 150, exceptKeys: [], limit: 10 })).toMatchObject({
      total: 1,
      leases: [{ key: 'k1' }],
    });
    expect((await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: [], limit: 1 })).total).toBe(4);
    // A claim whose end has passed holds nothing.
    const [s, us] = await admin.time();
    await admin.hset(`${prefix}:journal:{scope1}:claims`, 'k3', String(Number(s) * 1000 + Math.floor(Number(us) / 1000) - 1));
    expect((await j.leased({ scope: 'scope1', createdBefore: 10_000, exceptKeys: [], limit: 10 })).leases.map((l) => l.key)).toEqual(
      sortedByEnd(all.leases).filter((k) => k !== 'k3'),
    );
    expect((await j.claim(request({ createdBefore: 10_000 }))).map((r) => r.key)).toEqual(['k3']);
  });

  it("recover() inside another recoverer's lease reports the intent and when it can be claimed, then sends it once the lease ends", async () => {
    const journal = new RedisJournal({ redis: connect(), prefix, ...PATIENT });
    await recoverInsideLease(journal, async () => {
      const claims = (await admin.keys(`${prefix}:journal:*:claims`))[0]!;
      await admin.del(claims);
    });
  });

  it('shows its prefix and health only when inspected', () => {
    expect(inspect(new RedisJournal({ redis: connect(), prefix }))).toBe(`RedisJournal { prefix: '${prefix}', degraded: false }`);
  });

  describe('when Redis cannot take an intent', () => {
    let ledger: Ledger;
    beforeEach(async () => {
      ledger = await startLedger();
    });
    afterEach(async () => {
      await ledger.close();
    });

    it('money-moving calls fail before sending, one line is logged, and calls that move no funds go on', async () => {
      const down = await startRedisServer();
      const redis = new Redis(down.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
      redis.on('error', () => undefined);
      await new Promise((resolve) => redis.once('ready', resolve));
      // Redis stops, and the client has seen its connection close before the first call: the
      // same starting point on any machine.
      const closed = new Promise((resolve) => redis.once('close', resolve));
      await down.stop();
      await closed;
      const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
      const logger = {
        warn: (message: string, fields?: LogFields) => lines.push({ level: 'warn', message, fields }),
        info: (message: string, fields?: LogFields) => lines.push({ level: 'info', message, fields }),
      };
      const journal = new RedisJournal({ redis, logger });
      const client = wireClient(ledger.url, { journal, logger });
      // The first record meets a connection the client has closed (status end): the store does
      // not hand it over (it could only be queued or fail unsent), so the call is refused, not sent.
      const first = await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
      expect(first).toBeInstanceOf(CallInterruptedError);
      expect((first as CallInterruptedError).call).toMatchObject({ sent: 'no', attempts: 0 });
      // The cause says what Redis did: no connection (an outage), not a refusal, and nothing sent.
      expect((first as Error).cause).toBeInstanceOf(RedisStoreError);
      expect((first as Error).cause).toMatchObject({ kind: 'unreachable', command: 'EVALSHA', executed: false });
      expect(((first as Error).cause as RedisStoreError).key).toMatch(/^merchant-stablecoin:journal:\{[0-9a-f]{32}\}:intents$/);
      // While Redis is considered down the store sends nothing: that record certainly did not land.
      const err = await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
      expect(err).toBeInstanceOf(CallInterruptedError);
      expect((err as CallInterruptedError).call?.sent).toBe('no');
      expect((err as Error).cause).toMatchObject({ kind: 'unreachable', executed: false });
      expect(ledger.server.calls()).toEqual([]);
      ledger.server.on('GET', '/v1/balances', { body: { data: [], next_cursor: null, has_more: false } });
      await client.member('ext-1').balances.list();
      expect(lines.filter((l) => /Redis unreachable/.test(l.message))).toHaveLength(1);
      const stopped = await failure(client.recover({ minAgeMs: 0 }));
      expect(stopped).toBeInstanceOf(RecoveryInterruptedError);
      expect((stopped as RecoveryInterruptedError).cause).toBeInstanceOf(RedisStoreError);
      expect((stopped as RecoveryInterruptedError).report).toEqual({
        intents: [],
        unreadable: [],
        leftForLater: undefined,
        leased: undefined,
      });
      redis.disconnect();
    });
  });
});

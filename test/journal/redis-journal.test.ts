/**
 * `RedisJournal` against a real redis-server, in one process with several connections (each
 * connection stands for one instance): the journal contract, the keys it writes, and what a
 * client does when Redis cannot take an intent. The crash proofs with processes are in
 * crash.test.ts.
 */
import { inspect } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CallInterruptedError, type JournalClaimRequest, type JournalIntent, type LogFields } from '../../src/index.js';
import { RedisJournal, RedisStoreError } from '../../src/redis/index.js';
import { failure, wireClient } from '../helpers/client.js';
import { WITHDRAWAL } from '../helpers/wire-server.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../fleet/helpers/redis-server.js';
import { startLedger, type Ledger } from './helpers/ledger.js';

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
        got.push(claimed.key);
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
      expect(records.join('\n')).not.toContain('8642');
      expect(records.join('\n')).toContain(WITHDRAWAL.to_address);
    } finally {
      await ledger.close();
    }
  });

  it('skips, with a warning, a record it cannot read', async () => {
    const lines: string[] = [];
    const j = new RedisJournal({ redis: connect(), prefix, ...PATIENT, logger: { warn: (m: string) => lines.push(m) } });
    await admin.hset(`${prefix}:journal:{scope1}:intents`, 'bad', '{"key":1}');
    await admin.zadd(`${prefix}:journal:{scope1}:open`, 5, 'bad');
    expect(await j.claim(request())).toEqual([]);
    expect(lines).toEqual(['merchant-stablecoin/redis: an unreadable journal record was skipped']);
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
      await down.stop();
      const lines: Array<{ level: string; message: string; fields?: LogFields }> = [];
      const logger = {
        warn: (message: string, fields?: LogFields) => lines.push({ level: 'warn', message, fields }),
        info: (message: string, fields?: LogFields) => lines.push({ level: 'info', message, fields }),
      };
      const journal = new RedisJournal({ redis, logger });
      const client = wireClient(ledger.url, { journal, logger });
      const err = await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
      expect(err).toBeInstanceOf(CallInterruptedError);
      expect((err as CallInterruptedError).call?.sent).toBe('no');
      // The cause says what Redis did: no answer (an outage), not a refusal.
      expect((err as Error).cause).toBeInstanceOf(RedisStoreError);
      expect((err as Error).cause).toMatchObject({ kind: 'unreachable', command: 'EVALSHA' });
      expect(((err as Error).cause as RedisStoreError).key).toMatch(/^merchant-stablecoin:journal:\{[0-9a-f]{32}\}:intents$/);
      await failure(client.member('ext-1').withdrawals.create(WITHDRAWAL));
      expect(ledger.server.calls()).toEqual([]);
      ledger.server.on('GET', '/v1/balances', { body: { data: [], next_cursor: null, has_more: false } });
      await client.member('ext-1').balances.list();
      expect(lines.filter((l) => /Redis unreachable/.test(l.message))).toHaveLength(1);
      await expect(client.recover({ minAgeMs: 0 })).rejects.toBeInstanceOf(RedisStoreError);
      redis.disconnect();
    });
  });
});

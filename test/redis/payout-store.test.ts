/**
 * `RedisPayoutStore` against a real redis-server: the PayoutStore contract (as the least-privilege
 * user of docs/fleet.md, a second connection as the twin), the keys it writes, the list order of
 * the contract for references Redis alone would order otherwise, and what a caller gets when Redis
 * is down, when a replace's reply is lost, and when a stored record does not read back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFields, Logger } from '../../src/core/telemetry/logger.js';
import { MemoryPayoutStore } from '../../src/payouts/memory-store.js';
import type { PayoutRecord, PayoutState } from '../../src/payouts/record.js';
import type { PayoutCursor, PayoutListQuery, PayoutStore } from '../../src/payouts/store.js';
import { RedisPayoutStore, RedisStoreError, UnreadablePayoutRecordError } from '../../src/redis/index.js';
import { orderMember } from '../../src/redis/payout-order.js';
import { CREATE_PAYOUT, REPLACE_PAYOUT } from '../../src/redis/payout-scripts.js';
import { documentedAcl } from '../fleet/helpers/acl.js';
import { REDIS_SERVER, startRedisServer, type RedisServer } from '../fleet/helpers/redis-server.js';
import { startTcpProxy } from '../journal/helpers/tcp-proxy.js';
import { payoutRecord } from '../payouts/helpers/records.js';
import { describePayoutStoreContract } from '../payouts/helpers/store-contract.js';

const PASSWORD = 'payout-acl-password-5d1e';
/** A healthy Redis answering slowly on a loaded machine is not an outage. */
const PATIENT = { commandTimeoutMs: 120_000 } as const;

function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const push = (level: string) => (m: string, f?: LogFields) => lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
  return { logger: { debug: push('debug'), info: push('info'), warn: push('warn'), error: push('error') }, lines };
}

/** Every record over all pages, and every page's `next`. */
async function pages(store: PayoutStore, query: Omit<PayoutListQuery, 'after'>): Promise<{ refs: string[]; nexts: unknown[] }> {
  const refs: string[] = [];
  const nexts: unknown[] = [];
  let after: PayoutCursor | undefined;
  for (let i = 0; i < 500; i++) {
    const page = await store.list({ ...query, after });
    refs.push(...page.records.map((r) => r.reference));
    nexts.push(page.next);
    if (page.next === undefined) return { refs, nexts };
    after = page.next;
  }
  throw new Error('list never ended');
}

/** Calls of each command Redis has served so far (INFO commandstats; commands inside scripts count too). */
async function commandCalls(admin: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of String(await admin.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe.skipIf(REDIS_SERVER === undefined)('RedisPayoutStore (real redis-server)', () => {
  let server: RedisServer;
  let admin: Redis;
  const connections: Redis[] = [];
  const connect = (options: RedisOptions = {}): Redis => {
    const r = new Redis({ host: '127.0.0.1', port: server.port, maxRetriesPerRequest: 1, ...options });
    r.on('error', () => undefined);
    connections.push(r);
    return r;
  };
  const asFleetUser = (): Redis => connect({ username: 'merchant-stablecoin', password: PASSWORD });
  let n = 0;
  const nextPrefix = (): string => `merchant-stablecoin:payout-test${++n}`; // granted by the documented key pattern

  beforeAll(async () => {
    server = await startRedisServer();
    admin = connect();
    expect(await admin.call('ACL', 'SETUSER', 'merchant-stablecoin', ...documentedAcl(PASSWORD))).toBe('OK');
  });
  afterAll(async () => {
    for (const c of connections) c.disconnect();
    await server?.stop();
  });

  describePayoutStoreContract('RedisPayoutStore as the ACL user of docs/fleet.md', () => {
    const prefix = nextPrefix();
    return Promise.resolve({
      store: new RedisPayoutStore({ redis: asFleetUser(), prefix, ...PATIENT }),
      twin: new RedisPayoutStore({ redis: asFleetUser(), prefix, ...PATIENT }),
    });
  });

  it('keeps the JSON text the workflow wrote, under one hash tag, each record in the set of its state only, without TTL', async () => {
    const prefix = nextPrefix();
    const store = new RedisPayoutStore({ redis: asFleetUser(), prefix, ...PATIENT });
    const r1 = payoutRecord({ reference: 'ord-keys', state: 'debited', withdrawalId: 'wdr_1' });
    await store.create(r1);
    const r2: PayoutRecord = { ...r1, version: 2, state: 'paying', handOut: { at: 5, leaseUntil: 6, worker: 'w' } };
    expect(await store.replace(r2)).toBe(true);
    const base = `${prefix}:payouts:{all}`;
    expect((await admin.keys(`${prefix}:*`)).sort()).toEqual([`${base}:meta`, `${base}:records`, `${base}:state:paying`]);
    expect(await admin.hget(`${base}:records`, 'ord-keys')).toBe(JSON.stringify(r2));
    expect(await admin.zrange(`${base}:state:paying`, '0', '-1')).toHaveLength(1);
    for (const key of await admin.keys(`${prefix}:*`)) expect(await admin.pttl(key)).toBe(-1);
    expect(inspect(store)).toBe(`RedisPayoutStore { prefix: '${prefix}', degraded: false }`);
  });

  it('a replace that changes createdAt moves the record in the order: one entry, at its new place', async () => {
    const prefix = nextPrefix();
    const store = new RedisPayoutStore({ redis: asFleetUser(), prefix, ...PATIENT });
    const r1 = payoutRecord({ reference: 'm', createdAt: 10, state: 'debited' });
    await store.create(r1);
    await store.create(payoutRecord({ reference: 'n', createdAt: 20, state: 'debited' }));
    const r2: PayoutRecord = { ...r1, version: 2, createdAt: 30 };
    expect(await store.replace(r2)).toBe(true);
    expect((await pages(store, { limit: 1 })).refs).toEqual(['n', 'm']);
    expect(await admin.zcard(`${prefix}:payouts:{all}:state:debited`)).toBe(2);
    expect((await store.list({ limit: 5, createdFrom: 25 })).records).toEqual([r2]);
  });

  it('lists in the contract order (UTF-16 code units) where Redis alone would order by UTF-8 bytes, as the memory store does, over pages', async () => {
    // '\uFF61' < '😀' by code point (UTF-8 bytes), but '😀' (0xD83D 0xDE00) < '\uFF61' by UTF-16 code unit.
    expect(['x\uFF61', 'x😀'].sort()).toEqual(['x😀', 'x\uFF61']);
    const refs = ['x', 'xa', 'x\uFF61', 'x😀', 'xé', 'X', 'x!', 'x ', 'a', 'ab', '\uFFFF', '😀', '\uE000', '~', 'ord-10', 'ord-9'];
    const times = [-5, 0, 1.5, 100, 100, 1_765_000_000_000];
    const states: PayoutState[] = ['debited', 'paid', 'confirmed', 'needs_attention'];
    const redis = new RedisPayoutStore({ redis: asFleetUser(), prefix: nextPrefix(), ...PATIENT });
    const memory = new MemoryPayoutStore();
    for (const [i, reference] of refs.entries()) {
      const record = payoutRecord({ reference, createdAt: times[i % times.length]!, state: states[i % states.length]! });
      await redis.create(record);
      await memory.create(record);
    }
    // The pair Redis alone would order the other way, at one creation time.
    for (const reference of ['y\uFF61', 'y😀']) {
      await redis.create(payoutRecord({ reference, createdAt: 7, state: 'paid' }));
      await memory.create(payoutRecord({ reference, createdAt: 7, state: 'paid' }));
    }
    const queries: Array<Omit<PayoutListQuery, 'after'>> = [];
    for (const limit of [1, 2, 5, 100])
      for (const filter of [
        {},
        { states: ['debited', 'paid'] as PayoutState[] },
        { createdFrom: 0, createdBefore: 100 },
        { createdFrom: 100 },
      ])
        queries.push({ limit, ...filter });
    for (const query of queries) expect(await pages(redis, query), JSON.stringify(query)).toEqual(await pages(memory, query));
    const all = await pages(redis, { limit: 100 });
    expect(all.refs.indexOf('y😀')).toBe(all.refs.indexOf('y\uFF61') - 1);
    expect(all.refs).toHaveLength(refs.length + 2);
  });

  it('reads the time from Redis TIME, in ms', async () => {
    const store = new RedisPayoutStore({ redis: asFleetUser(), prefix: nextPrefix(), ...PATIENT });
    const ms = ([s, us]: [string, string]): number => Number(s) * 1000 + Math.floor(Number(us) / 1000);
    const before = ms((await admin.time()) as unknown as [string, string]);
    const now = await store.now();
    const after = ms((await admin.time()) as unknown as [string, string]);
    expect(Number.isInteger(now)).toBe(true);
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);
  });

  it('rejects a record it cannot index, and a query it cannot read, naming the argument, without sending anything', async () => {
    const prefix = nextPrefix();
    const store = new RedisPayoutStore({ redis: asFleetUser(), prefix, ...PATIENT });
    const bad: Array<[unknown, string]> = [
      [null, 'record'],
      [payoutRecord({ reference: 'ord', state: 'nope' as PayoutState }), 'state'],
      [payoutRecord({ reference: '' }), 'reference'],
      [payoutRecord({ reference: 7 as unknown as string }), 'reference'],
      [payoutRecord({ reference: 'lone-\uD800' }), 'reference'],
      [payoutRecord({ reference: 'ord', createdAt: Number.NaN }), 'createdAt'],
      [payoutRecord({ reference: 'ord', createdAt: '5' as unknown as number }), 'createdAt'],
      [payoutRecord({ reference: 'ord', version: Number.POSITIVE_INFINITY }), 'version'],
      [payoutRecord({ reference: 'ord', version: '2' as unknown as number }), 'version'],
    ];
    const before = await commandCalls(admin);
    for (const [record, argument] of bad) {
      const create = store.create(record as PayoutRecord); // rejects, never throws
      expect(await rejection(create)).toMatchObject({ name: 'InvalidArgumentError', argument });
      expect(await rejection(store.replace(record as PayoutRecord))).toMatchObject({ name: 'InvalidArgumentError', argument });
    }
    expect(await rejection(store.get(5 as unknown as string))).toMatchObject({ name: 'InvalidArgumentError', argument: 'reference' });
    const queries: Array<[unknown, string]> = [
      [null, 'query'],
      [{ limit: Number.NaN }, 'limit'],
      [{ limit: '5' }, 'limit'],
      [{ limit: 1, createdFrom: Number.POSITIVE_INFINITY }, 'createdFrom'],
      [{ limit: 1, createdBefore: '9' }, 'createdBefore'],
      [{ limit: 1, after: { createdAt: Number.NaN, reference: 'a' } }, 'after'],
      [{ limit: 1, after: { createdAt: 1, reference: 5 } }, 'after'],
      [{ limit: 1, after: null }, 'after'],
    ];
    for (const [query, argument] of queries)
      expect(await rejection(store.list(query as PayoutListQuery))).toMatchObject({ name: 'InvalidArgumentError', argument });
    // No state asked for: nothing to read, and Redis is not asked.
    expect(await store.list({ limit: 5, states: [] })).toEqual({ records: [], next: undefined });
    const after = await commandCalls(admin);
    for (const command of ['evalsha', 'eval', 'hget']) expect(after[command] ?? 0, command).toBe(before[command] ?? 0);
    expect(await admin.keys(`${prefix}:*`)).toEqual([]);
  });

  it('under a prefix the ACL user is not granted, rejects with NOPERM as a configuration mistake, having run nothing', async () => {
    const { logger, lines } = capture();
    const store = new RedisPayoutStore({ redis: asFleetUser(), prefix: 'other-app', logger, ...PATIENT });
    const err = await rejection(store.create(payoutRecord({ reference: 'ord-acl' })));
    expect(err).toBeInstanceOf(RedisStoreError);
    expect(err).toMatchObject({ kind: 'misconfigured', code: 'NOPERM', executed: false, key: 'other-app:payouts:{all}:records' });
    expect(lines.join('\n')).toContain('~other-app:*');
    expect(await admin.keys('other-app:*')).toEqual([]);
  });

  it('reports a stored record that is not JSON by its reference (never its content), and lists the others', async () => {
    const prefix = nextPrefix();
    const { logger, lines } = capture();
    const store = new RedisPayoutStore({ redis: asFleetUser(), prefix, logger, ...PATIENT });
    for (const [i, reference] of ['a', 'b', 'c'].entries())
      await store.create(payoutRecord({ reference, createdAt: 100 + i, state: 'debited' }));
    const records = `${prefix}:payouts:{all}:records`;
    const garbage = '{"toAddress":"SECRET-LOOKING-ADDRESS", not json';
    await admin.hset(records, 'b', garbage);
    const before = await admin.dump(`${prefix}:payouts:{all}:state:debited`);

    const read = await rejection(store.get('b'));
    expect(read).toBeInstanceOf(UnreadablePayoutRecordError);
    expect(read).toMatchObject({ reference: 'b', problem: 'it is not valid JSON' });
    expect(String((read as Error).message)).not.toContain('SECRET');
    expect(await rejection(store.create(payoutRecord({ reference: 'b' })))).toBeInstanceOf(UnreadablePayoutRecordError);
    const replaced = await rejection(store.replace(payoutRecord({ reference: 'b', version: 2, state: 'paying' })));
    expect(replaced).toMatchObject({ name: 'UnreadablePayoutRecordError', reference: 'b' });

    for (const limit of [1, 2, 10]) expect((await pages(store, { limit })).refs).toEqual(['a', 'c']);
    const warned = lines.filter((l) => l.startsWith('warn'));
    expect(warned.length).toBeGreaterThan(0);
    expect(warned[0]).toContain('"reference":"b"');
    expect(lines.join('\n')).not.toContain('SECRET');
    // JSON that is not a record of its reference: named, by what is wrong, never by content.
    const shapes: Array<[string, string]> = [
      ['[1]', 'it is JSON but not an object'],
      ['null', 'it is JSON but not an object'],
      ['"SECRET"', 'it is JSON but not an object'],
      [JSON.stringify(payoutRecord({ reference: 'other' })), 'its reference differs from the one it is stored under'],
      [JSON.stringify({ ...payoutRecord({ reference: 'c' }), version: '1' }), 'it has no numeric version or no known state'],
      [JSON.stringify({ ...payoutRecord({ reference: 'c' }), state: 'SECRET' }), 'it has no numeric version or no known state'],
    ];
    const c = (await store.get('c'))!;
    for (const [json, problem] of shapes) {
      await admin.hset(records, 'c', json);
      expect(await rejection(store.get('c'))).toMatchObject({ name: 'UnreadablePayoutRecordError', reference: 'c', problem });
      expect((await pages(store, { limit: 1 })).refs).toEqual(['a']);
    }
    await admin.hset(records, 'c', JSON.stringify(c));
    // A stored record whose version is not a number: replace stores nothing.
    await admin.hset(records, 'a', JSON.stringify({ ...(await store.get('a'))!, version: '1' }));
    expect(await rejection(store.replace(payoutRecord({ reference: 'a', version: 2, createdAt: 100, state: 'paying' })))).toMatchObject({
      name: 'UnreadablePayoutRecordError',
      reference: 'a',
      problem: 'it does not read as JSON with a numeric version',
    });
    expect((await store.list({ limit: 5, states: ['paying'] })).records).toEqual([]);
    await admin.hset(records, 'a', JSON.stringify(payoutRecord({ reference: 'a', createdAt: 100, state: 'debited' })));
    // An index entry that is not one of this store's, or without its record (hand edits), is left out the same way.
    await admin.zadd(`${prefix}:payouts:{all}:state:paid`, 0, 'garbage');
    expect((await pages(store, { limit: 10 })).refs).toEqual(['a', 'c']);
    expect(lines.some((l) => l.includes('not one of this store'))).toBe(true);
    await admin.zrem(`${prefix}:payouts:{all}:state:paid`, 'garbage');
    // An index entry without its record (a hand edit) is left out the same way.
    await admin.zadd(`${prefix}:payouts:{all}:state:paid`, 0, orderMember(101.5, 'ghost'));
    expect((await pages(store, { limit: 1 })).refs).toEqual(['a', 'c']);
    expect(lines.some((l) => l.includes('"reference":"ghost"') && l.includes('no record'))).toBe(true);
    // Left as it was, for a person: the record, and its place in the lists.
    expect(await admin.hget(records, 'b')).toBe(garbage);
    expect(await admin.dump(`${prefix}:payouts:{all}:state:debited`)).toEqual(before);
  });
});

describe.skipIf(REDIS_SERVER === undefined)('RedisPayoutStore when Redis fails (real redis-server)', () => {
  const connections: Redis[] = [];
  const connect = (port: number, options: RedisOptions = {}): Redis => {
    const r = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, ...options });
    r.on('error', () => undefined);
    connections.push(r);
    return r;
  };
  afterAll(() => {
    for (const c of connections) c.disconnect();
  });

  it('Redis down before a call: every method rejects with the typed error, executed false, and nothing is half-written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payout-store-aof-'));
    let server = await startRedisServer({ persistence: 'aof', dir });
    try {
      const redis = connect(server.port);
      const store = new RedisPayoutStore({ redis, prefix: 'down', commandTimeoutMs: 60_000, retryAfterMs: 1 });
      const r1 = payoutRecord({ reference: 'ord-down', state: 'debited' });
      await store.create(r1);
      await server.stop();
      const r2 = { ...r1, version: 2, state: 'paying' as const };
      for (const call of [
        store.replace(r2),
        store.create(payoutRecord({ reference: 'ord-new' })),
        store.get('ord-down'),
        store.list({ limit: 5 }),
        store.now(),
      ]) {
        const err = await rejection(call);
        expect(err).toBeInstanceOf(RedisStoreError);
        expect(err).toMatchObject({ kind: 'unreachable', executed: false });
        expect(String((err as Error).message)).not.toContain('TXYZ');
      }
      server = await startRedisServer({ persistence: 'aof', dir, port: server.port });
      expect(await store.get('ord-down')).toEqual(r1);
      expect(await store.get('ord-new')).toBeUndefined();
      expect((await store.list({ limit: 5, states: ['debited'] })).records).toEqual([r1]);
      expect((await store.list({ limit: 5, states: ['paying', 'debit_pending'] })).records).toEqual([]);
      expect(await store.replace(r2)).toBe(true);
    } finally {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('a replace whose reply is lost after the script ran (a proxy swallows the reply and drops the link)', () => {
    let server: RedisServer;
    let admin: Redis;
    beforeAll(async () => {
      server = await startRedisServer();
      admin = connect(server.port);
      // Loaded: the fault armed on a script's EVALSHA then meets the script itself, not a NOSCRIPT.
      for (const script of [CREATE_PAYOUT, REPLACE_PAYOUT]) expect(await admin.call('SCRIPT', 'LOAD', script.source)).toBe(script.sha);
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('resent by ioredis after reconnecting: answers true, and the record was written once', async () => {
      const proxy = await startTcpProxy(server.port);
      try {
        // maxRetriesPerRequest null: ioredis keeps the unanswered script and sends it again once reconnected.
        const store = new RedisPayoutStore({ redis: connect(proxy.port, { maxRetriesPerRequest: null }), prefix: 'lost1', ...PATIENT });
        const r1 = payoutRecord({ reference: 'ord-lost', state: 'debited' });
        await store.create(r1);
        const r2: PayoutRecord = { ...r1, version: 2, state: 'paying', handOut: { at: 1, leaseUntil: 2, worker: 'me' } };
        const before = await commandCalls(admin);
        const lost = proxy.faultOn(REPLACE_PAYOUT.sha, 'lose-reply');
        const answer = store.replace(r2);
        await lost;
        await proxy.heal();
        expect(await answer).toBe(true);
        const after = await commandCalls(admin);
        expect(after['evalsha']! - (before['evalsha'] ?? 0)).toBe(2); // ran twice
        expect(after['hset']! - (before['hset'] ?? 0)).toBe(2); // wrote once: the record and its meta
        expect(after['zadd']! - (before['zadd'] ?? 0)).toBe(1);
        const other = new RedisPayoutStore({ redis: connect(server.port), prefix: 'lost1', ...PATIENT });
        expect(await other.get('ord-lost')).toEqual(r2);
        expect(await other.replace({ ...r2, handOut: { at: 1, leaseUntil: 2, worker: 'other' } })).toBe(false);
        expect((await other.list({ limit: 5 })).records).toEqual([r2]);
      } finally {
        await proxy.close();
      }
    });

    it('a create resent by ioredis after its reply was lost: answers created (its own write), written once', async () => {
      const proxy = await startTcpProxy(server.port);
      try {
        const store = new RedisPayoutStore({ redis: connect(proxy.port, { maxRetriesPerRequest: null }), prefix: 'lost0', ...PATIENT });
        const record = payoutRecord({ reference: 'ord-new' });
        await store.now(); // connected
        const before = await commandCalls(admin);
        const lost = proxy.faultOn(CREATE_PAYOUT.sha, 'lose-reply');
        const answer = store.create(record);
        await lost;
        await proxy.heal();
        expect(await answer).toEqual({ created: true, record });
        const after = await commandCalls(admin);
        expect(after['evalsha']! - (before['evalsha'] ?? 0)).toBe(2);
        expect(after['hset']! - (before['hset'] ?? 0)).toBe(2);
        // Another create of the reference is told the record exists.
        expect(await store.create(payoutRecord({ reference: 'ord-new', amount: '99' }))).toEqual({ created: false, record });
      } finally {
        await proxy.close();
      }
    });

    it('not resent: rejects with the typed error (executed undefined: it may have landed), and a re-read shows it did, once', async () => {
      const proxy = await startTcpProxy(server.port);
      try {
        const redis = connect(proxy.port, { autoResendUnfulfilledCommands: false });
        const store = new RedisPayoutStore({ redis, prefix: 'lost2', ...PATIENT });
        const r1 = payoutRecord({ reference: 'ord-lost', state: 'debited' });
        await store.create(r1);
        const r2: PayoutRecord = { ...r1, version: 2, state: 'paying', handOut: { at: 1, leaseUntil: 2, worker: 'me' } };
        const before = await commandCalls(admin);
        const lost = proxy.faultOn(REPLACE_PAYOUT.sha, 'lose-reply');
        const err = await rejection(store.replace(r2));
        await lost;
        expect(err).toBeInstanceOf(RedisStoreError);
        expect(err).toMatchObject({ kind: 'unreachable', executed: undefined, command: 'EVALSHA' });
        const after = await commandCalls(admin);
        expect(after['evalsha']! - (before['evalsha'] ?? 0)).toBe(1);
        expect(after['hset']! - (before['hset'] ?? 0)).toBe(2);
        const reader = new RedisPayoutStore({ redis: connect(server.port), prefix: 'lost2', ...PATIENT });
        expect(await reader.get('ord-lost')).toEqual(r2);
        expect(await reader.replace({ ...r2, handOut: { at: 1, leaseUntil: 2, worker: 'other' } })).toBe(false);
      } finally {
        await proxy.close();
      }
    });

    it('answered after the caller stopped waiting (Redis stalled past commandTimeoutMs): rejects, then the one write shows', async () => {
      const redis = connect(server.port);
      const store = new RedisPayoutStore({ redis, prefix: 'stall', commandTimeoutMs: 300 });
      const reader = new RedisPayoutStore({ redis: connect(server.port), prefix: 'stall', ...PATIENT });
      const r1 = payoutRecord({ reference: 'ord-stall', state: 'debited' });
      await reader.create(r1);
      await redis.ping(); // connected and ready before the stall
      const r2: PayoutRecord = { ...r1, version: 2, state: 'paying' };
      server.signal('SIGSTOP');
      let err: unknown;
      try {
        err = await rejection(store.replace(r2));
      } finally {
        server.signal('SIGCONT');
      }
      expect(err).toMatchObject({ name: 'RedisStoreError', kind: 'unreachable', executed: undefined });
      await redis.ping(); // the same connection: answered after the script
      expect(await reader.get('ord-stall')).toEqual(r2);
      expect((await reader.list({ limit: 5, states: ['debited'] })).records).toEqual([]);
    });
  });
});

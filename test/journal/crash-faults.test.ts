/**
 * The intent journal's failure cases with real processes and a real redis-server: what
 * crash.test.ts does for clean kills, here for the store and the network failing at the worst
 * moment. Merchant processes (fixtures/journal-child.ts) connect as docs/fleet.md's least-privilege
 * user, through a loopback TCP proxy (helpers/tcp-proxy.ts) where Redis must fail under them; the
 * ledger service (in this test's process) counts executions per key.
 *
 * Every fault fires on an event, never after a delay: the bytes of the record or settle script's
 * EVALSHA arriving at the proxy, a request arriving at the ledger (which may then SIGKILL
 * redis-server or change the ACL user's rights), a child's IPC message, a process's exit,
 * redis-server's own "Ready to accept connections". Where a later recovery must claim an intent
 * again, the earlier recoverer ran with a 1 ms lease (`LEASE_MS`), or the test ends the lease by
 * hand (HDEL of the claim) rather than waiting for it.
 *
 * Every case checks the same three things: no key executes twice at the ledger (exactly once
 * where the order must exist); no intent that may have executed leaves Redis without a
 * definitive answer (read with the admin connection); and every order reaches someone: a
 * recovery report entry, an onIntent message, or the caller's same-key call the SDK told it to make.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyFor, MerchantClient } from '../../src/index.js';
import { RedisJournal } from '../../src/redis/index.js';
import { CLAIM_INTENTS, OPEN_AFTER, RECORD_INTENT, SETTLE_INTENT } from '../../src/redis/journal-scripts.js';
import { failure } from '../helpers/client.js';
import { API_KEY, apiError, CLIENT_ID, SIGNING_KEY, WITHDRAWAL, type Reply } from '../helpers/wire-server.js';
import { ACL_USER, documentedAcl } from '../fleet/helpers/acl.js';
import { REDIS_SERVER, startRedisServer, type Persistence, type RedisServer } from '../fleet/helpers/redis-server.js';
import { cleanupChildren, startChild, type Child, type ChildMessage } from './helpers/children.js';
import { startLedger, type Ledger } from './helpers/ledger.js';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.js';

/** The password of the documented ACL user the merchant processes connect as. */
const PASSWORD = 'crash-faults-acl-password-7c1d';
/** Each test's prefix: under the documented key pattern `~merchant-stablecoin:*`. */
const prefixOf = (n: number): string => `merchant-stablecoin:faults${n}`;
/** The member the fixture's calls act for. */
const MEMBER = 'ext-crash';

/** Hang guard only: the processes of a test take a few hundred ms each on a loaded 2-core machine. */
const LIMIT = 240_000;

/** An error as a child describes it (fixtures/journal-child.ts, `describe`). */
interface Described {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly status?: number;
  readonly executed?: 'no' | 'maybe';
  readonly idempotencyKey?: string;
  readonly call?: { readonly idempotencyKey?: string; readonly sent: string; readonly attempts: number; readonly status?: number };
  readonly cause?: Described;
}

/** One outcome of a recovery, as a child reports it. */
interface Entry {
  readonly key: string;
  readonly endpoint: string;
  readonly path: string;
  readonly outcome: string;
  readonly settled: boolean;
  readonly reclaimableAt?: number;
  readonly replayed?: boolean;
  readonly result?: { readonly id?: string };
  readonly error?: Described;
  readonly next?: string;
  readonly check?: string;
}

/** A recovering child's report. */
interface Report {
  readonly intents: Entry[];
  readonly unreadable?: Array<{ readonly unreadable: true; readonly key?: string; readonly scope: string; readonly problem: string }>;
  readonly leftForLater?: { readonly count: number; readonly keys: string[]; readonly eligibleAt: number };
  readonly rejected?: Described;
}

/** A call's end, as a child reports it. */
interface Ended {
  readonly type: 'done' | 'failed';
  readonly n: number;
  readonly key?: string;
  readonly id?: string;
  readonly replayed?: boolean;
  readonly error?: Described;
}

const as = <T>(message: ChildMessage): T => message as unknown as T;

function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The wire server's default token answer, given back after a test refused the exchange. */
const token = (): Reply => ({
  body: { auth_token: `tok_${Date.now()}`, expired_at: Math.floor(Date.now() / 1000) + 1800, token_type: 'Bearer', scopes: [] },
});

describe.skipIf(REDIS_SERVER === undefined)('crash-safe money movement, Redis and the network failing (real processes)', () => {
  let redisServer: RedisServer;
  let admin: Redis;
  let ledger: Ledger;
  let n = 0;
  const matrix: string[] = [];
  const children: Child[] = [];
  const proxies: TcpProxy[] = [];

  beforeAll(async () => {
    redisServer = await startRedisServer();
    admin = new Redis(redisServer.url, { maxRetriesPerRequest: 1 });
    expect(await admin.call('ACL', 'SETUSER', ACL_USER, ...documentedAcl(PASSWORD))).toBe('OK');
    ledger = await startLedger();
  }, LIMIT);
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => c.kill()));
    await Promise.all(proxies.splice(0).map((p) => p.close()));
    ledger.interpose('withdrawal', undefined);
    ledger.server.onToken(token);
  });
  afterAll(async () => {
    if (matrix.length > 0)
      console.info(
        `crash-fault matrix (case | fault | the caller saw | recovery | effects per key | open intents after):\n${matrix.join('\n')}`,
      );
    await admin?.quit();
    await ledger?.close();
    await redisServer?.stop();
    await cleanupChildren();
  });

  /** The documented user's URL for a server on `port`. */
  const fleetUrl = (port: number): string => `redis://${ACL_USER}:${PASSWORD}@127.0.0.1:${port}`;

  const env = (prefix: string, extra: Record<string, string>): Record<string, string> => ({
    BASE_URL: ledger.url,
    REDIS_URL: fleetUrl(redisServer.port),
    PREFIX: prefix,
    ...extra,
  });

  async function start(environment: Record<string, string>): Promise<Child> {
    const child = await startChild(environment);
    children.push(child);
    return child;
  }

  async function proxyTo(port: number): Promise<TcpProxy> {
    const proxy = await startTcpProxy(port);
    proxies.push(proxy);
    return proxy;
  }

  /** The journal's scripts, loaded: a fault armed on a script's EVALSHA then meets the script itself, not a NOSCRIPT. */
  async function loadScripts(redis: Redis): Promise<void> {
    for (const script of [RECORD_INTENT, SETTLE_INTENT, CLAIM_INTENTS, OPEN_AFTER])
      expect(await redis.call('SCRIPT', 'LOAD', script.source)).toBe(script.sha);
  }

  /** Every key the journal holds under `prefix`, open or claimed. */
  async function journalKeys(prefix: string, redis = admin): Promise<{ intents: string[]; open: string[]; claims: string[] }> {
    const [base] = (await redis.keys(`${prefix}:journal:*:intents`)).map((k) => k.slice(0, -':intents'.length));
    if (base === undefined) return { intents: [], open: [], claims: [] };
    return {
      intents: (await redis.hkeys(`${base}:intents`)).sort(),
      open: (await redis.zrange(`${base}:open`, '0', '-1')).sort(),
      claims: (await redis.hkeys(`${base}:claims`)).sort(),
    };
  }

  /** Expects these keys open in the journal (claimed or not), and no other. */
  async function expectOpen(prefix: string, keys: string[], redis = admin): Promise<void> {
    const held = await journalKeys(prefix, redis);
    expect(held.intents).toEqual([...keys].sort());
    expect(held.open).toEqual([...keys].sort());
  }

  async function expectNothingOpen(prefix: string, redis = admin): Promise<void> {
    expect(await journalKeys(prefix, redis)).toEqual({ intents: [], open: [], claims: [] });
  }

  /** The order id the ledger gave `key` at its execution. */
  const orderOf = (key: string): string => String((ledger.answer(key)?.body as { id?: unknown } | undefined)?.id);

  /** A withdrawal in a child killed at `point`: `executed` (the service executed it, its answer held) or a PAUSE_AT point. */
  async function crash(prefix: string, point: string, extra: Record<string, string> = {}): Promise<string> {
    let key: string;
    let child: Child;
    if (point === 'executed') {
      const executed = ledger.holdAnswer('withdrawal');
      child = await start(env(prefix, { ROLE: 'call', OPERATION: 'withdrawal', ...extra }));
      key = await executed;
    } else {
      child = await start(env(prefix, { ROLE: 'call', OPERATION: 'withdrawal', PAUSE_AT: point, ...extra }));
      key = String((await child.next('paused'))['key']);
    }
    await child.kill();
    expect(child.process.signalCode).toBe('SIGKILL');
    return key;
  }

  /** A recovering child run to its end: its report, and the child (for its other messages). */
  async function recoverIn(prefix: string, extra: Record<string, string> = {}): Promise<{ report: Report; child: Child }> {
    const child = await start(env(prefix, { ROLE: 'recover', ...extra }));
    const report = as<Report>(await child.next('report'));
    expect(await child.exited).toBe(0);
    return { report, child };
  }

  async function recover(prefix: string, extra: Record<string, string> = {}): Promise<Report> {
    return (await recoverIn(prefix, extra)).report;
  }

  /** The documented recipe after a restart: each order again with `idempotencyKeyFor('payout', reference)`. */
  async function sameOrders(prefix: string, references: string[], extra: Record<string, string> = {}): Promise<Ended[]> {
    const child = await start(env(prefix, { ROLE: 'keyfor', NAMESPACE: 'payout', REFERENCE: references.join(','), ...extra }));
    expect(await child.exited).toBe(0);
    const ended = [...child.messages('done'), ...child.messages('failed')].map((m) => as<Ended>(m)).sort((a, b) => a.n - b.n);
    expect(ended.map((e) => e.type)).toEqual(references.map(() => 'done'));
    return ended;
  }

  /**
   * Open intents whose connection was reset before the service executed them (recorded, sent,
   * never executed), made in this process as the documented user: the keys given, or new ones.
   */
  async function openIntents(port: number, prefix: string, count: number, keys: string[] = []): Promise<string[]> {
    const fleetUser = new Redis(fleetUrl(port), { maxRetriesPerRequest: 1 });
    const journal = new RedisJournal({ redis: fleetUser, prefix, commandTimeoutMs: 120_000 });
    const client = new MerchantClient({
      baseUrl: ledger.url,
      clientId: CLIENT_ID,
      apiKey: API_KEY,
      signingKey: SIGNING_KEY,
      journal,
      maxRetries: 0,
      logLevel: 'off',
    });
    ledger.interpose('withdrawal', () => ({ reset: true }));
    const made: string[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const options = keys[i] === undefined ? undefined : { idempotencyKey: keys[i]! };
        const err = (await failure(client.member(MEMBER).withdrawals.create(WITHDRAWAL, options))) as { idempotencyKey: string };
        made.push(String(err.idempotencyKey));
      }
    } finally {
      ledger.interpose('withdrawal', undefined);
      await client.close();
      await fleetUser.quit();
    }
    for (const key of made) expect(ledger.effects(key)).toBe(0);
    return made;
  }

  it(
    "record's reply lost: OutcomeUnknownError (sent maybe, never 'not sent'); the same key once Redis is back gives one effect, and recover() no second",
    async () => {
      const prefix = prefixOf(++n);
      const proxy = await proxyTo(redisServer.port);
      await loadScripts(admin);
      // Redis executes the record; its reply is lost and the link stays down (refused) until healed.
      const lost = proxy.faultOn(RECORD_INTENT.sha, 'lose-reply');
      // A second call right after, with a key of its own: the journal now skips Redis (considered
      // down for 10 minutes), so that record certainly stored nothing.
      const child = await start(
        env(prefix, {
          ROLE: 'call',
          OPERATION: 'withdrawal',
          CALLS: '2',
          REDIS_RETRY_AFTER_MS: '600000',
          LOG: 'ipc',
          REDIS_URL: fleetUrl(proxy.port),
        }),
      );
      expect(await child.exited).toBe(0);
      await lost;
      const [first, second] = child.messages('failed').map((m) => as<Ended>(m).error!);
      expect(first).toMatchObject({
        name: 'OutcomeUnknownError',
        call: { sent: 'maybe', attempts: 0 },
        cause: { name: 'CallInterruptedError', cause: { name: 'RedisStoreError', executed: 'maybe' } },
      });
      const key = first!.idempotencyKey!;
      expect(first!.call!.idempotencyKey).toBe(key);
      expect(first!.message).toMatch(/call again with the same idempotencyKey/);
      expect(second).toMatchObject({
        name: 'CallInterruptedError',
        call: { sent: 'no', attempts: 0 },
        cause: { name: 'RedisStoreError', executed: 'no' },
      });
      const otherKey = second!.call!.idempotencyKey!;
      expect(otherKey).not.toBe(key);
      expect(child.messages('log').map((m) => String(m['message']))).toContainEqual(
        expect.stringMatching(/may have been written all the same/),
      );
      // The record landed (only its reply was lost): the intent is open. The refused one is not there.
      await expectOpen(prefix, [key]);
      expect(ledger.received(key)).toHaveLength(0);
      expect(ledger.received(otherKey)).toHaveLength(0);

      // The advice: once Redis is back, the same call with the same key.
      await proxy.heal();
      const again = await start(
        env(prefix, { ROLE: 'call', OPERATION: 'withdrawal', IDEMPOTENCY_KEY: key, REDIS_URL: fleetUrl(proxy.port) }),
      );
      const done = as<Ended>(await again.next('done'));
      expect(await again.exited).toBe(0);
      expect(done).toMatchObject({ key, replayed: false, id: orderOf(key) });
      expect(ledger.effects(key)).toBe(1);
      await expectNothingOpen(prefix);

      const report = await recover(prefix);
      expect(report.intents).toEqual([]);
      expect(ledger.effects(key)).toBe(1);
      expect(ledger.effects(otherKey)).toBe(0);
      matrix.push(
        `record reply lost | EVALSHA record ran, reply dropped, Redis refused | OutcomeUnknownError (maybe); 2nd call CallInterruptedError (no) | same key: ${done.id} executed once; recover(): nothing | 1 (other key 0) | 0`,
      );
    },
    LIMIT,
  );

  it(
    'record refused by Redis (NOPERM): CallInterruptedError sent no, nothing stored, nothing sent',
    async () => {
      const prefix = prefixOf(++n);
      // An operator's ACL mistake: Redis answers the record with an error, so it certainly stored nothing.
      expect(await admin.call('ACL', 'SETUSER', ACL_USER, '-hsetnx')).toBe('OK');
      let ended: Ended;
      try {
        const child = await start(env(prefix, { ROLE: 'call', OPERATION: 'withdrawal', LOG: 'ipc' }));
        ended = as<Ended>(await child.next('failed'));
        expect(await child.exited).toBe(0);
      } finally {
        expect(await admin.call('ACL', 'SETUSER', ACL_USER, '+hsetnx')).toBe('OK');
      }
      expect(ended.error).toMatchObject({
        name: 'CallInterruptedError',
        call: { sent: 'no', attempts: 0 },
        cause: { name: 'RedisStoreError', code: 'NOPERM', executed: 'no' },
      });
      const key = ended.error!.call!.idempotencyKey!;
      await expectNothingOpen(prefix);
      expect(ledger.received(key)).toHaveLength(0);
      matrix.push(`record refused | Redis answered the record NOPERM | CallInterruptedError (no) | nothing to recover | 0 | 0`);
    },
    LIMIT,
  );

  const SETTLE_LOST = [
    {
      answer: '403 merchant_disabled',
      interpose: (): Reply | undefined => apiError(403, 'merchant_disabled'),
      // Given before the service read the key: nothing executed, and a resend may execute it.
      keptUnderKey: false,
    },
    {
      answer: '400 insufficient_balance',
      interpose: (): Reply | undefined => apiError(400, 'insufficient_balance'),
      // The service keeps it under the key: a resend gets it again (the ledger answers it to every send).
      keptUnderKey: true,
    },
    { answer: '201', interpose: undefined, keptUnderKey: false },
  ] as const;

  for (const c of SETTLE_LOST) {
    it(
      `settle lost after a ${c.answer}: the caller is never told "did not run" while the intent may still be resent; recovery finishes it once`,
      async () => {
        const prefix = prefixOf(++n);
        const proxy = await proxyTo(redisServer.port);
        await loadScripts(admin);
        // The settle's EVALSHA never reaches Redis, and the link goes down with it.
        const cut = proxy.faultOn(SETTLE_INTENT.sha, 'drop');
        if (c.interpose !== undefined) ledger.interpose('withdrawal', c.interpose);
        const child = await start(env(prefix, { ROLE: 'call', OPERATION: 'withdrawal', LOG: 'ipc', REDIS_URL: fleetUrl(proxy.port) }));
        expect(await child.exited).toBe(0);
        await cut;
        const [ended] = [...child.messages('done'), ...child.messages('failed')].map((m) => as<Ended>(m));
        const logs = child.messages('log').map((m) => String(m['message']));
        let key: string;
        let saw: string;
        if (c.answer === '403 merchant_disabled') {
          expect(ended!.type).toBe('failed');
          expect(ended!.error).toMatchObject({
            name: 'OutcomeUnknownError',
            call: { sent: 'maybe', attempts: 1, status: 403 },
            cause: { name: 'ApiError', code: 'merchant_disabled', status: 403 },
          });
          key = ended!.error!.idempotencyKey!;
          expect(ended!.error!.call!.idempotencyKey).toBe(key);
          expect(logs).toContainEqual(expect.stringMatching(/the call did not run, but its intent could not be settled/));
          saw = 'OutcomeUnknownError (maybe)';
        } else if (c.answer === '400 insufficient_balance') {
          expect(ended!.type).toBe('failed');
          expect(ended!.error).toMatchObject({ name: 'ApiError', code: 'insufficient_balance', status: 400, call: { sent: 'yes' } });
          key = ended!.error!.call!.idempotencyKey!;
          expect(logs).toContainEqual(expect.stringMatching(/it keeps the answer under the key/));
          saw = 'ApiError insufficient_balance';
        } else {
          expect(ended).toMatchObject({ type: 'done', replayed: false });
          key = ended!.key!;
          expect(ended!.id).toBe(orderOf(key));
          expect(logs).toContainEqual(expect.stringMatching(/the call succeeded but its intent could not be settled/));
          saw = `the order ${ended!.id}`;
        }
        const executedLive = c.answer === '201' ? 1 : 0;
        expect(ledger.effects(key)).toBe(executedLive);
        await expectOpen(prefix, [key]);

        if (!c.keptUnderKey) ledger.interpose('withdrawal', undefined);
        const report = await recover(prefix);
        expect(report.intents).toHaveLength(1);
        const [entry] = report.intents;
        if (c.keptUnderKey) {
          expect(entry).toMatchObject({
            key,
            outcome: 'failed',
            settled: true,
            error: { name: 'ApiError', code: 'insufficient_balance' },
          });
          expect(ledger.effects(key)).toBe(0);
        } else {
          expect(entry).toMatchObject({ key, outcome: 'resent', settled: true, replayed: executedLive === 1 });
          expect(entry!.result!.id).toBe(orderOf(key));
          if (executedLive === 1) expect(entry!.result!.id).toBe(ended!.id);
          expect(ledger.effects(key)).toBe(1);
        }
        await expectNothingOpen(prefix);
        matrix.push(
          `settle lost | ${c.answer} live, settle EVALSHA dropped, Redis refused | ${saw} | ${entry!.outcome}${entry!.replayed === true ? ' (replayed)' : ''} ${entry!.result?.id ?? entry!.error?.code} settled | ${ledger.effects(key)} | 0`,
        );
      },
      LIMIT,
    );
  }

  it(
    'API down during recovery: failed, left open in Redis; a later recover() with the API up gets the replay',
    async () => {
      const prefix = prefixOf(++n);
      // The API behind a proxy: down and up again at the same address, so the journal scope holds.
      const api = await proxyTo(Number(new URL(ledger.url).port));
      const base = `http://127.0.0.1:${api.port}`;
      const key = await crash(prefix, 'executed', { BASE_URL: base });
      expect(ledger.effects(key)).toBe(1);
      await api.cut();

      const down = await recover(prefix, { BASE_URL: base, LEASE_MS: '1' });
      expect(down.intents).toHaveLength(1);
      const [failed] = down.intents;
      expect(failed).toMatchObject({ key, outcome: 'failed', settled: false, error: { call: { sent: 'no' } } });
      expect(failed!.reclaimableAt).toEqual(expect.any(Number));
      expect(failed!.next).toMatch(/^left open/);
      expect(ledger.received(key)).toHaveLength(1);
      await expectOpen(prefix, [key]);

      await api.heal();
      const up = await recover(prefix, { BASE_URL: base });
      expect(up.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: true, replayed: true })]);
      expect(up.intents[0]!.result!.id).toBe(orderOf(key));
      expect(ledger.effects(key)).toBe(1);
      await expectNothingOpen(prefix);
      matrix.push(
        `API down in recovery | executed before the kill; API refusing | (process died) | failed ${failed!.error!.name} open -> resent (replayed) ${orderOf(key)} | 1 | 0`,
      );
    },
    LIMIT,
  );

  const BEFORE_KEY: ReadonlyArray<{ answer: string; code: string; status: number; reply?: Reply; onToken?: true }> = [
    { answer: '403 merchant_disabled', code: 'merchant_disabled', status: 403, reply: apiError(403, 'merchant_disabled') },
    { answer: '404 member_not_found', code: 'member_not_found', status: 404, reply: apiError(404, 'member_not_found') },
    {
      answer: '429 rate_limited',
      code: 'rate_limited',
      status: 429,
      reply: { ...apiError(429, 'rate_limited'), headers: { 'retry-after': '0' } },
    },
    { answer: '401 invalid_credentials on the token exchange', code: 'invalid_credentials', status: 401, onToken: true },
    {
      answer: '409 idempotency_in_progress',
      code: 'idempotency_in_progress',
      status: 409,
      reply: apiError(409, 'idempotency_in_progress'),
    },
    { answer: '500 api_error', code: 'api_error', status: 500, reply: apiError(500, 'api_error') },
  ];

  for (const c of BEFORE_KEY) {
    it(
      `a resend answered ${c.answer}: the intent stays open (the dead process's attempt executed); a later recovery replays`,
      async () => {
        const prefix = prefixOf(++n);
        const key = await crash(prefix, 'executed');
        expect(ledger.effects(key)).toBe(1);
        if (c.onToken === true) ledger.server.onToken(apiError(401, 'invalid_credentials'));
        else ledger.interpose('withdrawal', () => c.reply);

        const first = await recover(prefix, { LEASE_MS: '1' });
        expect(first.intents).toHaveLength(1);
        const [failed] = first.intents;
        expect(failed).toMatchObject({ key, outcome: 'failed', settled: false, error: { code: c.code, status: c.status } });
        expect(failed!.reclaimableAt).toEqual(expect.any(Number));
        expect(failed!.next).toMatch(/^left open/);
        // Refused at the token exchange, the resend never left; otherwise it reached the service.
        if (c.onToken === true) expect(ledger.received(key)).toHaveLength(1);
        else expect(ledger.received(key).length).toBeGreaterThan(1);
        expect(ledger.effects(key)).toBe(1);
        await expectOpen(prefix, [key]);

        ledger.interpose('withdrawal', undefined);
        ledger.server.onToken(token);
        const second = await recover(prefix);
        expect(second.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: true, replayed: true })]);
        expect(second.intents[0]!.result!.id).toBe(orderOf(key));
        expect(ledger.effects(key)).toBe(1);
        await expectNothingOpen(prefix);
        matrix.push(
          `before-key answer | resend answered ${c.answer} | (process died) | failed open -> resent (replayed) ${orderOf(key)} | 1 | 0`,
        );
      },
      LIMIT,
    );
  }

  it(
    'a recovery aborted by its signal while the resend is in flight: failed, left open; a later recovery replays',
    async () => {
      const prefix = prefixOf(++n);
      const key = await crash(prefix, 'executed');
      const arrived = deferred();
      const release = deferred();
      ledger.interpose('withdrawal', async () => {
        arrived.resolve();
        await release.promise;
        return undefined;
      });
      const child = await start(env(prefix, { ROLE: 'recover', SIGNAL: '1', LEASE_MS: '1' }));
      await arrived.promise;
      child.send({ type: 'abort' });
      const aborted = as<Report>(await child.next('report'));
      release.resolve();
      expect(await child.exited).toBe(0);
      expect(aborted.intents).toHaveLength(1);
      expect(aborted.intents[0]).toMatchObject({ key, outcome: 'failed', settled: false, error: { name: 'AbortError' } });
      await expectOpen(prefix, [key]);

      ledger.interpose('withdrawal', undefined);
      const again = await recover(prefix);
      expect(again.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: true, replayed: true })]);
      expect(again.intents[0]!.result!.id).toBe(orderOf(key));
      expect(ledger.effects(key)).toBe(1);
      await expectNothingOpen(prefix);
      matrix.push(
        `abort | recover({ signal }) aborted mid-resend | (process died) | failed AbortError open -> resent (replayed) ${orderOf(key)} | 1 | 0`,
      );
    },
    LIMIT,
  );

  const STORE_WRITES = [
    { point: 'before-record', label: 'before the record', recorded: false, executed: false },
    { point: 'record', label: 'after the record reached Redis', recorded: true, executed: false },
    { point: 'settle', label: 'after the answer, before the settle', recorded: true, executed: true },
    { point: 'after-settle', label: 'after the settle reached Redis, before the caller had the order', recorded: false, executed: true },
  ] as const;

  for (const w of STORE_WRITES) {
    it(
      `killed ${w.label}: recover() and the same order again (idempotencyKeyFor) give one effect and the same order`,
      async () => {
        const prefix = prefixOf(++n);
        const reference = `ord_${n}`;
        const child = await start(env(prefix, { ROLE: 'keyfor', NAMESPACE: 'payout', REFERENCE: reference, PAUSE_AT: w.point }));
        const key = String((await child.next('paused'))['key']);
        await child.kill();
        expect(key).toBe(idempotencyKeyFor('payout', reference));
        expect(ledger.effects(key)).toBe(w.executed ? 1 : 0);
        if (w.recorded) await expectOpen(prefix, [key]);
        else await expectNothingOpen(prefix);

        const report = await recover(prefix);
        if (w.recorded) {
          expect(report.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: true, replayed: w.executed })]);
          expect(report.intents[0]!.result!.id).toBe(orderOf(key));
        } else {
          expect(report.intents).toEqual([]);
        }
        // The documented recipe: the same order, the same key, after a restart.
        const [order] = await sameOrders(prefix, [reference]);
        expect(order).toMatchObject({ key, replayed: w.recorded || w.executed, id: orderOf(key) });
        expect(ledger.effects(key)).toBe(1);
        await expectNothingOpen(prefix);
        matrix.push(
          `store write | killed ${w.label} | (process died) | ${report.intents.length === 0 ? 'nothing' : `resent${w.executed ? ' (replayed)' : ''} ${report.intents[0]!.result!.id}`}; same key: ${order!.id}${order!.replayed === true ? ' (replayed)' : ''} | 1 | 0`,
        );
      },
      LIMIT,
    );
  }

  const IN_RECOVERY = [
    { label: 'killed after its resend executed, before the answer', env: { ON_INTENT: 'send' }, handsOver: false },
    { label: 'killed inside onIntent', env: { ON_INTENT: 'pause' }, handsOver: true },
    { label: 'killed after onIntent, before the settle', env: { ON_INTENT: 'send', PAUSE_AT: 'settle' }, handsOver: true },
    { label: 'whose onIntent throws (the merchant database down)', env: { ON_INTENT: 'throw' }, handsOver: true },
  ] as const;

  for (const r of IN_RECOVERY) {
    it(
      `a recovering process ${r.label}: a second recoverer hands the same order over (replayed), one effect`,
      async () => {
        const prefix = prefixOf(++n);
        const key = await crash(prefix, 'record');
        expect(ledger.effects(key)).toBe(0);
        // The lease ends at once: the dead recoverer's claim must not hold the intent for minutes.
        const firstEnv = env(prefix, { ROLE: 'recover', LEASE_MS: '1', ...r.env });
        let first: Child;
        if (r.label === 'killed after its resend executed, before the answer') {
          const executed = ledger.holdAnswer('withdrawal');
          first = await start(firstEnv);
          expect(await executed).toBe(key);
          await first.kill();
        } else if (r.label === 'killed inside onIntent') {
          first = await start(firstEnv);
          await first.next('intent');
          await first.kill();
        } else if (r.label === 'killed after onIntent, before the settle') {
          first = await start(firstEnv);
          expect((await first.next('paused'))['key']).toBe(key);
          await first.kill();
        } else {
          first = await start(firstEnv);
          const report = as<Report>(await first.next('report'));
          expect(await first.exited).toBe(0);
          expect(report.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: false, replayed: false })]);
          expect(report.intents[0]!.reclaimableAt).toEqual(expect.any(Number));
        }
        const handed = first.messages('intent').map((m) => as<Entry>(m));
        if (r.handsOver) {
          expect(handed).toHaveLength(1);
          expect(handed[0]).toMatchObject({ key, outcome: 'resent', replayed: false, result: { id: orderOf(key) } });
        } else {
          expect(handed).toEqual([]);
        }
        expect(ledger.effects(key)).toBe(1);
        await expectOpen(prefix, [key]);

        const second = await start(env(prefix, { ROLE: 'recover', ON_INTENT: 'send' }));
        const report = as<Report>(await second.next('report'));
        expect(await second.exited).toBe(0);
        const again = second.messages('intent').map((m) => as<Entry>(m));
        expect(again).toEqual([expect.objectContaining({ key, outcome: 'resent', replayed: true, settled: true })]);
        expect(again[0]!.result!.id).toBe(orderOf(key));
        expect(report.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: true, replayed: true })]);
        expect(ledger.effects(key)).toBe(1);
        await expectNothingOpen(prefix);
        matrix.push(
          `in recover() | ${r.label} | onIntent got ${handed.length === 0 ? 'nothing' : handed[0]!.result!.id} | 2nd recoverer: resent (replayed) ${again[0]!.result!.id} | 1 | 0`,
        );
      },
      LIMIT,
    );
  }

  for (const persistence of ['aof', 'none'] as const satisfies readonly Persistence[]) {
    it(
      `redis-server SIGKILLed mid-recovery (persistence ${persistence}): RecoveryInterruptedError names what was resent; after the restart every order is obtained once`,
      async () => {
        const prefix = prefixOf(++n);
        const dir = mkdtempSync(join(tmpdir(), 'merchant-stablecoin-faults-'));
        let server = await startRedisServer({ persistence, dir });
        let own = new Redis(server.url, { maxRetriesPerRequest: 1 });
        try {
          expect(await own.call('ACL', 'SETUSER', ACL_USER, ...documentedAcl(PASSWORD))).toBe('OK');
          const references = [1, 2, 3].map((i) => `ord_${n}_${i}`);
          const keys = await openIntents(
            server.port,
            prefix,
            3,
            references.map((r) => idempotencyKeyFor('payout', r)),
          );
          await expectOpen(prefix, keys, own);
          own.disconnect();
          // Redis dies when the first resend reaches the service; the service executes it and answers.
          let resent: string | undefined;
          ledger.interpose('withdrawal', async (req) => {
            if (resent === undefined) {
              resent = req.headers['x-idempotency-key'];
              server.signal('SIGKILL');
              await server.exited;
            }
            return undefined;
          });
          const { report, child } = await recoverIn(prefix, { REDIS_URL: fleetUrl(server.port), LEASE_MS: '1', LOG: 'ipc' });
          ledger.interpose('withdrawal', undefined);
          expect(keys).toContain(resent);
          const first = resent!;
          expect(report.rejected).toMatchObject({ name: 'RecoveryInterruptedError', cause: { name: 'RedisStoreError' } });
          expect(report.intents).toEqual([expect.objectContaining({ key: first, outcome: 'resent', settled: false, replayed: false })]);
          expect(report.intents[0]!.result!.id).toBe(orderOf(first));
          // The same outcomes at warn: the order survives a lost report.
          const line = child.messages('log').find((m) => String(m['message']).startsWith('recovery: interrupted'));
          expect((line?.['fields'] as Record<string, unknown> | undefined)?.['handled']).toBe(`${first} resent ${orderOf(first)} (open)`);
          for (const key of keys) expect(ledger.effects(key)).toBe(key === first ? 1 : 0);

          server = await startRedisServer({ port: server.port, persistence, dir });
          own = new Redis(server.url, { maxRetriesPerRequest: 1 });
          // ACL users live in the configuration, not in the AOF.
          expect(await own.call('ACL', 'SETUSER', ACL_USER, ...documentedAcl(PASSWORD))).toBe('OK');
          let how: string;
          if (persistence === 'aof') {
            // Nothing acknowledged was lost: the three intents, the resent one included, are open.
            await expectOpen(prefix, keys, own);
            const after = await recover(prefix, { REDIS_URL: fleetUrl(server.port) });
            expect([...after.intents.map((e) => e.key)].sort()).toEqual([...keys].sort());
            for (const entry of after.intents) {
              expect(entry).toMatchObject({ outcome: 'resent', settled: true, replayed: entry.key === first });
              expect(entry.result!.id).toBe(orderOf(entry.key));
            }
            how = `next recover(): ${after.intents.map((e) => `${e.result!.id}${e.replayed === true ? ' (replayed)' : ''}`).join(', ')}`;
          } else {
            // The intents are gone with Redis' memory: the orders come back by the same-key recipe.
            await expectNothingOpen(prefix, own);
            const after = await recover(prefix, { REDIS_URL: fleetUrl(server.port) });
            expect(after.intents).toEqual([]);
            const orders = await sameOrders(prefix, references, { REDIS_URL: fleetUrl(server.port) });
            expect(orders.map((o) => o.key)).toEqual(keys);
            for (const order of orders) expect(order).toMatchObject({ replayed: order.key === first, id: orderOf(order.key!) });
            how = `nothing left to recover; same keys: ${orders.map((o) => `${o.id}${o.replayed === true ? ' (replayed)' : ''}`).join(', ')}`;
          }
          for (const key of keys) expect(ledger.effects(key)).toBe(1);
          await expectNothingOpen(prefix, own);
          matrix.push(
            `Redis killed mid-recovery (${persistence}) | SIGKILL at the 1st resend | RecoveryInterruptedError: ${report.intents[0]!.result!.id} resent (open) | ${how} | 1 each | 0`,
          );
        } finally {
          own.disconnect();
          await server.stop();
          rmSync(dir, { recursive: true, force: true });
        }
      },
      LIMIT,
    );
  }

  it(
    'a settle refused during recovery (NOPERM): that intent stays open (settled false) and the recovery goes on with the rest',
    async () => {
      const prefix = prefixOf(++n);
      const keys = await openIntents(redisServer.port, prefix, 3);
      // An ACL mistake while the first resend is in flight: its settle (ZREM first) is refused;
      // the mistake is fixed when the second resend arrives. Claims (no ZREM) go on meanwhile.
      let resends = 0;
      ledger.interpose('withdrawal', async () => {
        resends += 1;
        if (resends === 1) expect(await admin.call('ACL', 'SETUSER', ACL_USER, '-zrem')).toBe('OK');
        if (resends === 2) expect(await admin.call('ACL', 'SETUSER', ACL_USER, '+zrem')).toBe('OK');
        return undefined;
      });
      let run: { report: Report; child: Child };
      try {
        run = await recoverIn(prefix, { LOG: 'ipc' });
      } finally {
        ledger.interpose('withdrawal', undefined);
        expect(await admin.call('ACL', 'SETUSER', ACL_USER, '+zrem')).toBe('OK');
      }
      const { report, child } = run;
      expect(report.rejected).toBeUndefined();
      expect(report.intents.map((e) => e.key).sort()).toEqual([...keys].sort());
      const [open, ...rest] = report.intents;
      expect(open).toMatchObject({ outcome: 'resent', settled: false, replayed: false, result: { id: orderOf(open!.key) } });
      expect(open!.reclaimableAt).toEqual(expect.any(Number));
      for (const entry of rest) expect(entry).toMatchObject({ outcome: 'resent', settled: true, replayed: false });
      expect(child.messages('log').map((m) => String(m['message']))).toContainEqual(
        expect.stringMatching(/recovery: the intent could not be settled/),
      );
      for (const key of keys) expect(ledger.effects(key)).toBe(1);
      await expectOpen(prefix, [open!.key]);

      // Its lease ended (the admin ends it now rather than the test waiting leaseMs): the next recovery replays it.
      const [base] = (await admin.keys(`${prefix}:journal:*:intents`)).map((k) => k.slice(0, -':intents'.length));
      expect(await admin.hdel(`${base!}:claims`, open!.key)).toBe(1);
      const again = await recover(prefix);
      expect(again.intents).toEqual([expect.objectContaining({ key: open!.key, outcome: 'resent', settled: true, replayed: true })]);
      expect(again.intents[0]!.result!.id).toBe(open!.result!.id);
      for (const key of keys) expect(ledger.effects(key)).toBe(1);
      await expectNothingOpen(prefix);
      matrix.push(
        `settle refused in recovery | NOPERM on the 1st settle, fixed at the 2nd resend | - | ${open!.result!.id} resent (open), 2 more settled; next recover(): ${open!.result!.id} (replayed) | 1 each | 0`,
      );
    },
    LIMIT,
  );

  it(
    'corrupt and mismatched records older than three real intents: one recover() handles all three, reports the unreadable and skips the mismatched unsent',
    async () => {
      const prefix = prefixOf(++n);
      const keys = await openIntents(redisServer.port, prefix, 3);
      const [base] = (await admin.keys(`${prefix}:journal:*:intents`)).map((k) => k.slice(0, -':intents'.length));
      const real = JSON.parse((await admin.hget(`${base!}:intents`, keys[0]!))!) as Record<string, unknown>;
      const oldest = Math.min(...(await admin.zrange(`${base!}:open`, '0', '-1', 'WITHSCORES')).filter((_, i) => i % 2 === 1).map(Number));
      const bad = {
        garbage: 'c0ffee00-0000-4000-8000-000000000001',
        newer: 'c0ffee00-0000-4000-8000-000000000002',
        moved: 'c0ffee00-0000-4000-8000-000000000003',
        mismatched: 'c0ffee00-0000-4000-8000-000000000004',
      };
      const records: Record<string, string> = {
        [bad.garbage]: '\u0000not json {',
        // A newer SDK version's format: another shape.
        [bad.newer]: JSON.stringify({ version: 2, key: bad.newer, scope: real['scope'], intent: { ...real, key: bad.newer } }),
        // Stored under one key, naming another.
        [bad.moved]: JSON.stringify({ ...real, key: 'c0ffee00-0000-4000-8000-0000000000ff' }),
        // Readable, but its path is another operation than its endpoint's.
        [bad.mismatched]: JSON.stringify({ ...real, key: bad.mismatched, path: '/v1/withdrawals/wdr_1/fail' }),
      };
      let age = 60_000;
      for (const [key, value] of Object.entries(records)) {
        await admin.hset(`${base!}:intents`, key, value);
        await admin.zadd(`${base!}:open`, String(oldest - (age += 1000)), key);
      }

      const report = await recover(prefix);
      const resent = report.intents.filter((e) => e.outcome === 'resent');
      expect(resent.map((e) => e.key).sort()).toEqual([...keys].sort());
      for (const entry of resent) expect(entry).toMatchObject({ settled: true, replayed: false, result: { id: orderOf(entry.key) } });
      expect(report.intents.filter((e) => e.outcome !== 'resent')).toEqual([
        expect.objectContaining({ key: bad.mismatched, outcome: 'skipped', settled: false, path: '/v1/withdrawals/wdr_1/fail' }),
      ]);
      expect(report.intents.find((e) => e.outcome === 'skipped')!.check).toMatch(/path does not match/);
      expect(report.unreadable!.map((u) => u.key).sort()).toEqual([bad.garbage, bad.newer, bad.moved].sort());
      for (const u of report.unreadable!) expect(u).toMatchObject({ unreadable: true, scope: real['scope'], problem: expect.any(String) });
      expect(report.unreadable!.find((u) => u.key === bad.garbage)!.problem).toBe('not JSON');
      expect(report.unreadable!.find((u) => u.key === bad.moved)!.problem).toMatch(/key or scope differs/);
      // The mismatched record never reached the service.
      expect(ledger.server.requests.filter((r) => r.url.includes('/fail') || r.headers['x-idempotency-key'] === bad.mismatched)).toEqual(
        [],
      );
      for (const key of keys) expect(ledger.effects(key)).toBe(1);
      // The real intents are settled; the four bad records stay for a person.
      await expectOpen(prefix, Object.values(bad));
      matrix.push(
        `untrusted records | garbage, newer format, moved key, wrong path (oldest) | - | 3 resent, 3 unreadable, 1 skipped (never sent) | 1 each | 4 (the bad ones)`,
      );
    },
    LIMIT,
  );

  it(
    'five processes recovering ten intents at once resend each exactly once',
    async () => {
      const prefix = prefixOf(++n);
      const keys = await openIntents(redisServer.port, prefix, 10);
      // The first five resends are held until five are in flight: all five processes are then
      // provably recovering at the same time, each with an intent of its own.
      const allInFlight = deferred();
      let inFlight = 0;
      ledger.interpose('withdrawal', async () => {
        if (++inFlight === 5) allInFlight.resolve();
        if (inFlight <= 5) await allInFlight.promise;
        return undefined;
      });
      const recoverers: Child[] = [];
      for (let i = 0; i < 5; i++) recoverers.push(await start(env(prefix, { ROLE: 'recover', WAIT_GO: '1' })));
      await Promise.all(recoverers.map((c) => c.next('ready')));
      for (const c of recoverers) c.send({ type: 'go' });
      const reports = (await Promise.all(recoverers.map((c) => c.next('report')))).map((m) => as<Report>(m));
      for (const c of recoverers) expect(await c.exited).toBe(0);
      ledger.interpose('withdrawal', undefined);

      const resent = reports.flatMap((r) => r.intents.map((e) => e.key));
      expect([...resent].sort()).toEqual([...keys].sort());
      for (const report of reports) expect(report.intents.length).toBeGreaterThan(0);
      for (const report of reports)
        for (const entry of report.intents)
          expect(entry).toMatchObject({ outcome: 'resent', settled: true, replayed: false, result: { id: orderOf(entry.key) } });
      for (const key of keys) {
        // The reset first attempt, and exactly one resend by one of the five.
        expect(ledger.received(key)).toHaveLength(2);
        expect(ledger.effects(key)).toBe(1);
      }
      await expectNothingOpen(prefix);
      matrix.push(
        `5 recoverers | 10 open intents, 5 resends held until all in flight | - | ${reports.map((r) => r.intents.length).join('+')} resent | 1 each | 0`,
      );
    },
    LIMIT,
  );

  it(
    'an intent younger than minAgeMs is left alone and reported in leftForLater; an older one is recovered',
    async () => {
      const prefix = prefixOf(++n);
      const key = await crash(prefix, 'record');
      const [base] = (await admin.keys(`${prefix}:journal:*:intents`)).map((k) => k.slice(0, -':intents'.length));
      const createdAt = Number((JSON.parse((await admin.hget(`${base!}:intents`, key))!) as { createdAt: number }).createdAt);

      const young = await recover(prefix, { MIN_AGE_MS: '600000' });
      expect(young.intents).toEqual([]);
      expect(young.leftForLater).toEqual({ count: 1, keys: [key], eligibleAt: createdAt + 600_000 });
      expect(await journalKeys(prefix)).toEqual({ intents: [key], open: [key], claims: [] });

      const old = await recover(prefix);
      expect(old.intents).toEqual([expect.objectContaining({ key, outcome: 'resent', settled: true, replayed: false })]);
      expect(old.leftForLater).toEqual({ count: 0, keys: [], eligibleAt: expect.any(Number) });
      expect(ledger.effects(key)).toBe(1);
      await expectNothingOpen(prefix);
      matrix.push(`young intent | recover({ minAgeMs: 600000 }) | - | leftForLater 1 -> resent ${orderOf(key)} | 1 | 0`);
    },
    LIMIT,
  );
});

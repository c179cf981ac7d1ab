/**
 * Edges of the event store's transactional claim (`claimInTransaction`, transaction.ts) and of its
 * plain methods that the suites on a real server do not pin down, on a scripted pool (the
 * documented `connect()` shape) whose statements answer, fail or never answer as each test says:
 * the numbers the claim sends (its lock wait, its idle timeout, a lease, a retention), what each
 * failure names (its operation, its message, the event id masked), which client goes back to the
 * pool and which is destroyed, the logger's outage and recovery lines, and the listeners left on
 * the delivery's signal.
 */
import { getEventListeners } from 'node:events';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresEventStore, PostgresStoreError } from '../../src/postgres/index.js';
import type { PostgresClientLike, PostgresQueryResult } from '../../src/postgres/connection.js';
import { eventLayout } from '../../src/postgres/schema.js';
import { failure } from '../helpers/client.js';
import { fittingCatalogRows } from './helpers/fitting-catalog.js';

type Answer = (text: string, values?: unknown[]) => Promise<PostgresQueryResult>;

/** A promise that never settles: a statement PostgreSQL never answers. */
const never = (): Promise<never> => new Promise<never>(() => undefined);
const rows = (r: Record<string, unknown>[] = [], command?: string): Promise<PostgresQueryResult> => Promise.resolve({ rows: r, command });
const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** The store error `call` rejects with. */
const fails = async (call: PromiseLike<unknown>): Promise<PostgresStoreError> => (await failure(call)) as PostgresStoreError;

/** Resolves once `reached()` holds: polled each turn of the event loop, no timing assumed. */
async function until(reached: () => boolean): Promise<void> {
  while (!reached()) await new Promise((resolve) => setImmediate(resolve));
}
const refused = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });

/**
 * A scripted client: answers the first use's verify as a fitting table would (after `verifyMs`),
 * and every other statement with `other`; records what it was sent and how it was released.
 */
function scripted(other: Answer, verifyMs = 0) {
  const sent: Array<{ text: string; values?: unknown[] }> = [];
  const releases: unknown[] = [];
  let verifying = false;
  // The verify's own release (its connection goes back to the pool) is not the claim's.
  let verifyRelease = false;
  const table = { fits: true };
  const client = {
    processID: 4242,
    echo: (x: unknown): unknown => x,
    query: (async (text: string, values?: unknown[]) => {
      if (text.includes('to_regclass')) {
        if (verifyMs > 0) await after(verifyMs);
        const catalog = fittingCatalogRows(eventLayout('events'));
        // A table that differs: its marker column made jsonb.
        return { rows: table.fits ? catalog : catalog.map((r) => (r['name'] === 'marker' ? { ...r, type: 'jsonb' } : r)) };
      }
      if (text.startsWith('BEGIN READ ONLY')) {
        verifying = true;
        return { rows: [] };
      }
      if (text === 'COMMIT' && verifying) {
        verifying = false;
        verifyRelease = true;
        return { rows: [] };
      }
      sent.push(values === undefined ? { text } : { text, values });
      return other(text, values);
    }) as PostgresClientLike['query'],
    release: (err?: Error | boolean) => {
      if (verifyRelease) verifyRelease = false;
      else releases.push(err);
    },
  };
  return { client, sent, releases, table, texts: () => sent.map((s) => s.text.split(/\s/)[0]) };
}

/** The answers of a claim that inserts its mark, then of what follows. */
const claiming =
  (rest: Answer = () => rows()): Answer =>
  (text, values) =>
    text.startsWith('INSERT') ? rows([{ event_id: values?.[0] }]) : text.startsWith('BEGIN') ? rows() : rest(text, values);

const lines = () => {
  const seen: Array<[string, string]> = [];
  const logger = {
    info: (m: string) => void seen.push(['info', m]),
    warn: (m: string) => void seen.push(['warn', m]),
    error: (m: string) => void seen.push(['error', m]),
  };
  return { seen, logger };
};

const storeOf = (client: PostgresClientLike, extra: Record<string, unknown> = {}) =>
  new PostgresEventStore({ pool: { connect: () => Promise.resolve(client) }, table: 'events', ...extra });

describe('the transactional claim on a scripted pool', () => {
  it('sends the lock wait the delivery has left (after the verify and the connection) and its lease, rounded up, as the idle timeout', async () => {
    const s = scripted(claiming(), 300);
    const store = new PostgresEventStore({
      pool: { connect: () => after(300).then(() => s.client) },
      table: 'events',
      statementTimeoutMs: 120_000,
    });
    const tx = await store.claimInTransaction('evt-1', { ttlMs: 1500.2, waitMs: 60_000 });
    expect(tx.result).toBe('claimed');
    const begin = s.sent[0]!.text;
    const lock = Number(/lock_timeout = (\d+);/.exec(begin)?.[1]);
    // 300 ms of verify and 300 ms of connection were spent of the 60 s (a timer may fire a
    // millisecond early: 100 ms of margin), and the lock wait is never cut to nothing.
    expect(lock).toBeLessThanOrEqual(59_500);
    expect(lock).toBeGreaterThanOrEqual(30_000);
    expect(begin).toContain('SET LOCAL idle_in_transaction_session_timeout = 1501;');
    expect(begin).toContain('LOCK TABLE "events" IN ROW EXCLUSIVE MODE');
    expect(s.sent[1]!.values).toEqual(['evt-1']);
    if (tx.result === 'claimed') await tx.commit();
    expect(s.releases).toEqual([undefined]);
  });

  it('a lease under a millisecond is sent as one', async () => {
    const s = scripted(claiming());
    const tx = await storeOf(s.client).claimInTransaction('evt-2', { ttlMs: 0.3, waitMs: 5000 });
    expect(s.sent[0]!.text).toContain('idle_in_transaction_session_timeout = 1;');
    if (tx.result === 'claimed') await tx.rollback();
  });

  it('a mark found completed is a duplicate, one found in progress is in_progress: rolled back, the client back in the pool', async () => {
    for (const [state, result] of [
      ['completed', 'duplicate'],
      ['in_progress', 'in_progress'],
    ] as const) {
      const s = scripted((text) => (text.startsWith('SELECT') ? rows([{ state }]) : rows()));
      expect(await storeOf(s.client).claimInTransaction('evt-3', { ttlMs: 1000, waitMs: 5000 })).toEqual({ result });
      expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'SELECT', 'ROLLBACK']);
      expect(s.sent[2]!.values).toEqual(['evt-3']);
      expect(s.releases).toEqual([undefined]);
    }
  });

  it('a mark gone between the insert and the read (a plain claim released meanwhile) is in_progress', async () => {
    const s = scripted(() => rows());
    expect(await storeOf(s.client).claimInTransaction('evt-22', { ttlMs: 1000, waitMs: 5000 })).toEqual({ result: 'in_progress' });
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'SELECT', 'ROLLBACK']);
  });

  it('a COMMIT answered ROLLBACK (a failed statement aborted the transaction) is refused as 25P02, the client back in the pool', async () => {
    const s = scripted(claiming((text) => (text === 'COMMIT' ? rows([], 'ROLLBACK') : rows())));
    const tx = await storeOf(s.client).claimInTransaction('evt-23', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    const err = await fails(tx.commit());
    expect(err).toMatchObject({ kind: 'misconfigured', code: '25P02', operation: 'commit an event' });
    expect(err.message).toContain('the transaction was aborted by a failed statement of onEvent, and rolled back (SQLSTATE 25P02)');
    expect(s.releases).toEqual([undefined]);
  });

  it('a commit asked with a signal already aborted sends nothing', async () => {
    const s = scripted(claiming());
    const tx = await storeOf(s.client).claimInTransaction('evt-24', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    expect(await fails(tx.commit({ signal: AbortSignal.abort(new Error('answered')) }))).toMatchObject({ operation: 'commit an event' });
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT']);
  });

  it("the insert's lock wait running out is another delivery in flight: in_progress, rolled back, and an outage before it ends (info)", async () => {
    const { seen, logger } = lines();
    let down = true;
    const s = scripted((text) =>
      text.startsWith('INSERT')
        ? Promise.reject(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }))
        : rows(),
    );
    const store = new PostgresEventStore({
      pool: { connect: () => (down ? Promise.reject(refused()) : Promise.resolve(s.client)) },
      table: 'events',
      logger,
    });
    // The first use's verify meets the outage: nothing is kept of it, the next use verifies again.
    await fails(store.claimInTransaction('evt-4', { ttlMs: 1000, waitMs: 5000 }));
    expect(inspect(store)).toBe("PostgresEventStore { table: 'events', degraded: true }");
    down = false;
    expect(await store.claimInTransaction('evt-4', { ttlMs: 1000, waitMs: 5000 })).toEqual({ result: 'in_progress' });
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'ROLLBACK']);
    expect(s.releases).toEqual([undefined]);
    expect(seen.map(([level]) => level)).toEqual(['warn', 'info']);
    expect(seen[1]![1]).toBe('merchant-stablecoin/postgres: the webhook event store: PostgreSQL answers again');
    expect(inspect(store)).toBe("PostgresEventStore { table: 'events', degraded: false }");
  });

  it('a duplicate found after an outage ends it (info), without a commit', async () => {
    const { seen, logger } = lines();
    let down = true;
    const s = scripted((text) => (text.startsWith('SELECT') ? rows([{ state: 'completed' }]) : rows()));
    const store = new PostgresEventStore({
      pool: { connect: () => (down ? Promise.reject(refused()) : Promise.resolve(s.client)) },
      table: 'events',
      logger,
    });
    await fails(store.claimInTransaction('evt-5', { ttlMs: 1000, waitMs: 5000 }));
    down = false;
    expect(await store.claimInTransaction('evt-5', { ttlMs: 1000, waitMs: 5000 })).toEqual({ result: 'duplicate' });
    expect(seen.map(([level]) => level)).toEqual(['warn', 'info']);
  });

  it("the table's own lock running out (BEGIN's LOCK TABLE) names another session's lock; the client is destroyed", async () => {
    const { seen, logger } = lines();
    const s = scripted((text) =>
      text.startsWith('BEGIN')
        ? Promise.reject(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }))
        : rows(),
    );
    const err = await fails(storeOf(s.client, { logger }).claimInTransaction('evt-6', { ttlMs: 1000, waitMs: 5000 }));
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind: 'unavailable', code: '55P03', operation: 'claim an event', executed: false });
    expect(err.message).toContain(
      'the event table is locked by another session (a migration, a LOCK TABLE), not by a delivery, for longer than the delivery had',
    );
    expect(s.releases).toHaveLength(1);
    expect(s.releases[0]).toBeInstanceOf(Error);
    expect(seen).toEqual([['warn', expect.stringContaining('locked by another session')]]);
  });

  it('an insert PostgreSQL refuses (a revoked grant) is that refusal, logged as an error; the client is destroyed', async () => {
    const { seen, logger } = lines();
    const s = scripted((text) =>
      text.startsWith('INSERT')
        ? Promise.reject(Object.assign(new Error('permission denied for table events'), { code: '42501' }))
        : rows(),
    );
    const err = await fails(storeOf(s.client, { logger }).claimInTransaction('evt-19', { ttlMs: 1000, waitMs: 5000 }));
    expect(err).toMatchObject({ kind: 'misconfigured', code: '42501', operation: 'claim an event' });
    expect(err.message).toContain('permission denied for table events (SQLSTATE 42501)');
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT']);
    expect(s.releases).toHaveLength(1);
    expect(s.releases[0]).toBeInstanceOf(Error);
    expect(seen).toEqual([['error', expect.stringContaining('permission denied for table events')]]);
  });

  it('an outage met while onEvent ran (another delivery) is ended by its COMMIT (info)', async () => {
    const { seen, logger } = lines();
    const s = scripted(claiming((text) => (text === 'COMMIT' ? rows([], 'COMMIT') : rows())));
    let calls = 0;
    const store = new PostgresEventStore({
      // The verify's connection, the claim's, then none: the server is gone.
      pool: { connect: () => (++calls <= 2 ? Promise.resolve(s.client) : Promise.reject(refused())) },
      table: 'events',
      logger,
    });
    const tx = await store.claimInTransaction('evt-20', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    await fails(store.claimInTransaction('evt-21', { ttlMs: 1000, waitMs: 5000 }));
    await tx.commit();
    expect(seen.map(([level]) => level)).toEqual(['warn', 'info']);
    expect(inspect(store)).toBe("PostgresEventStore { table: 'events', degraded: false }");
  });

  it('a claim the delivery gave up on mid-statement fails with its reason, the event id masked, the client destroyed', async () => {
    const s = scripted(() => never());
    const controller = new AbortController();
    const pending = storeOf(s.client).claimInTransaction('evt-secret-7', { ttlMs: 1000, waitMs: 5000, signal: controller.signal });
    await until(() => s.sent.length > 0);
    expect(s.texts()).toEqual(['BEGIN;']);
    controller.abort(new Error('the delivery of evt-secret-7 was answered'));
    const err = await fails(pending);
    expect(err).toMatchObject({ name: 'PostgresStoreError', kind: 'unreachable', operation: 'claim an event' });
    expect(err.message).toContain('the delivery of *** was answered');
    expect(err.message).not.toContain('evt-secret-7');
    expect(s.releases).toHaveLength(1);
    expect(s.releases[0]).toBeInstanceOf(Error);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a signal aborted with a reason that is not an Error names the delivery’s time', async () => {
    const s = scripted(() => never());
    const controller = new AbortController();
    const pending = storeOf(s.client).claimInTransaction('evt-8', { ttlMs: 1000, waitMs: 5000, signal: controller.signal });
    await until(() => s.sent.length > 0);
    controller.abort('answered');
    expect((await fails(pending)).message).toContain("no answer within the delivery's time");
  });

  it('without a signal, a claim never answered fails after waitMs plus the statement timeout, naming that bound', async () => {
    const s = scripted(() => never());
    const err = await fails(storeOf(s.client, { statementTimeoutMs: 150 }).claimInTransaction('evt-9', { ttlMs: 1000, waitMs: 100 }));
    expect(err).toMatchObject({ kind: 'unreachable', operation: 'claim an event' });
    // What the verify left of the 100 ms, plus the 150 ms, rounded up: never more than 250 ms.
    const bound = Number(/no answer within (\d+) ms/.exec(err.message)?.[1]);
    expect(bound).toBeGreaterThanOrEqual(150);
    expect(bound).toBeLessThanOrEqual(250);
  });

  it('a connection that comes after the delivery gave up is given back to the pool unused; the failure is unsent', async () => {
    const s = scripted(claiming());
    let hand: (c: PostgresClientLike) => void = () => undefined;
    let calls = 0;
    const store = new PostgresEventStore({
      // The first connection serves the verify; the claim's arrives late.
      pool: { connect: () => (++calls === 1 ? Promise.resolve(s.client) : new Promise<PostgresClientLike>((resolve) => (hand = resolve))) },
      table: 'events',
    });
    const controller = new AbortController();
    const pending = store.claimInTransaction('evt-10', { ttlMs: 1000, waitMs: 5000, signal: controller.signal });
    await until(() => calls === 2);
    controller.abort(new Error('answered'));
    expect(await fails(pending)).toMatchObject({ kind: 'unreachable', executed: false, operation: 'claim an event' });
    expect(s.releases).toEqual([]);
    hand(s.client);
    await until(() => s.releases.length === 1);
    expect(s.releases).toEqual([undefined]);
    expect(s.sent).toEqual([]);
  });

  it('leaves no listener on the delivery’s signal once the claim and its commit are answered', async () => {
    const s = scripted(claiming((text) => (text === 'COMMIT' ? rows([], 'COMMIT') : rows())));
    const controller = new AbortController();
    const tx = await storeOf(s.client).claimInTransaction('evt-11', { ttlMs: 1000, waitMs: 5000, signal: controller.signal });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await tx.commit({ signal: controller.signal });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'COMMIT']);
    expect(s.releases).toEqual([undefined]);
  });

  it('a COMMIT never answered within the signal: destroyed, logged, the event id masked', async () => {
    const { seen, logger } = lines();
    const s = scripted(claiming((text) => (text === 'COMMIT' ? never() : rows())));
    const tx = await storeOf(s.client, { logger }).claimInTransaction('evt-secret-12', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    const controller = new AbortController();
    const pending = tx.commit({ signal: controller.signal });
    await until(() => s.sent.length === 3);
    controller.abort(new Error('evt-secret-12 answered 503'));
    const err = await fails(pending);
    expect(err).toMatchObject({ kind: 'unreachable', operation: 'commit an event' });
    expect(err.message).not.toContain('evt-secret-12');
    expect(s.releases).toHaveLength(1);
    expect(s.releases[0]).toBeInstanceOf(Error);
    expect(seen).toEqual([['warn', expect.stringMatching(/PostgreSQL is not answering: .*\*\*\* answered 503/)]]);
  });

  it('a late COMMIT (no signal) waits the statement timeout, then is destroyed', async () => {
    const s = scripted(claiming((text) => (text === 'COMMIT' ? never() : rows())));
    const tx = await storeOf(s.client, { statementTimeoutMs: 100 }).claimInTransaction('evt-13', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    const err = await fails(tx.commit());
    expect(err).toMatchObject({ operation: 'commit an event', message: expect.stringContaining('no answer within 100 ms') });
    expect(s.releases[0]).toBeInstanceOf(Error);
  });

  it('a ROLLBACK never answered is abandoned after the statement timeout: the client destroyed, the failure logged', async () => {
    const { seen, logger } = lines();
    const s = scripted(claiming((text) => (text === 'ROLLBACK' ? never() : rows())));
    const tx = await storeOf(s.client, { statementTimeoutMs: 100, logger }).claimInTransaction('evt-14', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    await tx.rollback();
    expect(s.releases).toHaveLength(1);
    expect(s.releases[0]).toBeInstanceOf(Error);
    expect(seen).toEqual([
      ['warn', expect.stringMatching(/roll back an event.*no answer within 100 ms|no answer within 100 ms.*roll back an event/)],
    ]);
  });

  it('a transaction rolls back once: a second rollback sends nothing', async () => {
    const s = scripted(claiming());
    const tx = await storeOf(s.client).claimInTransaction('evt-15', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    await tx.rollback();
    await tx.rollback();
    await expect(tx.commit()).rejects.toThrow('the transaction already ended');
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'ROLLBACK']);
    expect(s.releases).toEqual([undefined]);
  });

  it('context.transaction shows the client’s properties, refuses release and a query after the end, naming the event', async () => {
    const s = scripted(claiming());
    const tx = await storeOf(s.client).claimInTransaction('evt-16', { ttlMs: 1000, waitMs: 5000 });
    if (tx.result !== 'claimed') throw new Error(`expected a claim, got ${tx.result}`);
    const t = tx.transaction as typeof s.client;
    expect(t.processID).toBe(4242);
    expect(() => t.release()).toThrow("The transaction of event evt-16 is the webhook receiver's to end: do not release it.");
    await expect(t.query('COMMIT')).rejects.toThrow(/^COMMIT refused on the transaction of event evt-16: the webhook receiver commits it/);
    await t.query('SELECT 1');
    // The client's other methods are its own: no statement is read in their arguments.
    expect(t.echo('COMMIT')).toBe('COMMIT');
    await tx.commit();
    await expect(t.query('SELECT 1')).rejects.toThrow('The transaction of event evt-16 has ended: this query would run outside it.');
    expect(t.echo('SELECT 1')).toBe('SELECT 1');
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'SELECT', 'COMMIT']);
  });
});

describe('the transactional claim on a frozen monotonic clock', () => {
  // performance.now() stands still: the time spent is exactly none, the timers are real.
  afterEach(() => void vi.useRealTimers());

  it('sends the lock wait the delivery has, rounded down, and the bound of a claim without a signal rounded up', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const s = scripted(claiming());
    const tx = await storeOf(s.client).claimInTransaction('evt-17', { ttlMs: 1000, waitMs: 60_000.5 });
    expect(s.sent[0]!.text).toContain('SET LOCAL lock_timeout = 60000;');
    if (tx.result === 'claimed') await tx.rollback();
    const frozen = scripted(() => never());
    const err = await fails(
      storeOf(frozen.client, { statementTimeoutMs: 150 }).claimInTransaction('evt-18', { ttlMs: 1000, waitMs: 100.5 }),
    );
    expect(err.message).toContain('no answer within 251 ms');
  });
});

describe('the transactional claim on a controllable clock', () => {
  afterEach(() => void vi.useRealTimers());

  it('leaves no timer behind once a claim without a signal is committed or rolled back (a process can exit)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = scripted(claiming((text) => (text === 'COMMIT' ? rows([], 'COMMIT') : rows())));
    const store = storeOf(s.client);
    const committed = await store.claimInTransaction('evt-25', { ttlMs: 1000, waitMs: 5000 });
    expect(vi.getTimerCount()).toBe(0);
    if (committed.result === 'claimed') await committed.commit();
    expect(vi.getTimerCount()).toBe(0);
    const rolledBack = await store.claimInTransaction('evt-26', { ttlMs: 1000, waitMs: 5000 });
    if (rolledBack.result === 'claimed') await rolledBack.rollback();
    expect(vi.getTimerCount()).toBe(0);
    expect(s.texts()).toEqual(['BEGIN;', 'INSERT', 'COMMIT', 'BEGIN;', 'INSERT', 'ROLLBACK']);
  });
});

describe('the schema verdict on a scripted pool', () => {
  it("a table that differs is logged to the store's logger, naming the store, and refused under each operation's name, unsent", async () => {
    const { seen, logger } = lines();
    const s = scripted(() => rows());
    s.table.fits = false;
    const store = storeOf(s.client, { logger });
    expect(await fails(store.claimInTransaction('d1', { ttlMs: 1000, waitMs: 5000 }))).toMatchObject({
      kind: 'misconfigured',
      executed: false,
      operation: 'claim an event',
    });
    expect(await fails(store.claim('d1', 1000))).toMatchObject({ kind: 'misconfigured', operation: 'claim an event' });
    expect(await fails(store.complete('d1'))).toMatchObject({ kind: 'misconfigured', operation: 'complete an event' });
    expect(await fails(store.prune())).toMatchObject({ kind: 'misconfigured', operation: 'prune events' });
    expect(s.sent).toEqual([]);
    expect(seen).toEqual([['error', expect.stringMatching(/^merchant-stablecoin\/postgres: the webhook event store: .*marker/)]]);
  });

  it('a table found changed by verifySchema() after a claim: its release is refused, unsent, under its name', async () => {
    const s = scripted((text) => (text.startsWith('WITH taken') ? rows([{ result: 'claimed' }]) : rows()));
    const store = storeOf(s.client);
    expect(await store.claim('d2', 1000)).toBe('claimed');
    s.table.fits = false;
    await fails(store.verifySchema());
    expect(await fails(store.release('d2'))).toMatchObject({ kind: 'misconfigured', executed: false, operation: 'release an event' });
    expect(s.texts()).toEqual(['WITH']);
  });

  it('each plain statement PostgreSQL refuses names its operation', async () => {
    const s = scripted(() => Promise.reject(Object.assign(new Error('permission denied for table events'), { code: '42501' })));
    const store = storeOf(s.client);
    for (const [call, operation] of [
      [() => store.claim('d3', 1000), 'claim an event'],
      [() => store.complete('d3'), 'complete an event'],
      [() => store.prune(), 'prune events'],
    ] as const)
      expect(await fails(call())).toMatchObject({ kind: 'misconfigured', code: '42501', operation });
    expect(s.texts()).toEqual(['WITH', 'INSERT', 'WITH']);
  });
});

describe('the plain claim on a scripted pool', () => {
  it('refuses a retention that is not a positive number, naming it', () => {
    const s = scripted(() => rows());
    expect(() => storeOf(s.client, { retentionMs: 0 })).toThrow(/^retentionMs: /);
  });

  it('sends its lease rounded up (at least 1 ms) and keeps the marker of a claim only', async () => {
    const s = scripted((text) => (text.startsWith('WITH taken') ? rows([{ result: 'claimed' }]) : rows()));
    const store = storeOf(s.client);
    expect(await store.claim('p1', 1500.2)).toBe('claimed');
    expect(await store.claim('p2', 0.3)).toBe('claimed');
    expect(s.sent.map((q) => q.values?.[1])).toEqual([1501, 1]);
    const marker = s.sent[0]!.values?.[2];
    expect(marker).toMatch(/^[0-9a-f-]{36}$/);
    await store.release('p1');
    expect(s.sent[2]).toMatchObject({ values: ['p1', marker] });
    expect(s.sent[2]!.text).toMatch(/^DELETE FROM "events" WHERE event_id = \$1 AND state = 'in_progress' AND marker = \$2/);
    // Released once: a second release, and one of an id never claimed, send nothing.
    await store.release('p1');
    await store.release('never');
    expect(s.sent).toHaveLength(3);
  });

  it('no row answered is in_progress, and that claim keeps no marker', async () => {
    const s = scripted(() => rows());
    const store = storeOf(s.client);
    expect(await store.claim('p3', 1000)).toBe('in_progress');
    await store.release('p3');
    expect(s.sent).toHaveLength(1);
  });

  it('a completed claim is no longer this instance’s to release: nothing is sent', async () => {
    const s = scripted((text) => (text.startsWith('WITH taken') ? rows([{ result: 'claimed' }]) : rows()));
    const store = storeOf(s.client);
    await store.claim('p4', 1000);
    await store.complete('p4');
    await store.release('p4');
    expect(s.texts()).toEqual(['WITH', 'INSERT']);
    expect(s.sent[1]!.values).toEqual(['p4']);
  });

  it('a release PostgreSQL refuses names its operation', async () => {
    const s = scripted((text) =>
      text.startsWith('WITH taken')
        ? rows([{ result: 'claimed' }])
        : Promise.reject(Object.assign(new Error('permission denied for table events'), { code: '42501' })),
    );
    const store = storeOf(s.client);
    await store.claim('p5', 1000);
    expect(await fails(store.release('p5'))).toMatchObject({ kind: 'misconfigured', code: '42501', operation: 'release an event' });
  });

  it('prune sends its retention rounded up, 30 days by default, and answers 0 without a row', async () => {
    const s = scripted((text) => (text.startsWith('WITH gone') && s.sent.length === 1 ? rows([{ deleted: '3' }]) : rows()));
    expect(await storeOf(s.client).prune()).toBe(3);
    expect(await storeOf(s.client, { retentionMs: 1000.5 }).prune()).toBe(0);
    expect(s.sent.map((q) => q.values)).toEqual([[30 * 24 * 60 * 60 * 1000], [1001]]);
  });

  it('verifySchema names its operation when PostgreSQL cannot answer; inspection shows the default table', async () => {
    const store = new PostgresEventStore({ pool: { connect: () => Promise.reject(refused()) } });
    expect(inspect(store)).toBe("PostgresEventStore { table: 'merchant_stablecoin_webhook_events', degraded: false }");
    expect(await fails(store.verifySchema())).toMatchObject({ kind: 'unreachable', operation: 'verify the event table' });
  });
});

/**
 * `RedisJournal` without a server: what goes on the wire and what the caller gets at the edges a
 * real Redis rarely shows (a reply of the wrong shape, a record stored under another key, a scope
 * that would move the hash tag), the log lines that name the journal, and records of one key
 * waiting for the connection while another is in flight. A scripted fake stands for the client:
 * it records every command, answers from a table, and can hold a reply until the test releases it.
 * The real-server behaviour is in test/journal/redis-journal.test.ts.
 */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JournalIntent, LogFields } from '../../src/index.js';
import { RedisJournal, RedisStoreError } from '../../src/redis/index.js';

afterEach(() => void vi.restoreAllMocks());

type Answer = (args: Array<string | number>) => unknown;

/** A client with ioredis' status and events; replies from `answers`, or held (`hold`) until released. */
class ScriptedClient extends EventEmitter {
  status = 'ready';
  readonly calls: Array<Array<string | number>> = [];
  readonly held: Array<() => void> = [];
  hold = false;
  constructor(private readonly answers: Record<string, Answer> = {}) {
    super();
  }
  call(command: string, ...args: Array<string | number>): Promise<unknown> {
    this.calls.push([command, ...args]);
    const answer = this.answers[command] ?? (() => 1);
    if (this.hold) return new Promise((resolve) => this.held.push(() => resolve(answer(args))));
    try {
      return Promise.resolve(answer(args));
    } catch (err) {
      return Promise.reject(err);
    }
  }
  become(status: string): void {
    this.status = status;
    process.nextTick(() => this.emit(status));
  }
}

const intent = (key: string, scope = 'scope1', extra: Partial<JournalIntent> = {}): JournalIntent => ({
  key,
  scope,
  endpoint: 'member.withdrawals.create',
  method: 'POST',
  path: '/v1/withdrawals',
  body: '{"asset":"USDT"}',
  withheld: false,
  member: 'ext-1',
  createdAt: 1000,
  ...extra,
});

function capture(): {
  logger: { warn: (m: string, f?: LogFields) => void; error: (m: string, f?: LogFields) => void };
  lines: Array<[string, string, LogFields | undefined]>;
} {
  const lines: Array<[string, string, LogFields | undefined]> = [];
  return {
    lines,
    logger: {
      warn: (m, f) => lines.push(['warn', m, f]),
      error: (m, f) => lines.push(['error', m, f]),
    },
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const outcome = <T>(p: Promise<T>): Promise<{ value?: T; error?: unknown }> =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
const evalshas = (client: ScriptedClient): number => client.calls.filter((c) => c[0] === 'EVALSHA').length;

describe('RedisJournal at the edges (scripted client)', () => {
  it('names itself and what it does in the log lines of a refusal and of an outage', async () => {
    const refusing = new ScriptedClient({
      EVALSHA: () => {
        throw new Error('NOPERM this user has no permissions to access one of the keys used as arguments');
      },
    });
    const { logger, lines } = capture();
    const refused = await outcome(new RedisJournal({ redis: refusing, logger }).record(intent('k1')));
    expect(refused.error).toMatchObject({ kind: 'misconfigured', code: 'NOPERM', executed: false });
    expect(lines).toHaveLength(1);
    expect(lines[0]![0]).toBe('error');
    expect(lines[0]![1]).toContain(
      'Seen by the intent journal; money-moving calls are refused before sending (nothing moves) until Redis accepts the command.',
    );

    const down = new ScriptedClient({
      EVALSHA: () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      },
    });
    const outage = capture();
    await outcome(new RedisJournal({ redis: down, logger: outage.logger }).record(intent('k1')));
    expect(outage.lines.map(([level]) => level)).toEqual(['warn']);
    expect(outage.lines[0]![1]).toContain('Seen by the intent journal.');
  });

  it('a claim reply that is not a list claims nothing; a key without its record (an odd-length reply) is skipped', async () => {
    let reply: unknown = 'OK';
    const redis = new ScriptedClient({ EVALSHA: () => reply });
    const journal = new RedisJournal({ redis, logger: {} });
    const request = { scope: 'scope1', createdBefore: 5000, leaseMs: 1000, limit: 10 };
    expect(await journal.claim(request)).toEqual([]);
    reply = ['k1', JSON.stringify(intent('k1')), 'k2'];
    expect(await journal.claim(request)).toEqual([intent('k1')]);
  });

  it('a record stored under another key or scope is claimed as unreadable, with a warn line naming it, never as an intent', async () => {
    const reply = [
      'k1',
      JSON.stringify(intent('k9')),
      'k2',
      JSON.stringify(intent('k2', 'other-scope')),
      'k3',
      '{not json',
      'k4',
      JSON.stringify(intent('k4')),
    ];
    const redis = new ScriptedClient({ EVALSHA: () => reply });
    const { logger, lines } = capture();
    const claimed = await new RedisJournal({ redis, logger, prefix: 'app' }).claim({
      scope: 'scope1',
      createdBefore: 5000,
      leaseMs: 1000,
      limit: 10,
    });
    const differs = 'its key or scope differs from where it is stored';
    expect(claimed).toEqual([
      { unreadable: true, key: 'k1', scope: 'scope1', problem: differs },
      { unreadable: true, key: 'k2', scope: 'scope1', problem: differs },
      { unreadable: true, key: 'k3', scope: 'scope1', problem: 'not JSON' },
      intent('k4'),
    ]);
    expect(lines).toEqual([
      [
        'warn',
        'merchant-stablecoin/redis: an unreadable journal record was claimed and set aside',
        { prefix: 'app', idempotencyKey: 'k1', problem: differs },
      ],
      [
        'warn',
        'merchant-stablecoin/redis: an unreadable journal record was claimed and set aside',
        { prefix: 'app', idempotencyKey: 'k2', problem: differs },
      ],
      [
        'warn',
        'merchant-stablecoin/redis: an unreadable journal record was claimed and set aside',
        { prefix: 'app', idempotencyKey: 'k3', problem: 'not JSON' },
      ],
    ]);
  });

  it('openAfter counts every young record but lists only the readable ones; a reply that is not a list is none', async () => {
    let reply: unknown = [3, JSON.stringify(intent('k1')), 'garbage', JSON.stringify(intent('k2'))];
    const redis = new ScriptedClient({ EVALSHA: () => reply });
    const journal = new RedisJournal({ redis, logger: {} });
    expect(await journal.openAfter({ scope: 'scope1', createdAfter: 0, limit: 10 })).toEqual({
      total: 3,
      intents: [intent('k1'), intent('k2')],
    });
    reply = null;
    expect(await journal.openAfter({ scope: 'scope1', createdAfter: 0, limit: 10 })).toEqual({ total: 0, intents: [] });
  });

  it('a scope that is not a plain token (braces, slashes, too long) is digested, so it can never move the hash tag', async () => {
    const redis = new ScriptedClient();
    const journal = new RedisJournal({ redis, logger: {} });
    for (const scope of ['a{b}c', '{tag}abc', 'abc{tag}', 'x'.repeat(65), 'a/b']) await journal.record(intent('k1', scope));
    await journal.record(intent('k1', `${'y'.repeat(63)}.`));
    const keys = redis.calls.map((c) => String(c[3]));
    expect(keys.slice(0, 5).every((k) => /^merchant-stablecoin:journal:\{sha256-[0-9a-f]{32}\}:intents$/.test(k))).toBe(true);
    expect(new Set(keys.slice(0, 5)).size).toBe(5);
    expect(keys[5]).toBe(`merchant-stablecoin:journal:{${'y'.repeat(63)}.}:intents`);
  });

  it('a settle sends its script for a record already in flight, and stops the record of the same key still waiting', async () => {
    const redis = new ScriptedClient();
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    redis.hold = true;
    const inFlight = outcome(journal.record(intent('k1')));
    await tick();
    expect(evalshas(redis)).toBe(1);
    redis.become('reconnecting');
    const waiting = outcome(journal.record(intent('k1')));
    await tick();
    const settled = journal.settle('scope1', 'k1');
    await tick();
    redis.hold = false;
    redis.become('ready');
    await settled;
    // The record in flight may land: its settle went to Redis after it. The waiting one never went.
    expect(redis.calls.map((c) => c[0])).toEqual(['EVALSHA', 'EVALSHA']);
    const stopped = (await waiting).error as RedisStoreError;
    expect(stopped).toBeInstanceOf(RedisStoreError);
    expect(stopped).toMatchObject({
      kind: 'unreachable',
      executed: false,
      command: 'EVALSHA',
      key: 'merchant-stablecoin:journal:{scope1}:intents',
    });
    expect(stopped.message).toContain('its call ended while the connection was not ready; nothing was sent');
    redis.held.splice(0).forEach((release) => release());
    expect(await inFlight).toEqual({ value: undefined });
  });

  it('a record that ended is forgotten: a later record of the key, then its settle, reach Redis', async () => {
    const redis = new ScriptedClient();
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000, retryAfterMs: 1 });
    // Refused before it was handed over (a connection attempt failed).
    redis.status = 'connecting';
    const refused = outcome(journal.record(intent('k1')));
    await tick();
    redis.become('close');
    expect((await refused).error).toMatchObject({ executed: false });
    // Once ready: recorded and settled, each on the wire.
    // Past retryAfterMs (1 ms) on the monotonic clock the store reads.
    const now = performance.now();
    vi.spyOn(performance, 'now').mockImplementation(() => now + 1_000);
    redis.become('ready');
    await tick();
    await journal.record(intent('k1'));
    await journal.settle('scope1', 'k1');
    expect(evalshas(redis)).toBe(2);
  });

  it('a record that finished while another of its key waits leaves that one stoppable by the settle', async () => {
    const redis = new ScriptedClient();
    const journal = new RedisJournal({ redis, logger: {}, commandTimeoutMs: 60_000 });
    redis.hold = true;
    const first = journal.record(intent('k1'));
    await tick();
    redis.become('reconnecting');
    const second = outcome(journal.record(intent('k1')));
    await tick();
    redis.held.splice(0).forEach((release) => release());
    await first;
    // The first is done; the second still waits and is the settle's to stop, without Redis.
    await journal.settle('scope1', 'k1');
    expect((await second).error).toMatchObject({ executed: false });
    expect(evalshas(redis)).toBe(1);
  });

  it('while Redis is considered down a record is not sent, but the settle of its key still is (a late record must be removed)', async () => {
    const redis = new ScriptedClient({
      EVALSHA: () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      },
    });
    const journal = new RedisJournal({ redis, logger: {}, retryAfterMs: 60_000 });
    expect((await outcome(journal.record(intent('k1')))).error).toMatchObject({ kind: 'unreachable' });
    // Down now: the next record of the key is skipped, never sent.
    expect((await outcome(journal.record(intent('k1')))).error).toMatchObject({ kind: 'unreachable', executed: false });
    expect(evalshas(redis)).toBe(1);
    // The settle goes out all the same.
    await outcome(journal.settle('scope1', 'k1'));
    expect(evalshas(redis)).toBe(2);
    expect(redis.calls[1]![3]).toBe('merchant-stablecoin:journal:{scope1}:intents');
  });
});

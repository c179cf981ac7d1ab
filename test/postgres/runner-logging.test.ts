/**
 * The statement runner's own lines, without a server: the pool check a receiver runs at start
 * (node-postgres's `connectionTimeoutMillis` against the receiver's time), whose logger the lines
 * go to (the store's own, else the receiver's), and an outage's lines (unreachable or unavailable,
 * once, then its end once).
 */
import { describe, expect, it } from 'vitest';
import type { LogFields } from '../../src/index.js';
import { PostgresRunner, type PostgresPoolLike } from '../../src/postgres/connection.js';
import { storeErrorOf } from '../../src/postgres/failures.js';

type Line = [level: string, message: string, fields: LogFields | undefined];
const recorder = () => {
  const lines: Line[] = [];
  const at = (level: string) => (message: string, fields?: LogFields) => void lines.push([level, message, fields]);
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
};
const pool = (options?: unknown): PostgresPoolLike =>
  Object.assign({ connect: () => Promise.reject(new Error('not used')) }, options === undefined ? {} : { options });
const runner = (p: PostgresPoolLike, logger?: ReturnType<typeof recorder>['logger']) =>
  new PostgresRunner('the webhook event store', logger === undefined ? { pool: p } : { pool: p, logger }, 'events');

const NOT_SET =
  'merchant-stablecoin/postgres: the webhook event store: misconfigured pool: connectionTimeoutMillis is not set (node-postgres then waits for a connection for ever); set it at or below 1500 ms, so that a connection request the store gave up on does not stay queued in the pool (see "The pool" in docs/postgres.md).';

describe('the pool check (connectionTimeoutMillis against the time a caller has)', () => {
  it.each([
    ['unset', {}],
    ['0 (node-postgres waits for ever)', { connectionTimeoutMillis: 0 }],
    ['negative', { connectionTimeoutMillis: -1 }],
    ['not a number', { connectionTimeoutMillis: '1000' }],
  ])('%s: one warn line that says it is not set, with the limit', (_, options) => {
    const { lines, logger } = recorder();
    runner(pool(options), logger).checkPool(1500, "the webhook receiver's timeoutMs");
    expect(lines).toEqual([['warn', NOT_SET, { code: 'connectionTimeoutMillis' }]]);
  });

  it('above the limit: one warn line naming the value, what it is above, and the limit', () => {
    const { lines, logger } = recorder();
    runner(pool({ connectionTimeoutMillis: 1501 }), logger).checkPool(1500, "the webhook receiver's timeoutMs");
    expect(lines).toEqual([
      [
        'warn',
        'merchant-stablecoin/postgres: the webhook event store: misconfigured pool: connectionTimeoutMillis is 1501 ms, above the webhook receiver\'s timeoutMs (1500 ms); set it at or below 1500 ms, so that a connection request the store gave up on does not stay queued in the pool (see "The pool" in docs/postgres.md).',
        { code: 'connectionTimeoutMillis' },
      ],
    ]);
  });

  it.each([1, 1499, 1500])('%d ms, within the limit: no line', (ms) => {
    const { lines, logger } = recorder();
    runner(pool({ connectionTimeoutMillis: ms }), logger).checkPool(1500, 'x');
    expect(lines).toEqual([]);
  });

  it('a pool without node-postgres options (or with null) is not checked', () => {
    const { lines, logger } = recorder();
    runner(pool(), logger).checkPool(1500, 'x');
    runner(pool(null), logger).checkPool(1500, 'x');
    runner(pool('options'), logger).checkPool(1500, 'x');
    expect(lines).toEqual([]);
  });
});

describe('whose logger the lines go to', () => {
  it("the store's own logger stays its own: the receiver's is not used", () => {
    const own = recorder();
    const receivers = recorder();
    const r = runner(pool({}), own.logger);
    r.useLogger(receivers.logger);
    expect(r.logger).toBe(own.logger);
    r.checkPool(1500, 'x');
    expect(own.lines).toHaveLength(1);
    expect(receivers.lines).toEqual([]);
  });

  it("without one, the receiver's, once attached (and none before)", () => {
    const receivers = recorder();
    const r = runner(pool({}));
    expect(r.logger).toBeUndefined();
    r.useLogger(receivers.logger);
    expect(r.logger).toBe(receivers.logger);
    r.checkPool(1500, 'x');
    expect(receivers.lines).toHaveLength(1);
  });
});

describe("an outage's lines", () => {
  const unreachable = () => storeErrorOf(new Error('connect ECONNREFUSED'), 'claim an event', [], true);
  const unavailable = () =>
    storeErrorOf(Object.assign(new Error('the database system is starting up'), { code: '57P03' }), 'claim an event', []);

  it('unreachable: "is not answering", once; its end once; a degraded flag that follows', () => {
    const { lines, logger } = recorder();
    const r = runner(pool(), logger);
    r.answered();
    expect(lines).toEqual([]);
    r.failed(unreachable());
    r.failed(unreachable());
    expect(r.degraded).toBe(true);
    r.answered();
    r.answered();
    expect(r.degraded).toBe(false);
    expect(lines).toEqual([
      [
        'warn',
        'merchant-stablecoin/postgres: the webhook event store: PostgreSQL is not answering: PostgreSQL unreachable (claim an event): connect ECONNREFUSED.',
        undefined,
      ],
      ['info', 'merchant-stablecoin/postgres: the webhook event store: PostgreSQL answers again', undefined],
    ]);
  });

  it('unavailable: its own message (it says so itself), with its SQLSTATE', () => {
    const { lines, logger } = recorder();
    const r = runner(pool(), logger);
    r.failed(unavailable());
    expect(lines).toEqual([
      [
        'warn',
        'merchant-stablecoin/postgres: the webhook event store: PostgreSQL cannot claim an event now: the database system is starting up (SQLSTATE 57P03).',
        { code: '57P03' },
      ],
    ]);
  });
});

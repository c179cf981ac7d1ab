/**
 * The edges of how a driver failure becomes a `PostgresStoreError`, beyond failures.test.ts:
 * every SQLSTATE the class comment names as an outage, the two classes taken whole, the message
 * a reader gets for each kind (its operation, never a parameter value), and the bounds of the
 * driver's text (masking, trimming, the 300-character cut). What a caller reads: the kind, the
 * code, `executed`, the message.
 */
import { describe, expect, it } from 'vitest';
import { PostgresStoreError } from '../../src/postgres/index.js';
import { storeErrorOf } from '../../src/postgres/failures.js';

const pgError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('PostgresStoreError kinds', () => {
  it.each([
    // Shutting down (admin, crash, idle session), starting up, a system error: will answer again.
    ['57P01'],
    ['57P02'],
    ['57P03'],
    ['57P05'],
    ['58000'],
    // Every connection exception and every transaction rollback, not just the named ones.
    ['08000'],
    ['08001'],
    ['08P01'],
    ['40000'],
    ['40002'],
    ['40003'],
  ] as const)('SQLSTATE %s is an outage (unavailable), not a configuration mistake', (code) => {
    const err = storeErrorOf(pgError(code, 'the server said no'), 'claim intents', []);
    expect(err).toMatchObject({ kind: 'unavailable', code, executed: false });
  });

  it.each([
    // Neighbours of the outage codes and classes: a class is matched by its first two characters only.
    ['57000'],
    ['58030'],
    ['04001'],
    ['A0800'],
    ['22P02'],
    ['23505'],
  ] as const)('SQLSTATE %s is misconfigured', (code) => {
    expect(storeErrorOf(pgError(code, 'no'), 'claim intents', []).kind).toBe('misconfigured');
  });

  it('a code that is not a SQLSTATE is no answer: lowercase, too short, too long, or not a string', () => {
    for (const code of ['40p01', '4000', '400001', 'ECONNRESET', 40001]) {
      const err = storeErrorOf(Object.assign(new Error('socket gone'), { code }), 'settle an intent', []);
      expect(err).toMatchObject({ kind: 'unreachable', code: undefined, executed: undefined });
      expect(err.message).not.toContain('SQLSTATE');
    }
  });

  it('a thrown null or a bare value is still a store error, with its text', () => {
    expect(storeErrorOf(null, 'claim intents', [])).toMatchObject({ kind: 'unreachable', code: undefined });
    expect(storeErrorOf(null, 'claim intents', []).message).toBe('PostgreSQL unreachable (claim intents): null.');
    expect(storeErrorOf(undefined, 'claim intents', []).message).toBe('PostgreSQL unreachable (claim intents): undefined.');
    expect(storeErrorOf({ code: '42501' }, 'claim intents', [])).toMatchObject({ kind: 'misconfigured', code: '42501' });
  });
});

describe('PostgresStoreError messages', () => {
  it('names the operation in words that say which kind it is', () => {
    expect(storeErrorOf(pgError('40001', 'could not serialize access'), 'record an intent', []).message).toBe(
      'PostgreSQL cannot record an intent now: could not serialize access (SQLSTATE 40001).',
    );
    expect(storeErrorOf(new Error('Connection terminated unexpectedly'), 'settle an intent', []).message).toBe(
      'PostgreSQL unreachable (settle an intent): Connection terminated unexpectedly.',
    );
    expect(storeErrorOf(pgError('42501', 'permission denied for table j'), 'claim intents', []).message).toBe(
      'PostgreSQL refused to claim intents: permission denied for table j (SQLSTATE 42501). A configuration mistake, not an outage: see "PostgreSQL" in docs/postgres.md (ensureSchema, verifySchema and the grants).',
    );
  });

  it('keeps the first line only, trimmed', () => {
    const err = storeErrorOf(new Error('   terminating connection   \nHINT: reconnect'), 'claim intents', []);
    expect(err.message).toBe('PostgreSQL unreachable (claim intents): terminating connection.');
  });

  it('a blank first line reads "no answer"', () => {
    expect(storeErrorOf(new Error('   \nsomething'), 'claim intents', []).message).toBe(
      'PostgreSQL unreachable (claim intents): no answer.',
    );
  });

  it('masks every occurrence of a string value of four characters or more, and leaves shorter ones and non-strings', () => {
    const err = storeErrorOf(pgError('23505', 'duplicate key (evt1, abc, 12345) and again evt1'), 'claim an event', ['evt1', 'abc', 12345]);
    expect(err.message).toBe(
      'PostgreSQL refused to claim an event: duplicate key (***, abc, 12345) and again *** (SQLSTATE 23505). A configuration mistake, not an outage: see "PostgreSQL" in docs/postgres.md (ensureSchema, verifySchema and the grants).',
    );
  });

  it('cuts the driver text past 300 characters only', () => {
    const exact = storeErrorOf(new Error('y'.repeat(300)), 'claim intents', []);
    expect(exact.message).toBe(`PostgreSQL unreachable (claim intents): ${'y'.repeat(300)}.`);
    const over = storeErrorOf(new Error('y'.repeat(301)), 'claim intents', []);
    expect(over.message).toBe(`PostgreSQL unreachable (claim intents): ${'y'.repeat(300)}....`);
  });

  it('is an Error of its class, named, with no cause keeping the driver error', () => {
    const driver = pgError('42P01', 'relation "j" does not exist');
    const err = storeErrorOf(driver, 'record an intent', []);
    expect(err).toBeInstanceOf(Error);
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err.name).toBe('PostgresStoreError');
    expect(err.operation).toBe('record an intent');
    expect(err.cause).toBeUndefined();
  });
});

/**
 * How a driver failure becomes a `PostgresStoreError`: its kind from the SQLSTATE, whether the
 * statement may have taken effect, and a message without the statement's values. (The failures
 * themselves, against a real server, are in the other files of this folder.)
 */
import { describe, expect, it } from 'vitest';
import { PostgresStoreError } from '../../src/postgres/index.js';
import { storeErrorOf } from '../../src/postgres/failures.js';

const pgError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('PostgresStoreError', () => {
  it.each([
    ['40001', 'unavailable'],
    ['40P01', 'unavailable'],
    ['55P03', 'unavailable'],
    ['57014', 'unavailable'],
    ['57P01', 'unavailable'],
    ['08006', 'unavailable'],
    ['53300', 'unavailable'],
    ['25006', 'unavailable'],
    ['42P01', 'misconfigured'],
    ['42501', 'misconfigured'],
    ['28P01', 'misconfigured'],
    ['53100', 'misconfigured'],
  ] as const)('SQLSTATE %s is %s, and did not take effect', (code, kind) => {
    const err = storeErrorOf(pgError(code, 'the server said no'), 'record an intent', []);
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ kind, code, executed: false, operation: 'record an intent', name: 'PostgresStoreError' });
    expect(err.message).toContain(`(SQLSTATE ${code})`);
  });

  it('no answer is unreachable and may have taken effect; a statement never sent did not', () => {
    const lost = storeErrorOf(new Error('Connection terminated unexpectedly'), 'settle an intent', []);
    expect(lost).toMatchObject({ kind: 'unreachable', code: undefined, executed: undefined });
    const refused = storeErrorOf(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      'claim',
      [],
      true,
    );
    expect(refused).toMatchObject({ kind: 'unreachable', code: undefined, executed: false });
    expect(storeErrorOf(refused, 'other', [])).toBe(refused);
    expect(storeErrorOf('', 'claim an event', []).message).toMatch(/no answer/);
  });

  it('masks the values of the statement, keeps the first line, and bounds its length', () => {
    const body = '{"to_address":"TQ7x1Vb9secret"}';
    const err = storeErrorOf(pgError('22P02', `invalid input: ${body}\nDETAIL: more ${body}`), 'record an intent', ['k1', body]);
    expect(err.message).not.toContain('TQ7x1Vb9secret');
    expect(err.message).not.toContain('DETAIL');
    expect(err.message).toContain('***');
    expect(err.message).toMatch(/ensureSchema/);
    const long = storeErrorOf(new Error('x'.repeat(500)), 'claim', []);
    // The driver's text is cut at 300 characters and marked as cut.
    expect(long.message).toContain(`${'x'.repeat(300)}...`);
    expect(long.message).not.toContain('x'.repeat(301));
  });
});

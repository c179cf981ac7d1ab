/**
 * What `prepareCall` decides from the descriptor alone, before anything is sent: which calls carry
 * a member (a member-scoped endpoint needs one, a member-optional one goes without), and which are
 * signed (every method but GET and HEAD, the token exchange excepted). The wire suites show the
 * same on the socket; this pins the rule where a resource's mistake would be caught.
 */
import { describe, expect, it } from 'vitest';
import { prepareCall } from '../../src/core/call/call.js';
import { InvalidArgumentError } from '../../src/index.js';
import { BALANCES_LIST, TOKEN_EXCHANGE, WITHDRAWALS_CONFIRM, WITHDRAWALS_CREATE, WITHDRAWALS_FAIL } from '../../src/facts/endpoints.js';

const wdr = { pathParams: { id: 'wdr_1' } };

describe('the member of a call', () => {
  it('a member-scoped endpoint refuses a call without a member before anything is sent', () => {
    expect(() => prepareCall(WITHDRAWALS_CREATE, { body: {} }, '')).toThrow(InvalidArgumentError);
    expect(() => prepareCall(BALANCES_LIST, {}, '')).toThrow(/member: must be a non-blank/);
  });

  it('a member-optional endpoint goes without a member, and checks one when given', () => {
    for (const endpoint of [WITHDRAWALS_CONFIRM, WITHDRAWALS_FAIL]) {
      expect(prepareCall(endpoint, wdr, '').member).toBeUndefined();
      expect(prepareCall(endpoint, { ...wdr, member: 'ext-42' }, '').member).toBe('ext-42');
      expect(() => prepareCall(endpoint, { ...wdr, member: ' ' }, '')).toThrow(/member: must be a non-blank/);
    }
  });
});

describe('the signature of a call', () => {
  it('every method but GET and HEAD is signed, except the token exchange', () => {
    expect(prepareCall(WITHDRAWALS_CONFIRM, wdr, '').signed).toBe(true);
    expect(prepareCall(BALANCES_LIST, { member: 'm' }, '').signed).toBe(false);
    expect(TOKEN_EXCHANGE.method).toBe('POST');
    expect(prepareCall(TOKEN_EXCHANGE, {}, '', 'token')).toMatchObject({ signed: false, idempotencyKey: undefined, body: undefined });
  });
});

/**
 * `CallRun`, the object that owns one call's run: what it says of the call only moves forward
 * (a call once answered stays answered, whatever a later attempt does), it keeps its deadline and
 * the call's secrets, and it stamps an error with the call's state on a copy.
 */
import { describe, expect, it } from 'vitest';
import { CallRun } from '../../src/core/attempts/call-run.js';
import { prepareCall } from '../../src/core/call/call.js';
import { NO_TELEMETRY } from '../../src/core/telemetry/telemetry.js';
import { WITHDRAWALS_CREATE } from '../../src/facts/endpoints.js';

function run(): CallRun {
  const call = prepareCall(WITHDRAWALS_CREATE, { member: 'm-1', body: { asset: 'USDT', amount: '1', to_address: 'T' } }, '');
  return new CallRun({
    call,
    rules: {},
    budget: { timeoutMs: 1_000, maxRetries: 2 },
    trace: NO_TELEMETRY.startCall({ name: call.name, method: call.method, route: call.route, idempotencyKey: call.idempotencyKey }),
    started: 5_000,
  });
}

describe('CallRun', () => {
  it('sent only moves forward: an answered call stays answered when a later attempt is lost', () => {
    const r = run();
    expect(r.snapshot().sent).toBe('no');
    r.raiseSent('maybe');
    expect(r.snapshot().sent).toBe('maybe');
    r.answered(500, 'req_1');
    expect(r.snapshot()).toMatchObject({ sent: 'yes', status: 500, requestId: 'req_1' });
    r.raiseSent('maybe');
    r.raiseSent('no');
    expect(r.snapshot().sent).toBe('yes');
  });

  it('owns its deadline (timeoutMs × (maxRetries + 1) from its start) and a copy of the call secrets', () => {
    const r = run();
    expect(r.deadline).toBe(5_000 + 3_000);
    r.secrets.push('sig');
    expect(r.call.secrets).not.toContain('sig');
  });

  it('stamps a copy of an error with its state, and knows the errors its own steps raised', () => {
    const r = run();
    const err = r.own(new Error('boom'));
    expect(r.owns(err)).toBe(true);
    expect(r.owns(new Error('other'))).toBe(false);
    r.answered(502, undefined);
    const stamped = r.stamp(err);
    expect(stamped).not.toBe(err);
    expect(stamped).toMatchObject({ call: { sent: 'yes', status: 502, attempts: 0, idempotencyKey: r.call.idempotencyKey } });
  });
});

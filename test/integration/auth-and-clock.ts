/**
 * Authentication and clock faults against the simulator (issue 7): a token revoked mid-run is
 * renewed once; a disabled key is a fatal `invalid_credentials` with no loop; a service clock
 * ±10 minutes away is corrected after one `timestamp_out_of_range`; `Retry-After` is waited.
 */
import { describe, expect, it } from 'vitest';
import { type ApiError, isApiError } from '../../src/index.js';
import { attemptsOn, expectBuckets, expectSameKeyNewNonce, thrown, type Mode } from './harness.js';

const W = '/v1/withdrawals';
const order = { asset: 'USDT', amount: '10', to_address: 'T-auth' } as const;

/** Registers the authentication and clock scenarios for one mode. */
export function describeAuthAndClock(mode: Mode): void {
  describe(`[${mode.name}] token revocation`, () => {
    it('invalid_token mid-run: one renewal, the same call goes through with the same key', async () => {
      const w = await mode.open();
      try {
        const { sandbox, client } = w;
        const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
        const member = client.member(m.id);
        await member.withdrawals.create(order);
        expect(sandbox.stats.tokenExchanges).toBe(1);

        sandbox.revokeTokens();
        sandbox.resetRequests();
        const r = await member.withdrawals.create(order).withResponse();
        expect(r.response.attempts).toBe(2);
        expect(sandbox.stats.tokenExchanges).toBe(2);
        expect(sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`POST ${W}`, 'POST /v1/connect/token', `POST ${W}`]);
        const attempts = attemptsOn(sandbox, 'POST', W);
        expectSameKeyNewNonce(attempts, r.response.idempotencyKey!);
        expect(attempts[0]!.headers['x-auth-token']).not.toBe(attempts[1]!.headers['x-auth-token']);
        // The rejected attempt executed nothing: two calls, two debits.
        expect(sandbox.state.countEffects('withdrawal.create')).toBe(2);
        expectBuckets(sandbox.state.balance(m.id, 'USDT'), { available: '80', withdrawing: '20' });
      } finally {
        await w.close();
      }
    });

    it('a second invalid_token in the same call is raised: one renewal per call, no loop', async () => {
      const w = await mode.open();
      try {
        const { sandbox, client } = w;
        const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
        // An envelope the simulator would send for a token it no longer accepts, on every attempt.
        sandbox.faults.inject(
          { method: 'POST', path: W },
          { kind: 'unknown_code', status: 401, code: 'invalid_token' },
          { times: Infinity },
        );
        const err = await thrown(() => client.member(m.id).withdrawals.create(order));
        expect(isApiError(err, 'invalid_token')).toBe(true);
        expect(attemptsOn(sandbox, 'POST', W)).toHaveLength(2);
        expect(sandbox.stats.tokenExchanges).toBe(2);
        expect(sandbox.state.countEffects()).toBe(0);
      } finally {
        await w.close();
      }
    });

    it('a disabled key: invalid_token, one exchange answered invalid_credentials, raised as fatal; each later call tries once', async () => {
      const w = await mode.open();
      try {
        const { sandbox, client } = w;
        const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
        const member = client.member(m.id);
        await member.withdrawals.create(order);
        const exchanges = sandbox.stats.tokenExchangeAttempts;

        sandbox.disableKey();
        sandbox.resetRequests();
        const err = await thrown(() => member.withdrawals.create(order));
        expect(isApiError(err, 'invalid_credentials')).toBe(true);
        expect((err as ApiError).status).toBe(401);
        expect((err as ApiError).retryClass).toBe('fatal');
        expect(sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual([`POST ${W}`, 'POST /v1/connect/token']);
        expect(sandbox.stats.tokenExchangeAttempts - exchanges).toBe(1);

        // No cached failure and no loop: the next call makes one exchange attempt and stops.
        const again = await thrown(() => member.withdrawals.create(order));
        expect(isApiError(again, 'invalid_credentials')).toBe(true);
        expect(sandbox.stats.tokenExchangeAttempts - exchanges).toBe(2);
        expect(attemptsOn(sandbox, 'POST', W)).toHaveLength(1);
        expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
        expectBuckets(sandbox.state.balance(m.id, 'USDT'), { available: '90', withdrawing: '10' });

        // Re-enabled, the same client recovers on its own.
        sandbox.enableKey();
        await member.withdrawals.create(order);
        expect(sandbox.state.countEffects('withdrawal.create')).toBe(2);
      } finally {
        await w.close();
      }
    });
  });

  describe(`[${mode.name}] clock skew`, () => {
    for (const minutes of [10, -10]) {
      it(`a service clock ${minutes > 0 ? '+' : ''}${minutes} min away: one timestamp_out_of_range, corrected from Date, same key`, async () => {
        const w = await mode.open();
        try {
          const { sandbox, client } = w;
          const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
          const member = client.member(m.id);
          await member.balances.list(); // token and a read: reads are unsigned, so unaffected
          sandbox.clock.skewSignatures(minutes * 60_000);
          sandbox.resetRequests();

          const r = await member.withdrawals.create(order).withResponse();
          expect(r.response.attempts).toBe(2);
          const attempts = attemptsOn(sandbox, 'POST', W);
          expect(attempts).toHaveLength(2);
          expectSameKeyNewNonce(attempts, r.response.idempotencyKey!);
          // Wire: the first timestamp is outside the ±300 s window of the service's signature clock
          // (business time, which `at` records, was not moved), the second inside.
          const drift = (i: number): number =>
            Math.abs(Number(attempts[i]!.headers['x-timestamp']) - (attempts[i]!.at + minutes * 60_000) / 1000);
          expect(drift(0)).toBeGreaterThan(300);
          expect(drift(1)).toBeLessThanOrEqual(300);
          expect(Math.round(client.clockOffsetMs / 60_000)).toBe(minutes);
          expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);

          // Later writes are signed on the corrected clock at their first attempt.
          sandbox.resetRequests();
          await member.withdrawals.create(order);
          expect(attemptsOn(sandbox, 'POST', W)).toHaveLength(1);
          expectBuckets(sandbox.state.balance(m.id, 'USDT'), { available: '80', withdrawing: '20' });
        } finally {
          await w.close();
        }
      });
    }
  });

  describe(`[${mode.name}] Retry-After`, () => {
    it('a 429 with Retry-After: 1 (wrapped shape) is retried only after that second, with the same key', async () => {
      const w = await mode.open();
      try {
        const { sandbox, client } = w;
        const m = sandbox.state.seedMember({ balances: { USDT: { available: '100' } } });
        sandbox.faults.inject({ method: 'POST', path: W }, { kind: 'rate_limited', retryAfter: 1, shape: 'wrapped' });
        const r = await client.member(m.id).withdrawals.create(order).withResponse();
        const attempts = attemptsOn(sandbox, 'POST', W);
        expect(attempts).toHaveLength(2);
        expectSameKeyNewNonce(attempts, r.response.idempotencyKey!);
        // Wire behaviour: the second attempt came about a second later, far beyond this client's
        // own backoff (at most 20 ms), so only Retry-After explains it (the margin absorbs the
        // millisecond rounding between timers and the wall clock).
        expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(900);
        expect(sandbox.state.countEffects('withdrawal.create')).toBe(1);
      } finally {
        await w.close();
      }
    });
  });
}

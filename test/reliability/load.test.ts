/**
 * Load: a burst of concurrent mixed calls through one client against the simulator in server
 * mode, with quotas tightened, first without and then with the client-side limiter. Sizes are
 * small by default (2 CI cores); `STRESS=1` (npm run test:stress) runs the 2,000 calls.
 * Figures of the full run: `npx tsx scripts/reliability-figures.ts`.
 *
 * Nothing here depends on the machine's speed: without the limiter the simulator's window never
 * slides (its clock is frozen), so exactly `quota` attempts per bucket get through; with it, the
 * limiter and the simulator share a clock that moves only between requests (see load-harness.ts).
 */
import { setImmediate as tick } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantClient, type RateLimitBucket } from '../../src/index.js';
import { createSandbox } from '../../src/testing/index.js';
import { FULL_CALLS, FULL_QUOTAS, kindOf, runBurst, scaleQuotas, type BurstFigures, type Quotas } from './load-harness.js';

const STRESS = process.env.STRESS === '1' || process.env.STRESS === 'true';
const CALLS = STRESS ? FULL_CALLS : 300;
/** `Retry-After: 60` (simulator seconds) becomes a pause of 60 / SCALE real seconds. */
const SCALE = 120;
const QUOTAS: Quotas = scaleQuotas(FULL_QUOTAS, FULL_CALLS, CALLS);
/** The client's default: 2 retries, so 3 attempts per call. */
const ATTEMPTS = 3;
const POOL = 64;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function collect(): Promise<number> {
  // WeakRefs are cleared only after the current job: let a few turns pass between collections.
  for (let i = 0; i < 4; i++) {
    gc();
    await tick();
  }
  return process.memoryUsage().heapUsed;
}

function callsPerBucket(n: number): Record<RateLimitBucket, number> {
  const out: Record<RateLimitBucket, number> = { reads: 0, orders: 0, members_write: 0, deposits: 0 };
  const bucket = {
    balances: 'reads',
    assets: 'reads',
    withdrawal: 'orders',
    faucet: 'orders',
    member: 'members_write',
    deposit: 'deposits',
  } as const;
  for (let i = 0; i < n; i++) out[bucket[kindOf(i)]]++;
  return out;
}

/**
 * What a window that never slides yields: the first `quota` attempts of the bucket get through,
 * and every other call is refused on each of its attempts (the first and its retries).
 */
function expectedFrozen(calls: number, quota: number): { succeeded: number; failed: number; rateLimited: number } {
  const refused = Math.max(0, calls - quota);
  return { succeeded: calls - refused, failed: refused, rateLimited: ATTEMPTS * refused };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

describe(`load: ${CALLS} concurrent mixed calls through one client (simulator in server mode)`, () => {
  const figures: { without?: BurstFigures; with?: BurstFigures } = {};

  it(
    'without the limiter: every call settles typed, retries wait out Retry-After for the whole bucket, sockets stay in the pool, the heap returns',
    async () => {
      // Warm-up (module loading, JIT, undici internals) so that the baseline is a steady state.
      await runBurst({ calls: 40, quotas: QUOTAS, scale: SCALE, limiter: false, pool: POOL, time: 'frozen' });
      const baseline = await collect();

      const run = await runBurst({ calls: CALLS, quotas: QUOTAS, scale: SCALE, limiter: false, pool: POOL, time: 'frozen' });
      const f = run.figures;
      figures.without = f;

      // Every call ended in success or a typed error after its retries.
      expect(f.untypedFailures).toBe(0);
      expect(f.succeeded + Object.values(f.failures).reduce((a, b) => a + b, 0)).toBe(CALLS);
      expect(Object.keys(f.failures).every((k) => k === 'ApiError:rate_limited')).toBe(true);
      expect(f.maxAttemptsPerCall).toBeLessThanOrEqual(ATTEMPTS);
      expect(f.unauthorized).toBe(0);

      // Retry-After honoured bucket-wide: nothing entered the transport for a paused bucket.
      expect(f.sentWhilePaused).toBe(0);
      // The window never slid: per bucket, exactly `quota` calls got through, and each other
      // call was refused on each of its attempts (none slipped through on a retry).
      const perBucket = callsPerBucket(CALLS);
      let expected = { succeeded: 0, failed: 0, rateLimited: 0 };
      for (const bucket of Object.keys(perBucket) as RateLimitBucket[]) {
        const e = expectedFrozen(perBucket[bucket], QUOTAS[bucket]);
        expect({ bucket, rateLimited: f.rateLimitedByBucket[bucket] }).toEqual({ bucket, rateLimited: e.rateLimited });
        expect({ bucket, attempts: f.attemptsByBucket[bucket] }).toEqual({ bucket, attempts: e.succeeded + e.rateLimited });
        expect({ bucket, maxInAnyWindow: f.maxInAnyWindow[bucket] }).toEqual({ bucket, maxInAnyWindow: e.succeeded + e.rateLimited });
        expected = {
          succeeded: expected.succeeded + e.succeeded,
          failed: expected.failed + e.failed,
          rateLimited: expected.rateLimited + e.rateLimited,
        };
      }
      expect(f.succeeded).toBe(expected.succeeded);
      expect(f.failures).toEqual({ 'ApiError:rate_limited': expected.failed });
      expect(f.rateLimited).toBe(expected.rateLimited);
      expect(f.rateLimited).toBeGreaterThan(0);
      expect(f.attempts).toBe(CALLS + f.rateLimited - (f.failures['ApiError:rate_limited'] ?? 0));

      // Money moved exactly once per successful withdrawal, never twice.
      expect(f.duplicateEffects).toBe(0);
      expect(f.successesWithoutEffect).toBe(0);
      expect(f.withdrawalEffects).toBe(f.withdrawalsSucceeded);

      // Sockets: the burst far exceeds the pool, and the server never saw more than the pool.
      expect(f.maxServerConnections).toBeGreaterThan(1);
      expect(f.maxServerConnections).toBeLessThanOrEqual(POOL);

      // Heap: the client and the simulator are collectable, and the heap is back near the
      // baseline (a per-call leak of even 1 KB would show at 2,000 calls).
      const after = await collect();
      expect(run.clientRef.deref()).toBeUndefined();
      expect(run.sandboxRef.deref()).toBeUndefined();
      expect(after - baseline).toBeLessThan(8 * 1024 * 1024);
      expect(unhandled).toEqual([]);
    },
    STRESS ? 300_000 : 60_000,
  );

  it(
    'with the MemoryRateLimiter (and faults injected): the same burst never draws a 429',
    async () => {
      const run = await runBurst({ calls: CALLS, quotas: QUOTAS, scale: SCALE, limiter: true, pool: POOL, faults: true, time: 'driven' });
      const f = run.figures;
      figures.with = f;
      // Never more than the quota in any window of the simulator's clock, so never a 429.
      for (const bucket of Object.keys(QUOTAS) as RateLimitBucket[]) expect(f.maxInAnyWindow[bucket]).toBeLessThanOrEqual(QUOTAS[bucket]);
      expect(f.rateLimited).toBe(0);
      expect(f.untypedFailures).toBe(0);
      expect(f.unauthorized).toBe(0);
      // The injected faults (502 after executing, HTML 502, 409 in progress, an unknown code)
      // were retried with the same key and every call succeeded.
      expect(f.succeeded).toBe(CALLS);
      expect(f.attempts).toBeGreaterThan(CALLS);
      expect(f.duplicateEffects).toBe(0);
      expect(f.successesWithoutEffect).toBe(0);
      expect(f.withdrawalEffects).toBe(f.withdrawalsSucceeded);
      expect(f.maxServerConnections).toBeLessThanOrEqual(POOL);
      // The limiter spread the burst over the windows the quotas require, instead of the
      // service refusing it: more windows of simulator time passed than without it.
      const perBucket = callsPerBucket(CALLS);
      const windows = Math.max(...(Object.keys(perBucket) as RateLimitBucket[]).map((b) => Math.ceil(perBucket[b] / QUOTAS[b])));
      expect(f.simulatorSeconds).toBeGreaterThanOrEqual((windows - 1) * 60);
      if (figures.without) expect(f.rateLimited).toBeLessThan(figures.without.rateLimited);
      expect(unhandled).toEqual([]);
    },
    STRESS ? 300_000 : 60_000,
  );

  it('the default transport keeps a burst within its pool of 64 sockets', async () => {
    let server: Awaited<ReturnType<ReturnType<typeof createSandbox>['listen']>> | undefined = undefined;
    let max = 0;
    // The simulator reads its clock on every request it receives: sample the open sockets there.
    const sandbox = createSandbox({
      now: () => {
        if (server !== undefined && server.connections > max) max = server.connections;
        return Date.now();
      },
    });
    server = await sandbox.listen();
    const client = new MerchantClient({ baseUrl: server.url, ...sandbox.credentials });
    const member = sandbox.state.seedMember({ balances: { USDT: { available: '10' } } });
    const results = await Promise.allSettled(
      Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? client.member(member.id).balances.list() : client.assets.list())),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(max).toBeGreaterThan(1);
    expect(max).toBeLessThanOrEqual(64);
    await client.close();
    await server.close();
  });
});

/**
 * Prints the load figures of the reliability issue at full size (2,000 concurrent mixed calls,
 * simulator quotas orders 200 and reads 300 a minute), without and with the client-side limiter.
 * Run by hand: `npx tsx scripts/reliability-figures.ts [calls] [scale]`. See
 * test/reliability/load-harness.ts for the set-up (simulator in server mode, time warp).
 */
import { FULL_CALLS, FULL_QUOTAS, runBurst, scaleQuotas } from '../test/reliability/load-harness.js';

const calls = Number(process.argv[2] ?? FULL_CALLS);
const scale = Number(process.argv[3] ?? 20);
const quotas = scaleQuotas(FULL_QUOTAS, FULL_CALLS, calls);

for (const limiter of [false, true]) {
  const { figures: f } = await runBurst({ calls, quotas, scale, limiter, pool: 64, faults: limiter });
  console.log(
    JSON.stringify(
      {
        limiter,
        faultsInjected: limiter,
        quotas,
        calls: f.calls,
        succeeded: f.succeeded,
        failures: f.failures,
        untypedFailures: f.untypedFailures,
        attempts: f.attempts,
        rateLimited: f.rateLimited,
        rateLimitedByBucket: f.rateLimitedByBucket,
        attemptsByBucket: f.attemptsByBucket,
        maxAttemptsPerCall: f.maxAttemptsPerCall,
        sentWhilePaused: f.sentWhilePaused,
        maxServerConnections: f.maxServerConnections,
        pool: f.pool,
        withdrawals: { succeeded: f.withdrawalsSucceeded, executed: f.withdrawalEffects, duplicates: f.duplicateEffects },
        realMs: f.realMs,
        simulatorSeconds: f.simulatorSeconds,
      },
      null,
      2,
    ),
  );
}

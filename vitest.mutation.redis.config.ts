import { defineConfig } from 'vitest/config';

/**
 * The suites `npm run test:mutation:redis` (Stryker, `stryker.redis.config.json`) runs against each
 * mutant of the Redis intent journal and event store (`src/redis/journal.ts`, `journal-scripts.ts`,
 * `event-store.ts`), of the journal's resend step (`src/core/journal/resend.ts`) and of the payout
 * store (`src/redis/payout-store.ts`, `payout-order.ts`, `payout-records.ts`).
 *
 * Suites that run the stores in this process against a real `redis-server` (each starts its own),
 * the scripted-client suites of `test/redis/`, and the journal's in-process suites. Left out: suites
 * whose stores run in child processes (a child never sees the active mutant: the fleet workers, the
 * crash runs, the Cluster's and the docs' example), and the restart scenarios of
 * `redis-faults.test.ts` (a minute each; the outage cases are in `fallback` and `not-ready`).
 */
export default defineConfig({
  test: {
    include: [
      'test/redis/**/*.test.ts',
      'test/journal/redis-journal.test.ts',
      'test/fleet/acl.test.ts',
      'test/fleet/fallback.test.ts',
      'test/fleet/not-ready.test.ts',
      'test/fleet/stores.test.ts',
      'test/fleet/sub-limits.test.ts',
      'test/journal/journal.test.ts',
      'test/journal/recovery.test.ts',
      'test/journal/recovery-edges.test.ts',
      'test/journal/hook.test.ts',
      'test/journal/rules.test.ts',
      'test/journal/matrix.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One file at a time: the redis-server processes and the mutant's runs share two cores.
    fileParallelism: false,
  },
});

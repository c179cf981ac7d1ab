import { defineConfig } from 'vitest/config';

/**
 * The suites `npm run test:mutation` (Stryker, `stryker.config.json`) runs against each mutant of
 * the money-critical modules: signing, retry policy, url, money, the request pipeline (the files
 * of `src/core/README.md`'s "one call's path": pipeline, call, attempt runner, bucket gate,
 * deadline, result, service clock, token exchange), token manager, pagination, response, errors,
 * the webhook handler (with its claim and onEvent steps) and the intent journal (journal, its hook, rules, recovery and report).
 *
 * The unit and wire tests of those modules, the hostile-server and limiter suites, the telemetry
 * suite (a wait at admission shows only in the call's trace), the sandbox suites that drive
 * the client end to end, and the journal's in-process suites (its loopback ledger, `recover()`,
 * the decision tables, the hook's and recovery's edges). Left out: suites that need redis or child
 * processes (a child never sees the active mutant: the Redis journal, the crash runs), the fault
 * matrices and scenario runs, the docs and package checks, and the slow load and sweep runs.
 */
export default defineConfig({
  test: {
    include: [
      'test/core/**/*.test.ts',
      'test/webhooks/**/*.test.ts',
      'test/resources/**/*.test.ts',
      'test/testing/**/*.test.ts',
      'test/reliability/rate-limiter.test.ts',
      'test/observability/telemetry.test.ts',
      'test/reliability/money-state.test.ts',
      'test/property/amounts.property.test.ts',
      'test/property/signing.property.test.ts',
      'test/journal/journal.test.ts',
      'test/journal/recovery.test.ts',
      'test/journal/idempotency-key-for.test.ts',
      'test/journal/rules.test.ts',
      'test/journal/hook.test.ts',
      'test/journal/recovery-edges.test.ts',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * The suites `npm run test:mutation:postgres` (Stryker, `stryker.postgres.config.json`) runs
 * against each mutant of `src/postgres`: the stores' in-process suites against a real PostgreSQL
 * (the journal, the event store, the docs' SQL and grants) and the failure classification.
 * Left out: the crash suites (journal-crash, webhook-crash), whose children never see the active
 * mutant.
 */
export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/postgres/journal-crash.test.ts', 'test/postgres/webhook-crash.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * The suites `npm run test:mutation:postgres` (Stryker, `stryker.postgres.config.json`) runs
 * against each mutant of `src/postgres`: the stores' in-process suites against a real PostgreSQL
 * (the journal, the event store, the delivery deadlines, the schema checks, the docs' SQL and
 * grants), the failure classification and the transaction-control classifier. Left out: the crash
 * suites (journal-crash, webhook-crash), whose children never see the active mutant, and
 * no-early-commit (a looping lexer mutant kills its worker with a server running; the classifier's
 * own table of statements covers it). One file at a time: each starts its own server.
 */
export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts'],
    exclude: ['**/node_modules/**', 'test/postgres/**/*-crash.test.ts', 'test/postgres/no-early-commit.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});

import { defineConfig } from 'vitest/config';

/**
 * The suites Stryker runs against each mutant of the PostgreSQL stores' schema checks and of
 * `context.transaction`'s guard (`src/postgres/schema.ts`, `schema-check.ts`, `schema-gate.ts`,
 * `transaction-control.ts`): the classifier's table of statements, and the real-PostgreSQL suites
 * of the schema, of no early commit, and of the docs' SQL and grants. In process only (a child
 * process never sees the active mutant).
 */
export default defineConfig({
  test: {
    include: [
      'test/postgres/transaction-control.test.ts',
      'test/postgres/schema-gate.test.ts',
      'test/postgres/schema.test.ts',
      'test/postgres/no-early-commit.test.ts',
      'test/postgres/docs.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

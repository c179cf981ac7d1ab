import { defineConfig } from 'vitest/config';

/**
 * The suites Stryker runs against each mutant of the PostgreSQL stores' schema checks and of
 * `context.transaction`'s guard (`src/postgres/schema.ts`, `schema-check.ts`, `schema-gate.ts`,
 * `transaction-control.ts`): the classifier's table of statements, the gate's unit suite, and the
 * real-PostgreSQL suites of the schema and of the docs' SQL and grants. In process only (a child
 * process never sees the active mutant). Left out: no-early-commit.test.ts (its PostgreSQL server
 * would be left running each time a lexer mutant loops and Stryker kills the worker; the
 * classifier's table covers the lexer).
 */
export default defineConfig({
  test: {
    include: [
      'test/postgres/transaction-control.test.ts',
      'test/postgres/schema-gate.test.ts',
      'test/postgres/schema.test.ts',
      'test/postgres/docs.test.ts',
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});

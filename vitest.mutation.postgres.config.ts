import { defineConfig } from 'vitest/config';

/**
 * The suites Stryker runs against each mutant of `src/postgres` (`npx stryker run` with a config
 * whose `vitest.configFile` is this file): the PostgreSQL suites that run in this process, against
 * a real server (test/postgres/helpers). Left out: the crash suites, whose child processes never
 * see the active mutant.
 */
export default defineConfig({
  test: {
    include: ['test/postgres/**/*.test.ts'],
    exclude: ['test/postgres/**/*-crash.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});

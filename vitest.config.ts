import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Hang guards, not speed bounds: no test relies on them to decide an outcome, and a loaded
    // 2-core machine may run a correct test many times slower than an idle one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});

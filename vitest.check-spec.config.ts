import { defineConfig } from 'vitest/config';

// `npm run check:spec` only: the cross-checks against the specification document.
export default defineConfig({
  test: {
    include: ['test/check-spec/**/*.check.ts'],
    pool: 'forks',
  },
});

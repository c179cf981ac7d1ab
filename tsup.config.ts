import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing/index.ts',
    webhooks: 'src/webhooks/index.ts',
    redis: 'src/redis/index.ts',
    'sandbox-bin': 'src/testing/bin.ts',
  },
  format: ['esm', 'cjs'],
  // Declarations tagged @internal (constructors the SDK calls, the pipeline's plumbing) are left
  // out of the published types, so the .d.ts is the public surface and nothing more.
  dts: { compilerOptions: { stripInternal: true } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  // Shared chunks: one copy of the client and error classes across entries, so instanceof holds.
  splitting: true,
  treeshake: true,
  // msw is an optional peer of the testing entry only.
  external: ['msw', 'msw/node', '@opentelemetry/api'],
});

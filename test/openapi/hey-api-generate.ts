/**
 * Generates a client from `openapi.json` with `@hey-api/openapi-ts` (fetch client, SDK, zod 4)
 * into a temporary folder, as a team outside this SDK would. Used by the hey-api client test and
 * the sandbox contract test; the folder is removed by `dispose()`.
 */
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A schema of the generated zod module, as far as the tests need it. */
interface GeneratedSchema {
  safeParse(value: unknown): { success: boolean; error?: { message: string } };
}

/** A generated client in its folder. */
export interface GeneratedClient {
  /** The folder: `gen/` holds the generated code; a test may write its own files beside it. */
  readonly dir: string;
  /** The generated zod module (`gen/zod.gen.ts`). */
  zod(): Promise<Record<string, GeneratedSchema>>;
  /** Removes the folder. */
  dispose(): void;
}

/** Generates the client (about a second). */
export async function generateHeyApiClient(): Promise<GeneratedClient> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hey-api-client-'));
  // The generated code resolves zod as an installed project would.
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await createClient({
    input: path.join(ROOT, 'openapi.json'),
    output: path.join(dir, 'gen'),
    // `dates.offset`: the spec says ISO 8601 and shows no zone, so an offset is a timestamp too.
    plugins: ['@hey-api/client-fetch', { name: 'zod', dates: { offset: true } }, { name: '@hey-api/sdk', validator: true }],
    logs: { level: 'silent' },
  });
  return {
    dir,
    zod: async () => (await import(pathToFileURL(path.join(dir, 'gen', 'zod.gen.ts')).href)) as Record<string, GeneratedSchema>,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The boundaries `npm run lint` holds (.dependency-cruiser.cjs): no import circle in `src`, type-only
 * imports included, and the rooms of `src/core` pointing one way. Each rule is shown to fail: the
 * check runs on a copy of `src` with one planted import, and must name the rule it breaks.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPCRUISE = join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
const copies: string[] = [];

/** Runs the check as lint does, in `cwd`; its exit code and output. */
function check(cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs'], { cwd }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

/** A copy of the sources and the check's settings, with `line` appended to `file`. */
function planted(file: string, line: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ms-boundaries-'));
  copies.push(dir);
  for (const entry of ['src', 'tsconfig.json', '.dependency-cruiser.cjs']) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true });
  appendFileSync(join(dir, file), `\n${line}\n`);
  return dir;
}

afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

describe('the boundaries lint holds', () => {
  it('hold today: no circle, no arrow against the rooms', async () => {
    const r = await check(ROOT);
    expect(r.output).toContain('no dependency violations found');
    expect(r.code).toBe(0);
  });

  it.each([
    ['a type-only import circle', 'src/core/text.ts', "import type { ApiError } from './errors/api-error.js';", 'no-circular'],
    [
      'a room reaching up into the call',
      'src/core/limits/limiter.ts',
      "import type { Pipeline } from '../pipeline/pipeline.js';",
      'core-limits-one-way',
    ],
    [
      'the telemetry reaching into the attempt loop',
      'src/core/telemetry/logger.ts',
      "import '../attempts/runner.js';",
      'core-telemetry-one-way',
    ],
    [
      'the simulator sharing the client signing',
      'src/testing/ids.ts',
      "import '../core/crypto/signing.js';",
      'testing-shares-no-code-with-the-client',
    ],
    ['the main entry reaching the Redis stores', 'src/index.ts', "import '../src/redis/index.js';", 'redis-stays-optional'],
    [
      'the webhook receiver reaching the PostgreSQL stores',
      'src/webhooks/index.ts',
      "import '../postgres/index.js';",
      'postgres-stays-optional',
    ],
  ])('fails on %s', async (_what, file, line, rule) => {
    const r = await check(planted(file, line));
    expect(r.code).not.toBe(0);
    expect(r.output).toContain(rule);
  });
});

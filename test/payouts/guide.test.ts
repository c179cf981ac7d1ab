/**
 * docs/payouts.md's "A payout desk in one file", run as printed: the block is written to a file
 * unchanged except for the package names, which point at `src/` (the package is not built for
 * the suite), and runs in a child process. What it prints is compared with the page's own
 * "It prints" block, line for line, then its reconciliation headline.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DOC = readFileSync(new URL('../../docs/payouts.md', import.meta.url), 'utf8');
const src = (path: string): string => pathToFileURL(new URL(`../../src/${path}`, import.meta.url).pathname).href;

function blockAfter(heading: string, lang: string): string {
  const section = DOC.slice(DOC.indexOf(heading));
  const m = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (m === null) throw new Error(`docs/payouts.md has no ${lang} block under ${heading}`);
  return m[1]!;
}

describe('docs/payouts.md: the payout desk in one file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'payouts-guide-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports only the package entries', () => {
    const code = blockAfter('## A payout desk in one file', 'ts');
    expect([...code.matchAll(/from '([^']+)'/g)].map((m) => m[1])).toEqual(['merchant-stablecoin/testing', 'merchant-stablecoin/payouts']);
  });

  it('runs as printed and prints what the page says', async () => {
    const code = blockAfter('## A payout desk in one file', 'ts')
      .replace("from 'merchant-stablecoin/testing'", `from '${src('testing/index.ts')}'`)
      .replace("from 'merchant-stablecoin/payouts'", `from '${src('payouts/index.ts')}'`);
    const file = join(dir, 'desk.mts');
    writeFileSync(file, code);
    // A hang guard, not a speed bound: starting tsx takes seconds, more on a loaded machine.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: process.cwd(), timeout: 110_000 });
    const printed = stdout.trimEnd().split('\n');
    const promised = blockAfter('It prints:', 'text').trimEnd().split('\n');
    expect(printed.slice(0, promised.length)).toEqual(promised);
    expect(printed[promised.length]).toMatch(
      /^payout reconciliation, period \S+ to \S+: 0 discrepancies, 0 members not found, 0 stale payouts, 0 read failures, 1 member read$/,
    );
    expect(printed).toHaveLength(promised.length + 1);
  }, 120_000);
});

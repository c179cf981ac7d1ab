/**
 * Every TypeScript block (```ts) of README.md and docs/*.md type-checks against the package's
 * types under a user's strictest settings (`strict`, `exactOptionalPropertyTypes`,
 * `noUncheckedIndexedAccess`): a guide that drifts from the types fails here. Fragments declare
 * what they take from elsewhere in a `<!-- ts-preamble: … -->` comment (CONTRIBUTING.md, "Code in
 * the docs"); test/docs/ts-blocks.ts holds the harness.
 *
 * One program checks all the blocks, the planted ones included, so the suite pays for one
 * compilation.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkBlocks, ROOT, shippedBlocks, shippedGuides, tsBlocks, type BlockError, type TsBlock } from './ts-blocks.js';

/**
 * A shipped guide's text with one line changed, as a drifting edit would: its blocks, and the
 * guide's line the error must be reported on (the first line holding `at`).
 */
function planted(doc: string, from: string, to: string, at: string = to): { blocks: TsBlock[]; where: string } {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  if (!text.includes(from)) throw new Error(`${doc} no longer has ${from}`);
  const changed = text.replace(from, to);
  const line = changed.split('\n').findIndex((l) => l.includes(at)) + 1;
  return { blocks: tsBlocks(`planted:${doc}`, changed), where: `planted:${doc}:${line}` };
}

const PLANTS = {
  // A method the client does not have.
  method: planted('README.md', '.withdrawals.create(', '.withdrawals.creat('),
  // A field of a result read with a type it does not have.
  field: planted('docs/money.md', "toDecimal(usdt.available).gte('100');", 'const n: number = usdt.available;'),
  // A preamble that no longer declares what the block uses.
  preamble: planted('docs/errors.md', 'declare const addr: string;', 'declare const address: string;', 'to_address: addr'),
};

describe('TypeScript blocks of the shipped guides', () => {
  const blocks = shippedBlocks();
  let errors: BlockError[];
  beforeAll(async () => {
    errors = await checkBlocks([...blocks, ...Object.values(PLANTS).flatMap((p) => p.blocks)]);
  });

  it('finds the blocks of every guide that has some', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(60);
    const guides = new Set(blocks.map((b) => b.doc));
    for (const doc of ['README.md', 'docs/getting-started.md', 'docs/webhooks.md', 'docs/postgres.md', 'docs/payouts.md']) {
      expect(guides, doc).toContain(doc);
    }
    expect(shippedGuides()).toContain('docs/idempotency-and-retries.md');
  });

  it('type-checks every block under strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess', () => {
    const shipped = errors.filter((e) => !e.block.doc.startsWith('planted:'));
    expect(shipped.map((e) => `${e.where}: ${e.message}`)).toEqual([]);
  });

  it.each(Object.entries(PLANTS))('fails a block with a planted error (%s), at its line', (_, plant) => {
    const found = errors.filter((e) => e.block.doc === plant.blocks[0]!.doc);
    expect(found.map((e) => e.where)).toEqual([plant.where]);
  });
});

describe('tsBlocks', () => {
  it('reads each ```ts block with the preamble comments right above it, indented blocks too', () => {
    const markdown = [
      'Text.',
      '<!-- ts-preamble: declare const a: number; -->',
      '',
      '<!-- ts-preamble: declare const b: string; -->',
      '```ts',
      'a + b;',
      '```',
      '',
      '- In a list:',
      '  ```ts',
      '  const c = 1;',
      '  ```',
      '```sh',
      'npm test',
      '```',
    ].join('\n');
    expect(tsBlocks('x.md', markdown)).toEqual([
      { doc: 'x.md', line: 5, preamble: 'declare const a: number;\ndeclare const b: string;', code: 'a + b;' },
      { doc: 'x.md', line: 10, preamble: '', code: 'const c = 1;' },
    ]);
  });
});

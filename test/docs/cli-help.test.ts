/**
 * The sandbox command's `--help` names every top-level key of the seed file it takes
 * (`--seed <file.json>`), as the seed file's type and its checker define them.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/testing/cli/args.js';
import { checkSeed } from '../../src/testing/seed-file.js';

const SEED_FILE = new URL('../../src/testing/seed-file.ts', import.meta.url);

/** The property names of the `SandboxSeed` interface, read from its source. */
function seedTypeKeys(): string[] {
  const source = ts.createSourceFile('seed-file.ts', readFileSync(SEED_FILE, 'utf8'), ts.ScriptTarget.ES2022, true);
  const keys: string[] = [];
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text === 'SandboxSeed') {
      for (const member of node.members) if (member.name !== undefined && ts.isIdentifier(member.name)) keys.push(member.name.text);
    }
  });
  return keys;
}

/** The keys the checker accepts, as its error for an unknown key lists them. */
function checkerKeys(): string[] {
  try {
    checkSeed({ not_a_seed_key: [] });
  } catch (e) {
    const known = /\(known: ([^)]*)\)/.exec(String(e))?.[1];
    if (known !== undefined) return known.split(',').map((k) => k.trim());
  }
  throw new Error('checkSeed accepted an unknown key, or no longer names the known ones');
}

describe('merchant-stablecoin-sandbox --help', () => {
  it('names every top-level key of the seed file', () => {
    const keys = seedTypeKeys();
    expect(keys).toContain('products'); // the key the help once left out
    expect(checkerKeys()).toEqual(keys);
    for (const key of keys) {
      checkSeed({ [key]: [] }); // each is a key the command accepts
      expect(USAGE, key).toContain(`"${key}": [...]`);
    }
  });

  it('names them in the order the seed applies them, on the --seed option', () => {
    const seedHelp = USAGE.slice(USAGE.indexOf('--seed <file.json>'), USAGE.indexOf('-h, --help'));
    const positions = seedTypeKeys().map((key) => seedHelp.indexOf(`"${key}"`));
    expect(positions.every((p) => p > 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });
});

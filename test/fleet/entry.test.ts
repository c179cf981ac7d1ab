/**
 * The main, testing and webhooks entries have no Redis or PostgreSQL dependency: nothing they
 * reach imports ioredis, pg, src/redis or src/postgres, and src/redis and src/postgres import their
 * driver for types only (the caller passes a client or a pool), so importing the SDK without
 * ioredis or pg installed works.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]/g;
const DYNAMIC = /import\(\s*['"]([^'"]+)['"]\s*\)/g;

interface Edge {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

function edges(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const out: Edge[] = [];
  for (const m of text.matchAll(IMPORT)) out.push({ from: file, to: m[3]!, typeOnly: m[2] !== undefined });
  for (const m of text.matchAll(DYNAMIC)) out.push({ from: file, to: m[1]!, typeOnly: false });
  return out;
}

/** Every runtime import reachable from `entry` (type-only imports are erased at build). */
function reachable(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const e of edges(file)) {
      if (e.typeOnly) continue;
      if (e.to.startsWith('.')) queue.push(join(dirname(file), e.to.replace(/\.js$/, '.ts')));
      else packages.add(e.to);
    }
  }
  return { files, packages };
}

describe('entries without Redis', () => {
  for (const entry of ['index.ts', 'testing/index.ts', 'webhooks/index.ts']) {
    it(`src/${entry} reaches neither ioredis nor src/redis`, () => {
      const { files, packages } = reachable(join(SRC, entry));
      expect(files.size).toBeGreaterThan(5);
      expect([...packages].filter((p) => p.includes('redis'))).toEqual([]);
      expect([...files].filter((f) => f.startsWith(join(SRC, 'redis')))).toEqual([]);
    });
  }

  it('src/redis imports ioredis at run time nowhere (the caller passes a client)', () => {
    const { packages } = reachable(join(SRC, 'redis', 'index.ts'));
    expect([...packages].filter((p) => p.includes('redis'))).toEqual([]);
  });
});

describe('entries without PostgreSQL', () => {
  for (const entry of ['index.ts', 'testing/index.ts', 'webhooks/index.ts', 'redis/index.ts']) {
    it(`src/${entry} reaches neither pg nor src/postgres`, () => {
      const { files, packages } = reachable(join(SRC, entry));
      expect([...packages].filter((p) => /^pg(\/|$)/.test(p))).toEqual([]);
      expect([...files].filter((f) => f.startsWith(join(SRC, 'postgres')))).toEqual([]);
    });
  }

  it('src/postgres imports pg at run time nowhere (the caller passes a pool), nor any node: module', () => {
    const { packages } = reachable(join(SRC, 'postgres', 'index.ts'));
    expect([...packages].filter((p) => /^pg(\/|$)/.test(p) || p.startsWith('node:'))).toEqual([]);
  });
});

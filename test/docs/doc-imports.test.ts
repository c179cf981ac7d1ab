/**
 * A reader who copies a guide's code has the packages it imports: each package a code block of
 * README.md or docs/*.md imports is named by an install line (`npm install …`) of that guide, or
 * of a guide it links to (where its set-up is). Node's built-in modules, the reader's own files
 * (relative paths) and the package itself are given.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, shippedGuides } from './ts-blocks.js';

const PACKAGE = 'merchant-stablecoin';
const text = new Map(shippedGuides().map((doc) => [doc, readFileSync(join(ROOT, doc), 'utf8')]));

/** Fenced code blocks of the given languages. */
function blocks(markdown: string, langs: readonly string[]): string[] {
  return [...markdown.matchAll(/^\s*```(\w+)\s*\n([\s\S]*?)^\s*```/gm)].filter((m) => langs.includes(m[1]!)).map((m) => m[2]!);
}

/** The package a specifier names (`@scope/name` or `name`, subpath dropped), or undefined for a built-in or a file. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return builtinModules.includes(name) ? undefined : name;
}

/** Packages the code blocks (TypeScript, JavaScript) of a guide import or require. */
function importedPackages(markdown: string): Set<string> {
  const code = blocks(markdown, ['ts', 'typescript', 'js', 'javascript', 'tsx']).join('\n');
  const specifiers = [
    ...code.matchAll(/\bfrom\s+'([^']+)'/g),
    ...code.matchAll(/\bimport\s+'([^']+)'/g),
    ...code.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g),
    ...code.matchAll(/\brequire\(\s*'([^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return new Set(specifiers.map(packageOf).filter((p): p is string => p !== undefined));
}

/**
 * Packages named by the install lines (`npm install`, `npm i`, `pnpm add`, `yarn add`) of a
 * guide: in its shell blocks, and in its prose as a code span (`` `npm install undici@7` ``).
 */
function installedPackages(markdown: string): Set<string> {
  const out = new Set<string>();
  const spans = [...markdown.matchAll(/`((?:npm (?:install|i)|pnpm add|yarn add) [^`]+)`/g)].map((m) => m[1]!);
  for (const block of [...blocks(markdown, ['sh', 'bash', 'console']), ...spans]) {
    for (const m of block.matchAll(/^\s*\$?\s*(?:npm (?:install|i)|pnpm add|yarn add)\b([^\n#]*)/gm)) {
      for (const word of m[1]!.trim().split(/\s+/)) {
        if (word === '' || word.startsWith('-')) continue;
        // A tarball of this package (`./merchant-stablecoin-0.1.0.tgz`) installs the package.
        if (/merchant-stablecoin-[^/]*\.tgz$/.test(word)) out.add(PACKAGE);
        else out.add(word.replace(/(.)@[^/]*$/, '$1')); // `msw@2` names msw
      }
    }
  }
  return out;
}

/** The shipped guides a guide links to (relative `.md` links). */
function linkedGuides(doc: string, markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)#\s]+\.md)(?:#[^)]*)?\)/g)]
    .map((m) => posix.normalize(posix.join(posix.dirname(doc), m[1]!)))
    .filter((target) => text.has(target));
}

describe('packages the guides import', () => {
  it('reads imports and install lines as a reader would', () => {
    const guide = [
      '```sh',
      'npm install ./merchant-stablecoin-0.1.0.tgz ioredis msw@2 -D',
      '```',
      'With pino (`npm install pino`):',
      '```ts',
      "import { Redis } from 'ioredis';",
      "import { http } from 'msw';",
      "import { setupServer } from 'msw/node';",
      "import { createHash } from 'node:crypto';",
      "import type { X } from './mine.js';",
      "import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';",
      '```',
    ].join('\n');
    expect([...installedPackages(guide)].sort()).toEqual(['ioredis', 'merchant-stablecoin', 'msw', 'pino']);
    expect([...importedPackages(guide)].sort()).toEqual(['@opentelemetry/exporter-trace-otlp-http', 'ioredis', 'msw']);
  });

  it.each([...text.keys()])('%s: every package its code imports is named by its install lines or a linked guide’s', (doc) => {
    const markdown = text.get(doc)!;
    const named = new Set([PACKAGE, ...installedPackages(markdown)]);
    for (const linked of linkedGuides(doc, markdown)) for (const p of installedPackages(text.get(linked)!)) named.add(p);
    const missing = [...importedPackages(markdown)].filter((p) => !named.has(p));
    expect(missing, `packages ${doc} imports that no install line names`).toEqual([]);
  });
});

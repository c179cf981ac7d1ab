/**
 * One install story: the package is not on the npm registry yet, so what a reader copies must
 * work today. The README's Install section gives the tarball and git forms, the registry form
 * marked as future, and the sandbox command from an installed package or from the tarball; every
 * guide with an install or sandbox line points to it; no page copies the registry form into a code
 * block, or tells npx `--yes`; every tarball name carries the package's version. And Deno's
 * permissions are given whole: `--allow-env` beside `--allow-net`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/testing/cli/args.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
const TARBALL = `${pkg.name}-${pkg.version}.tgz`;

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const EXAMPLES = ['examples', 'examples/other-languages'].flatMap((dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => /\.(ts|py|sh|md)$/.test(f))
    .map((f) => `${dir}/${f}`),
);
/** Every text a user reads: the guides, the README, the examples and the command's help. */
const TEXTS: Array<[string, string]> = [...[...DOCS, ...EXAMPLES].map((f): [string, string] => [f, read(f)]), ['--help', USAGE]];

const codeBlocks = (md: string): string[] => [...md.matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
const paragraphs = (md: string): string[] => md.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '\n\n').split(/\n\s*\n/);

/** `npm install merchant-stablecoin` (or `npm i`, `--save-dev`, …) naming the registry package. */
const REGISTRY_INSTALL = /\bnpm\s+(?:install|i|add)\b[^\n`]*?(?<![\w./@-])merchant-stablecoin(?![\w./@-])/;
const SANDBOX_LINE = /\bnpx\b[^\n`]*\bmerchant-stablecoin-sandbox\b/;
const INSTALL_LINK = /\]\((?:\.\.\/)?README\.md#(?:install|the-sandbox-command)\)|\]\(sandbox-server\.md#start-it\)/;

describe('the install story', () => {
  const readme = read('README.md');
  const install = readme.slice(readme.indexOf('## Install\n'), readme.indexOf('\n## ', readme.indexOf('## Install\n') + 1));

  it('the README says once how to install today (tarball, git), the registry form as future, and how to run the command', () => {
    expect(install).toMatch(/not on the npm registry yet/);
    const blocks = codeBlocks(install).join('\n');
    expect(blocks).toContain('npm pack');
    expect(blocks).toContain(`npm install ./${TARBALL}`);
    expect(blocks).toMatch(/npm install git\+https:\/\//);
    expect(blocks).toContain(`npx --package ./${TARBALL} merchant-stablecoin-sandbox`);
    expect(blocks).not.toMatch(REGISTRY_INSTALL);
    expect(install).toMatch(/### From the npm registry \(future\)\n\nOnce the package is published, `npm install merchant-stablecoin`/);
    expect(install).toContain('### Repository files');
  });

  it('no code block installs the registry package, and prose names it only as the future form', () => {
    for (const [file, text] of TEXTS) {
      const blocks = file.endsWith('.md') ? codeBlocks(text) : [text];
      for (const block of blocks) expect(block, file).not.toMatch(REGISTRY_INSTALL);
      if (!file.endsWith('.md')) continue;
      for (const p of paragraphs(text).filter((p) => REGISTRY_INSTALL.test(p))) expect(p, file).toMatch(/published|404/);
    }
  });

  it('every guide with an install or a sandbox command line links to the Install section', () => {
    const pages = DOCS.filter((f) => f !== 'README.md').filter((f) => {
      const blocks = codeBlocks(read(f)).join('\n');
      return /\bnpm install\b[^\n]*merchant-stablecoin/.test(blocks) || SANDBOX_LINE.test(blocks) || SANDBOX_LINE.test(read(f));
    });
    expect(pages).toEqual(
      expect.arrayContaining([
        'docs/getting-started.md',
        'docs/testing.md',
        'docs/fleet.md',
        'docs/sandbox-server.md',
        'docs/other-languages.md',
      ]),
    );
    for (const page of pages) expect(read(page), page).toMatch(INSTALL_LINK);
  });

  it('never tells npx --yes', () => {
    for (const [file, text] of TEXTS) expect(text, file).not.toMatch(/\bnpx\b[^\n`]*\s(?:--yes|-y)\b/);
  });

  it('names the tarball of this version', () => {
    for (const [file, text] of TEXTS) {
      for (const [name] of text.matchAll(/merchant-stablecoin-\d[\w.-]*\.tgz/g)) expect(name, file).toBe(TARBALL);
    }
  });
});

describe('Deno permissions', () => {
  it('every place that gives --allow-net also gives --allow-env (settings from the environment need it)', () => {
    let places = 0;
    for (const [file, text] of TEXTS) {
      const parts = file.endsWith('.md') ? [...paragraphs(text), ...codeBlocks(text)] : text.split(/\n\s*\n/);
      for (const part of parts.filter((p) => p.includes('--allow-net'))) {
        places += 1;
        expect(part, file).toContain('--allow-env');
      }
    }
    expect(places).toBeGreaterThan(0);
  });
});

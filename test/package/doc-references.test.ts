/**
 * Every file a shipped document names is in the package (by `package.json`'s `files`), or is
 * marked as a repository file the way the README's "Repository files" section explains
 * (test/package/doc-references.ts has the rules). `npm run check:package` runs the same check
 * against the packed tarball's own file list.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { docReferences, repository, shippedBy, shippedMarkdown, unfollowableReferences, type Repository } from './doc-references.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };

const shipped = shippedBy(pkg.files);
const repo = repository(ROOT);
const shippedDocs = shippedMarkdown(ROOT, shipped);

describe('files named by the shipped documents', () => {
  it('are in the package, or marked as repository files (README.md#repository-files)', () => {
    expect(shippedDocs).toEqual(
      expect.arrayContaining(['README.md', 'docs/getting-started.md', 'docs/testing.md', 'docs/sandbox-server.md']),
    );
    expect(unfollowableReferences(shippedDocs, shipped, repo)).toEqual([]);
  });

  it('the guides cite repository files by a marked link, and the other-language examples from the package', () => {
    const guides = shippedDocs.filter((d) => d.startsWith('docs/') || d === 'README.md');
    const refs = guides.flatMap((d) => docReferences(d, repo));
    const marked = new Set(refs.filter((r) => r.marked).map((r) => r.path));
    for (const path of [
      'examples/msw-merchant-suite.test.ts',
      'examples/webhooks.ts',
      'examples/observability.ts',
      'test/fleet/acl.test.ts',
    ]) {
      expect(marked, path).toContain(path);
    }
    const linked = new Set(refs.filter((r) => r.where === 'link').map((r) => r.path));
    for (const script of readdirSync(join(ROOT, 'examples', 'other-languages'))) {
      expect(shipped(`examples/other-languages/${script}`), script).toBe(true);
      expect(linked, script).toContain(`examples/other-languages/${script}`);
    }
  });
});

describe('the reference check itself', () => {
  const dir = mkdtempSync(join(tmpdir(), 'doc-references-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  write('README.md', '# x\n\n### Repository files\n\nSee [`src/table.ts`](#repository-files).\n');
  write('examples/a.ts', '');
  write('examples/shipped/b.py', '');
  write('src/table.ts', '');
  write(
    'docs/guide.md',
    [
      'Plain `examples/a.ts` is not followable.',
      '',
      'Marked [`examples/a.ts`](../README.md#repository-files), then `npx tsx examples/a.ts`.',
      '',
      'Marked [`examples/gone.ts`](../README.md#repository-files) but absent.',
      '',
      'Shipped `examples/shipped/b.py` and [b](../examples/shipped/b.py); a dead [link](../examples/a.ts).',
      '',
      '```sh',
      'node examples/a.ts',
      '```',
      '',
      '```sh',
      '# in a clone of the repository',
      'node examples/a.ts   # writes src/not-here.ts',
      '```',
      '',
      '<!-- `src/table.ts` in a comment is not read -->',
      '',
    ].join('\n'),
  );
  write('docs/endpoints.md', 'Generated from `src/table.ts`; and `src/other.ts`.\n');
  const fake: Repository = {
    root: dir,
    files: ['README.md', 'examples/a.ts', 'examples/shipped/b.py', 'src/table.ts', 'docs/guide.md', 'docs/endpoints.md'],
    topLevel: new Set(['README.md', 'examples', 'src', 'docs', 'dist']),
  };
  const fakeShipped = (path: string): boolean => path === 'README.md' || path.startsWith('docs/') || path.startsWith('examples/shipped/');

  it('reports unmarked, absent and dead references, and accepts marked, shipped and commented ones', () => {
    expect(unfollowableReferences(['README.md', 'docs/guide.md', 'docs/endpoints.md'], fakeShipped, fake)).toEqual([
      'docs/guide.md: code block examples/a.ts: not in the package, and not marked as a repository file (README.md#repository-files)',
      'docs/guide.md: code span examples/a.ts: not in the package, and not marked as a repository file (README.md#repository-files)',
      'docs/guide.md: code span examples/gone.ts: marked as a repository file, but the repository has no examples/gone.ts',
      "docs/guide.md: link ../examples/a.ts: the link's target is not in the package",
      'docs/endpoints.md: code span src/other.ts: not in the package, and not marked as a repository file (README.md#repository-files)',
    ]);
  });
});

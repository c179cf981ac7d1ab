import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC_PATH, renderErrorsDoc } from '../../scripts/gen-errors-doc.js';
import { ERROR_CODES } from '../../src/facts/error-codes.js';

describe('docs/errors.md', () => {
  it('is exactly what scripts/gen-errors-doc.ts generates (run it after changing the code table)', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(renderErrorsDoc());
  });

  it('has one row per code of the catalogue, with its status, type and retry class', () => {
    const doc = renderErrorsDoc();
    const codes = Object.keys(ERROR_CODES);
    expect(codes).toHaveLength(50);
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(doc).toContain(`| \`${code}\` | ${info.status} | \`${info.type}\` | \`${info.retry}\` |`);
    }
  });
});

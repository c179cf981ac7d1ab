/**
 * The schemas' object on zod's compiled path answers exactly as `zod/mini`'s own `looseObject`:
 * the same values kept (unknown members included) and the same issues, by path and code.
 */
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { looseObject } from '../../src/schemas/loose-object.js';

const shape = () => ({ id: z.string(), rows: z.number(), note: z.optional(z.string()), tags: z.array(z.string()) });
const compiled = z.array(looseObject(shape()));
const generic = z.array(z.looseObject(shape()));

const inputs: unknown[] = [
  [{ id: 'rep_1', rows: 3, tags: ['a'], extra: { kept: true } }],
  [
    { id: 'rep_1', rows: 3, note: 'n', tags: [] },
    { id: 'rep_2', rows: 4, tags: ['b'], future_field: 1 },
  ],
  [{ id: 7, rows: '3', tags: [1] }],
  [{ rows: 3 }, null, 'text'],
  [{ id: 'rep_1', rows: 3, tags: [], __proto__: { polluted: true } }],
];

describe('looseObject on the compiled path', () => {
  it.each(inputs.map((input, i) => [i, input]))('input %i: the same data or the same issues as zod/mini', (_i, input) => {
    // The compiled function is generated on first use: parse twice to compare both runs.
    for (let run = 0; run < 2; run++) {
      const a = compiled.safeParse(input);
      const b = generic.safeParse(input);
      expect(a.success).toBe(b.success);
      if (a.success && b.success) expect(a.data).toEqual(b.data);
      else expect(a.error?.issues.map((x) => [x.path.join('.'), x.code])).toEqual(b.error?.issues.map((x) => [x.path.join('.'), x.code]));
    }
  });

  it('keeps unknown members and reports a wrong type by its path', () => {
    expect(compiled.parse([{ id: 'r', rows: 1, tags: [], extra: 2 }])).toEqual([{ id: 'r', rows: 1, tags: [], extra: 2 }]);
    const failed = compiled.safeParse([{ id: 'r', rows: 'x', tags: [] }]);
    expect(failed.success).toBe(false);
    expect(failed.error?.issues.map((x) => x.path.join('.'))).toEqual(['0.rows']);
  });
});
